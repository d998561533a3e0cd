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
// an error of category Unavailable that joins those reasons instead. An
// unknown backend name is an error at once.
func Open(ctx context.Context, opts ...Option) (*Device, error) {
	if ctx == nil {
		return nil, errorf(invalidArgument, "open", "nil context")
	}
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	names := o.backends
	if names == nil {
		names = slices.Clone(DefaultOrder)
		if !o.fallback {
			names = slices.DeleteFunc(names, func(n string) bool { return n == cpuBackend })
		}
	}
	if len(names) == 0 {
		return nil, errorf(invalidArgument, "open", "no backend named (empty %s or WithBackends)", EnvBackend)
	}
	cands, err := resolve(names, o.fake, o.backends == nil)
	if err != nil {
		return nil, err
	}
	// Every probe starts now; results are taken in order, so the first usable
	// backend opens without waiting for slower ones later in the order.
	probeCtx, cancelProbes := context.WithCancel(ctx)
	defer cancelProbes()
	results := probeAsync(probeCtx, cands)
	var reasons []reason
	for i, ch := range results {
		c, st := cands[i], <-ch
		if st.State != Available {
			reasons = append(reasons, reason{c.name, describe(st)})
			continue
		}
		if o.device >= len(st.Devices) {
			reasons = append(reasons, reason{c.name, errorf(errors.InvalidArgument, "open", "device %d requested, %d present", o.device, len(st.Devices))})
			continue
		}
		if info := st.Devices[o.device]; info.Type == backend.TypeSoftware && o.backends == nil {
			// lavapipe, llvmpipe, SwiftShader: a GPU API emulated on the CPU is
			// slower than the CPU backend itself. Only a named backend gets one.
			reasons = append(reasons, reason{c.name, &errors.Error{
				Category: errors.Unavailable,
				Msg:      fmt.Sprintf("only a software renderer (%s), slower than the CPU backend", info.Name),
				Hint:     "name the backend (ANYGPU_BACKEND=" + c.name + ") to use it anyway",
			}})
			continue
		}
		d, err := openDevice(ctx, c, st.Devices[o.device], o)
		if err != nil {
			reasons = append(reasons, reason{c.name, err})
			continue
		}
		if c.name == cpuBackend && len(reasons) > 0 {
			warnFallback(o, reasons)
		}
		return d, nil
	}
	if o.fallback && !slices.Contains(names, cpuBackend) {
		cpu, _ := backend.Lookup(cpuBackend)
		c := candidate{name: cpuBackend, driver: cpu}
		st := probeOne(ctx, c)
		if st.State == Available {
			d, err := openDevice(ctx, c, st.Devices[0], o)
			if err == nil {
				warnFallback(o, reasons)
				return d, nil
			}
			reasons = append(reasons, reason{cpuBackend, err})
		}
	}
	errs := make([]error, len(reasons))
	for i, r := range reasons {
		errs[i] = r.err
	}
	return nil, &errors.Error{
		Op: "open", Category: errors.Unavailable, Err: errors.Join(errs...),
		Msg:  "no usable device: " + joinReasons(reasons),
		Hint: "run `gpu info` to see every backend's state, or allow the CPU fallback",
	}
}

// reason is why one backend could not be opened.
type reason struct {
	name string
	err  error
}

// String is "name: message", without a repeated backend prefix or the hint.
func (r reason) String() string { return r.name + ": " + reasonOf(r.err) }

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
