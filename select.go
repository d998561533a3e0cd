package gpu

import (
	"context"
	"fmt"
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
// is a malformed ANYGPU_DEVICE.
func Open(ctx context.Context, opts ...Option) (*Device, error) {
	return choose(ctx, "open", opts, func(o options, c candidate, st BackendStatus) (*Device, error) {
		if o.device >= len(st.Devices) {
			return nil, errorf(errors.InvalidArgument, "open", "device %d requested, %d present", o.device, len(st.Devices))
		}
		info := st.Devices[o.device]
		if info.Type == backend.TypeSoftware && o.backends == nil {
			return nil, softwareOnly(c.name, info.Name)
		}
		return openDevice(ctx, c, info, o)
	}, func(d *Device) *Device { return d })
}

// choose is the selection Open and OpenAll share. Backends are tried in the
// order of WithBackends, else ANYGPU_BACKEND, else DefaultOrder; every probe
// starts at once, and results are taken in order, so the first usable backend
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
	o, err := buildOptions(opts)
	if err != nil {
		return zero, err
	}
	names := o.backends
	if names == nil {
		names = slices.Clone(DefaultOrder)
		if !o.fallback {
			names = slices.DeleteFunc(names, func(n string) bool { return n == cpuBackend })
		}
	}
	if len(names) == 0 {
		return zero, errorf(invalidArgument, op, "no backend named (empty %s or WithBackends)", EnvBackend)
	}
	cands, err := resolve(names, o.fake, o.backends == nil)
	if err != nil {
		return zero, err
	}
	probeCtx, cancelProbes := context.WithCancel(ctx)
	defer cancelProbes()
	results := probeAsync(probeCtx, cands)
	var reasons []reason
	for i, ch := range results {
		c, st := cands[i], <-ch
		if st.State != Available {
			reasons = append(reasons, reason{c.name, describe(st)})
			passedOver(o, op, c, st.State, reasons[len(reasons)-1].err)
			continue
		}
		v, err := open(o, c, st)
		if err != nil {
			reasons = append(reasons, reason{c.name, err})
			passedOver(o, op, c, st.State, err)
			continue
		}
		fallback := c.name == cpuBackend && len(reasons) > 0
		if fallback {
			warnFallback(o, reasons)
		}
		chosen(o, op, c, len(reasons), fallback)
		return v, nil
	}
	if o.fallback && !slices.Contains(names, cpuBackend) {
		drv, _ := backend.Lookup(cpuBackend)
		c := candidate{name: cpuBackend, driver: drv}
		st := probeOne(ctx, c)
		if st.State == Available {
			d, err := openDevice(ctx, c, st.Devices[0], o)
			if err == nil {
				warnFallback(o, reasons)
				chosen(o, op, c, len(reasons), true)
				return cpu(d), nil
			}
			reasons = append(reasons, reason{cpuBackend, err})
		}
		passedOver(o, op, c, st.State, reasonErr(st, reasons))
	}
	errs := make([]error, len(reasons))
	for i, r := range reasons {
		errs[i] = r.err
	}
	return zero, &errors.Error{
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
