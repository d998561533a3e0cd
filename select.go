package gpu

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// Open returns the best device there is. Backends are tried in the order of
// WithBackends, else ANYGPU_BACKEND, else DefaultOrder (cuda, metal, vulkan,
// webgpu, opengl, cpu); all are probed concurrently, then the first that has
// the requested device (WithDevice / ANYGPU_DEVICE, default 0) is opened.
//
// Software renderers (lavapipe, llvmpipe) are passed over unless their backend
// is named (WithBackends, ANYGPU_BACKEND): the CPU backend outruns them.
// When no GPU backend can be opened, Open returns the CPU device and logs one
// warning listing every backend's reason; with WithFallback(false) it returns
// an error of category Unavailable that joins those reasons instead.
// Backend names match ignoring case; an unknown name (in WithBackends,
// ANYGPU_BACKEND or ANYGPU_FAKE) is an InvalidArgument error at once, and so
// is a malformed ANYGPU_DEVICE. Report.Choose tells, from a probe, which
// device Open would open, without opening it.
func Open(ctx context.Context, opts ...Option) (*Device, error) {
	return choose(ctx, "open", opts, func(o options, c candidate, st BackendStatus) (*Device, error) {
		info, err := pickDevice(o, c.name, st)
		if err != nil {
			return nil, err
		}
		return openDevice(ctx, c, info, o)
	}, func(d *Device) *Device { return d })
}

// Choice is the device Open would open on a machine that probed as a
// Report, and why: Report.Choose's answer.
type Choice struct {
	// Device is the device chosen; its Backend and Ordinal name it.
	Device DeviceInfo `json:"device"`
	// Why says how it was chosen, for people: "the first usable backend of
	// the default order cuda,metal,...", or that it is the CPU fallback.
	Why string `json:"why"`
	// Fallback says the CPU device stands in for the backends passed over.
	Fallback bool `json:"cpu_fallback,omitempty"`
	// PassedOver lists, in selection order, the backends tried before the
	// choice and why each was not taken.
	PassedOver []PassedOver `json:"passed_over,omitempty"`
}

// PassedOver is a backend selection tried and did not take.
type PassedOver struct {
	Backend string `json:"backend"`
	// State is what the probe found. A backend that is Available was passed
	// over for its device: a software renderer nobody named, or no device of
	// the requested ordinal.
	State  State  `json:"state"`
	Reason string `json:"reason"`
	Hint   string `json:"hint,omitempty"`
}

// Choose applies Open's selection to the report, without opening anything:
// the device Open(ctx, opts...) would open on the machine the report was
// probed on, given the same options (those that do not bear on selection,
// such as WithProfiler or WithPool, are ignored; nothing is logged). Open
// and Choose walk the backends with one policy, so they cannot disagree,
// except that a device that probes well but fails to open is passed over by
// Open only. The errors are Open's: InvalidArgument for a malformed option
// or variable, Unavailable (every reason joined) when nothing is usable.
// A backend missing from the report counts as unavailable; a report with no
// backends at all (not Probe's) is an InvalidArgument error.
func (r Report) Choose(opts ...Option) (Choice, error) {
	if len(r.Backends) == 0 {
		return Choice{}, errorf(invalidArgument, "choose", "the report lists no backend (a Report from Probe lists every one)")
	}
	p, err := newPlan("choose", opts, true)
	if err != nil {
		return Choice{}, err
	}
	for _, name := range p.o.backends {
		if st := r.status(name); st.State == NotCompiled {
			return Choice{}, errors.Wrap(describe(st), name, "choose") // as Open fails on a named backend it lacks
		}
	}
	p.o.logger = slog.New(slog.DiscardHandler)
	src := statusSource{
		status: func(i int) BackendStatus { return r.status(p.cands[i].name) },
		cpu: func() (candidate, BackendStatus) {
			return candidate{name: cpuBackend}, r.status(cpuBackend)
		},
	}
	take := func(c candidate, st BackendStatus) (Choice, error) {
		info, err := pickDevice(p.o, c.name, st)
		info.Backend = c.name
		return Choice{Device: info, Why: "the first usable backend of " + p.order}, err
	}
	takeCPU := func(c candidate, st BackendStatus) (Choice, error) {
		if len(st.Devices) == 0 { // a hand-made report: Probe lists the devices of an available backend
			return Choice{}, errorf(invalidArgument, "choose", "the report's %s backend is available with no device", c.name)
		}
		info := st.Devices[0]
		info.Backend = c.name
		return Choice{Device: info, Why: "no backend of " + p.order + " is usable: the CPU fallback"}, nil
	}
	c, out, err := walk(p, "choose", src, take, takeCPU)
	if err != nil {
		return Choice{}, err
	}
	if out.fallback && c.Device.Backend == cpuBackend && slices.Contains(p.names, cpuBackend) {
		c.Why = "no GPU backend is usable: the CPU fallback"
	}
	c.Fallback = out.fallback
	for _, rs := range out.passedOver {
		st := r.status(rs.name)
		c.PassedOver = append(c.PassedOver, PassedOver{Backend: rs.name, State: st.State, Reason: reasonOf(rs.err), Hint: errors.Hint(rs.err)})
	}
	return c, nil
}

// status is the named backend's status, or Unavailable when the report has
// none.
func (r Report) status(name string) BackendStatus {
	if st, ok := r.Backend(name); ok {
		return st
	}
	return BackendStatus{Name: name, State: Unavailable, Reason: "not in the probe report"}
}

// pickDevice is the device Open takes of an available backend (name, probed
// as st): the requested ordinal, unless it is absent or a software renderer
// of a backend nobody named. Open and Report.Choose share it.
func pickDevice(o options, name string, st BackendStatus) (DeviceInfo, error) {
	if o.device >= len(st.Devices) {
		return DeviceInfo{}, errorf(errors.InvalidArgument, "open", "device %d requested, %d present", o.device, len(st.Devices))
	}
	info := st.Devices[o.device]
	if info.Type == backend.TypeSoftware && o.backends == nil {
		return DeviceInfo{}, softwareOnly(name, info.Name)
	}
	return info, nil
}

// choose is the selection Open and OpenAll share. Every probe starts at
// once, and results are taken in order (walk), so the first usable backend
// opens without waiting for slower ones later in the order. open turns an
// available backend into the result, or says why it cannot; cpu wraps the CPU
// device when everything else failed and fallback is on. op names the caller
// in errors.
func choose[T any](ctx context.Context, op string, opts []Option,
	open func(o options, c candidate, st BackendStatus) (T, error), cpu func(*Device) T) (T, error) {
	var zero T
	if ctx == nil {
		return zero, errorf(invalidArgument, op, "nil context")
	}
	p, err := newPlan(op, opts, false)
	if err != nil {
		return zero, err
	}
	probeCtx, cancelProbes := context.WithCancel(ctx)
	defer cancelProbes()
	results := probeAsync(probeCtx, p.cands)
	src := statusSource{
		status: func(i int) BackendStatus { return <-results[i] },
		cpu: func() (candidate, BackendStatus) {
			drv, _ := backend.Lookup(cpuBackend)
			c := candidate{name: cpuBackend, driver: drv}
			return c, probeOne(ctx, c)
		},
	}
	v, _, err := walk(p, op, src, func(c candidate, st BackendStatus) (T, error) { return open(p.o, c, st) },
		func(c candidate, st BackendStatus) (T, error) {
			d, err := openDevice(ctx, c, st.Devices[0], p.o)
			if err != nil {
				return zero, err
			}
			return cpu(d), nil
		})
	return v, err
}

// plan is what a selection walks: the options, and the backends to try, in
// order, resolved to candidates.
type plan struct {
	o     options
	names []string
	cands []candidate
	// order says where names came from, for people: "ANYGPU_BACKEND=...",
	// "WithBackends(...)" or "the default order ...".
	order string
}

// newPlan reads the options and the backends to try: WithBackends, else
// ANYGPU_BACKEND, else DefaultOrder (without the CPU when fallback is off).
// A named backend that is not linked into the program is an error unless
// anyLinkage (a report's choice needs no driver).
func newPlan(op string, opts []Option, anyLinkage bool) (plan, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return plan{}, err
	}
	names := o.backends
	order := fmt.Sprintf("WithBackends(%s)", strings.Join(names, ", "))
	if o.backendsEnv {
		order = EnvBackend + "=" + strings.Join(names, ",")
	}
	if names == nil {
		names = slices.Clone(DefaultOrder)
		if !o.fallback {
			names = slices.DeleteFunc(names, func(n string) bool { return n == cpuBackend })
		}
		order = "the default order " + strings.Join(names, ",")
	}
	if len(names) == 0 {
		return plan{}, errorf(invalidArgument, op, "no backend named (empty %s or WithBackends)", EnvBackend)
	}
	cands, err := resolve(names, o.fake, anyLinkage || o.backends == nil)
	if err != nil {
		return plan{}, err
	}
	return plan{o: o, names: names, cands: cands, order: order}, nil
}

// statusSource gives a walk its probe results: status(i) is the status of
// the plan's candidate i (waited for in order), cpu the CPU fallback's.
type statusSource struct {
	status func(i int) BackendStatus
	cpu    func() (candidate, BackendStatus)
}

// outcome is how a walk got to its result: the backends passed over, in
// order, with why, and whether the result is the CPU standing in for them.
type outcome struct {
	passedOver []reason
	fallback   bool
}

// walk is the selection policy, whatever it selects (a device, all of a
// backend's devices, or a Choice): the plan's backends in order, the first
// available one that take accepts wins; failing all, when fallback is on and
// the CPU was not in the order, the CPU device (takeCPU). Otherwise it is an
// error of category Unavailable joining every reason.
func walk[T any](p plan, op string, src statusSource, take, takeCPU func(candidate, BackendStatus) (T, error)) (T, outcome, error) {
	var zero T
	var reasons []reason
	for i, c := range p.cands {
		st := src.status(i)
		if st.State != Available {
			reasons = append(reasons, reason{c.name, describe(st)})
			passedOver(p.o, op, c, st.State, reasons[len(reasons)-1].err)
			continue
		}
		v, err := take(c, st)
		if err != nil {
			reasons = append(reasons, reason{c.name, err})
			passedOver(p.o, op, c, st.State, err)
			continue
		}
		fallback := c.name == cpuBackend && len(reasons) > 0
		if fallback {
			warnFallback(p.o, reasons)
		}
		chosen(p.o, op, c, len(reasons), fallback)
		return v, outcome{reasons, fallback}, nil
	}
	if p.o.fallback && !slices.Contains(p.names, cpuBackend) {
		c, st := src.cpu()
		if st.State == Available {
			v, err := takeCPU(c, st)
			if err == nil {
				warnFallback(p.o, reasons)
				chosen(p.o, op, c, len(reasons), true)
				return v, outcome{reasons, true}, nil
			}
			reasons = append(reasons, reason{cpuBackend, err})
		}
		passedOver(p.o, op, c, st.State, reasonErr(st, reasons))
	}
	errs := make([]error, len(reasons))
	for i, r := range reasons {
		errs[i] = r.err
	}
	return zero, outcome{passedOver: reasons}, &errors.Error{
		Op: op, Category: errors.Unavailable, Err: errors.Join(errs...),
		Msg:  "no usable device: " + joinReasons(reasons),
		Hint: "run `gpu info` to see every backend's state, or allow the CPU fallback",
	}
}

// passedOver logs, at debug level, why selection (op: "open", "open all")
// passed over backend c, whose probe said state.
func passedOver(o options, op string, c candidate, state State, err error) {
	o.logger.Debug("anygpu: backend passed over", "op", op, "backend", c.name, "simulated", c.simulated,
		"state", state.String(), "reason", reasonOf(err))
}

// chosen logs, at debug level, the backend selection settled on after
// passing over skipped others; fallback says it is the CPU standing in for
// the GPU backends that failed.
func chosen(o options, op string, c candidate, skipped int, fallback bool) {
	o.logger.Debug("anygpu: backend chosen", "op", op, "backend", c.name, "simulated", c.simulated,
		"passed_over", skipped, "cpu_fallback", fallback)
}

// reasonErr is why the CPU fallback probed as st could not be used: its
// status's reason, or the last reason recorded (its open failed).
func reasonErr(st BackendStatus, reasons []reason) error {
	if st.State != Available || len(reasons) == 0 {
		return describe(st)
	}
	return reasons[len(reasons)-1].err
}

// softwareOnly is why a backend offering only a software renderer (lavapipe,
// llvmpipe, SwiftShader: a GPU API emulated on the CPU, slower than the CPU
// backend itself) is passed over unless it is named.
func softwareOnly(backendName, device string) error {
	return &errors.Error{
		Category: errors.Unavailable,
		Msg:      fmt.Sprintf("only a software renderer (%s), slower than the CPU backend", device),
		Hint:     "name the backend (ANYGPU_BACKEND=" + backendName + ") to use it anyway",
	}
}

// describe turns a non-available status into an error carrying its category.
func describe(st BackendStatus) error {
	if st.Err != nil {
		return st.Err
	}
	return &errors.Error{Category: errors.Unavailable, Msg: st.Reason, Hint: st.Hint}
}

func joinReasons(reasons []reason) string {
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = r.String()
	}
	return strings.Join(parts, "; ")
}

// warnFallback logs the one warning of a fallback to the CPU: each backend's
// reason as an attribute named after the backend.
func warnFallback(o options, reasons []reason) {
	attrs := make([]any, 0, 2*len(reasons))
	for _, r := range reasons {
		attrs = append(attrs, r.name, reasonOf(r.err))
	}
	o.logger.Warn("anygpu: no GPU backend is usable; using the CPU device", attrs...)
}

// OpenDriver opens device ordinal of one driver directly, bypassing selection
// and fallback: for backend authors, conformance tests and tools. Options
// other than WithBackends, WithDevice, WithFallback and WithFake apply.
func OpenDriver(ctx context.Context, d backend.Driver, ordinal int, opts ...Option) (*Device, error) {
	if ctx == nil {
		return nil, errorf(invalidArgument, "open", "nil context")
	}
	if d == nil {
		return nil, errorf(invalidArgument, "open", "nil driver")
	}
	if ordinal < 0 {
		return nil, errorf(invalidArgument, "open", "device ordinal %d is negative", ordinal)
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	c := candidate{name: d.Name(), driver: d}
	if d.Name() == "" {
		return nil, errorf(invalidArgument, "open", "driver has an empty name")
	}
	st := probeOne(ctx, c)
	if st.State != Available {
		return nil, describe(st)
	}
	if ordinal >= len(st.Devices) {
		return nil, errorf(errors.InvalidArgument, "open", "%s: device %d requested, %d present", c.name, ordinal, len(st.Devices))
	}
	return openDevice(ctx, c, st.Devices[ordinal], o)
}

// reason is why one backend could not be opened.
type reason struct {
	name string
	err  error
}

// String is "name: message", without a repeated backend prefix or the hint.
func (r reason) String() string { return r.name + ": " + reasonOf(r.err) }

// OpenAll opens every device of one backend: the first backend in the
// selection order of Open (WithBackends, else ANYGPU_BACKEND, else
// DefaultOrder) that has a usable device, with all its devices instead of
// one, in ordinal order. Software renderers are passed over unless their
// backend is named, as in Open; WithDevice and ANYGPU_DEVICE are ignored
// (CUDA_VISIBLE_DEVICES still limits what CUDA shows). The other options
// apply to every device: each gets its own pools of the configured sizes.
//
// Where the backend can, OpenAll enables direct access between every pair of
// devices that DeviceInfo.Peers lists (CUDA: cuCtxEnablePeerAccess both
// ways); a pair it cannot enable is logged and its copies are staged.
//
// When no GPU backend is usable OpenAll falls back to the CPU device, alone,
// with the one warning Open logs (or, with WithFallback(false), returns an
// error of category Unavailable joining every backend's reason). If one
// device of the chosen backend fails to open, the ones already opened are
// closed and the error names it. Close every device when done (CloseAll).
// What a stream of one device takes of another (Copy's source, Wait's event)
// is in the package documentation, under Several devices.
func OpenAll(ctx context.Context, opts ...Option) ([]*Device, error) {
	return choose(ctx, "open all", opts, func(o options, c candidate, st BackendStatus) ([]*Device, error) {
		infos := st.Devices
		if o.backends == nil {
			infos = slices.DeleteFunc(slices.Clone(infos), func(d DeviceInfo) bool { return d.Type == backend.TypeSoftware })
			if len(infos) == 0 {
				return nil, softwareOnly(c.name, st.Devices[0].Name)
			}
		}
		devs, err := openEvery(ctx, c, infos, o)
		if err != nil {
			return nil, err
		}
		connectPeers(devs, o)
		return devs, nil
	}, func(d *Device) []*Device { return []*Device{d} })
}

// openEvery opens each listed device of one backend, or none.
func openEvery(ctx context.Context, c candidate, infos []DeviceInfo, o options) ([]*Device, error) {
	devs := make([]*Device, 0, len(infos))
	for _, info := range infos {
		d, err := openDevice(ctx, c, info, o)
		if err != nil {
			_ = CloseAll(devs)
			return nil, errors.Wrap(err, c.name, fmt.Sprintf("open all: device %d of %d", info.Ordinal, len(infos)))
		}
		devs = append(devs, d)
	}
	return devs, nil
}

// connectPeers enables direct access between the devices that list each
// other as peers, where the backend can; failures are logged, not fatal:
// copies between such devices are staged instead.
func connectPeers(devs []*Device, o options) {
	byOrdinal := make(map[int]*Device, len(devs))
	for _, d := range devs {
		byOrdinal[d.info.Ordinal] = d
	}
	for _, d := range devs {
		pe, ok := d.impl.(backend.PeerEnabler)
		if !ok {
			continue
		}
		for _, j := range d.info.Peers {
			p := byOrdinal[j]
			if p == nil || p == d {
				continue
			}
			if err := pe.EnablePeer(p.impl); err != nil {
				o.logger.Warn("anygpu: peer access not enabled; copies between these devices are staged", "from", d.name, "to", p.name, "err", err)
			}
		}
	}
}

// CloseAll closes every device (nil entries are skipped) and returns their
// errors, joined.
func CloseAll(devs []*Device) error {
	var errs []error
	for _, d := range devs {
		if err := d.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
