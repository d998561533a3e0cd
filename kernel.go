package gpu

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/profiling"
)

// CompileOption adjusts how a Source is compiled.
type CompileOption func(*backend.CompileOptions)

// Define sets a preprocessor macro (value "" for a bare define).
func Define(name, value string) CompileOption {
	return func(o *backend.CompileOptions) {
		if o.Defines == nil {
			o.Defines = map[string]string{}
		}
		o.Defines[name] = value
	}
}

// FastMath allows the compiler to reassociate and use approximate math.
func FastMath() CompileOption { return func(o *backend.CompileOptions) { o.FastMath = true } }

// DebugInfo asks for line information and less optimisation.
func DebugInfo() CompileOption { return func(o *backend.CompileOptions) { o.Debug = true } }

// Arch targets an architecture ("sm_90"); the device's by default.
func Arch(arch string) CompileOption { return func(o *backend.CompileOptions) { o.Arch = arch } }

// CompilerFlags passes flags straight to the backend's native compiler.
func CompilerFlags(flags ...string) CompileOption {
	return func(o *backend.CompileOptions) { o.Flags = append(o.Flags, flags...) }
}

// Compile compiles src for the device, in the dialect its backend runs. A
// missing dialect is NotSupported; a source that does not compile is a
// Compilation error whose log errors.LogOf returns.
func (d *Device) Compile(ctx context.Context, src Source, opts ...CompileOption) (*Module, error) {
	op := fmt.Sprintf("compile %q", src.Name)
	if err := d.usable(op); err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, d.errorf(errors.InvalidArgument, op, "nil context")
	}
	var o backend.CompileOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if err := checkCompileOptions(&o); err != nil {
		return nil, d.errorf(errors.InvalidArgument, op, "%v", err)
	}
	if lim := d.limits.maxThreads; lim > 0 && o.MaxThreadsPerBlock > lim {
		return nil, d.errorf(errors.InvalidArgument, op, "LaunchBounds(%d) exceeds the device's %d threads per block", o.MaxThreadsPerBlock, lim)
	}
	for name, kinds := range src.Params {
		for i, k := range kinds {
			if k < backend.ArgBuffer || k > backend.ArgU64 {
				return nil, d.errorf(errors.InvalidArgument, op, "Params[%q][%d] is not an argument kind (%d)", name, i, k)
			}
		}
	}
	// An ended context ends the call on every backend alike, a backend's
	// in-memory module cache included.
	if err := ctx.Err(); err != nil {
		return nil, d.wrap(err, op)
	}
	start := time.Now()
	impl, err := d.impl.Compile(ctx, src, o)
	// The backend's kernel cache is its own: whether this was a cache hit
	// shows only in the duration.
	attrs := []any{"device", d.name, "backend", d.backend, "source", src.Name,
		"duration", time.Since(start), "ok", err == nil}
	// A backend that loaded a precompiled image instead of compiling says which.
	if p, ok := impl.(interface{ Prebuilt() string }); ok && err == nil {
		if from := p.Prebuilt(); from != "" {
			attrs = append(attrs, "prebuilt", from)
		}
	}
	d.logger.Debug("anygpu: compile", attrs...)
	if err != nil {
		return nil, d.wrap(err, op)
	}
	if u, ok := impl.(backend.UncachedCompiler); ok {
		if why := u.UncachedReason(); why != "" {
			d.logger.Info("anygpu: compiled without the kernel cache", "device", d.name, "backend", d.backend, "source", src.Name, "reason", why)
		}
	}
	d.prof.host(profiling.KindCompile, src.Name, 0, start)
	return &Module{dev: d, impl: impl, name: src.Name, params: src.Params, unsupported: maps.Clone(src.Unsupported),
		kernels: map[string]*Kernel{}}, nil
}

// Module is compiled device code. It belongs to the device that compiled
// it: its kernels launch only on that device's streams.
type Module struct {
	dev    *Device
	impl   backend.Module
	name   string
	params map[string][]ArgKind
	// unsupported says, by kernel, why some dialects of the source left it
	// out (Source.Unsupported).
	unsupported map[string]string
	closed      atomic.Bool

	mu      sync.Mutex
	kernels map[string]*Kernel
}

// Name is the Source's name ("" for a nil module).
func (m *Module) Name() string {
	if m == nil {
		return ""
	}
	return m.name
}

// Kernel returns the entry point called name.
func (m *Module) Kernel(name string) (*Kernel, error) {
	op := fmt.Sprintf("kernel %q", name)
	if m == nil {
		return nil, errorf(errors.InvalidArgument, op, "nil module")
	}
	if err := m.dev.usableObject(op, &m.closed, func() string { return fmt.Sprintf("module %q", m.name) }); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if k, ok := m.kernels[name]; ok {
		return k, nil
	}
	impl, err := m.impl.Kernel(name)
	if err != nil {
		if why, ok := m.unsupported[name]; ok {
			// The dialect this backend compiles left the kernel out.
			e := errors.E(errors.NotSupported, m.dev.backend, op, "%s", why)
			e.Hint = "run it on a backend whose dialect has it, or change what the kernel needs"
			e.Err = err
			return nil, m.dev.record(e)
		}
		return nil, m.dev.wrap(err, op)
	}
	params, declared := m.params[name]
	k := &Kernel{dev: m.dev, mod: m, impl: impl, name: name, params: params, declared: declared}
	m.kernels[name] = k
	return k, nil
}

// Close releases the module; its kernels can no longer be launched. Closing
// twice is not an error.
func (m *Module) Close() error {
	if m == nil || m.dev == nil || !m.closed.CompareAndSwap(false, true) {
		return nil
	}
	m.mu.Lock()
	for _, k := range m.kernels {
		k.closed.Store(true)
	}
	m.mu.Unlock()
	if m.dev.closed.Load() {
		return nil
	}
	// A launch of one of its kernels may be under way on any stream: wait
	// for those before the backend releases the module.
	for _, s := range m.dev.liveStreams() {
		s.gate.drain()
	}
	return m.dev.wrap(m.dev.closeChild(m.impl.Close), fmt.Sprintf("close module %q", m.name))
}

// Kernel is an entry point of a Module.
type Kernel struct {
	// Launch reads these: the device and closed flag are copies of the
	// module's, so that a launch need not touch the Module.
	dev      *Device
	impl     backend.Kernel
	closed   atomic.Bool // the module is closed
	declared bool
	params   []ArgKind
	name     string
	mod      *Module
}

// Name is the entry point's name ("" for a nil kernel).
func (k *Kernel) Name() string {
	if k == nil {
		return ""
	}
	return k.name
}

// Params is the parameter list the Source declares for the kernel (nil when
// it declares none, or for a nil kernel).
func (k *Kernel) Params() []ArgKind {
	if k == nil {
		return nil
	}
	return append([]ArgKind(nil), k.params...)
}

// Attributes reports the kernel's resource use where the backend can tell.
func (k *Kernel) Attributes() (KernelAttributes, error) {
	const op = "kernel attributes"
	if err := k.usable(op); err != nil {
		return KernelAttributes{}, err
	}
	if a, ok := k.impl.(backend.KernelAttributer); ok {
		attrs, err := a.Attributes()
		return attrs, k.mod.dev.wrap(err, op)
	}
	return KernelAttributes{}, k.mod.dev.errorf(errors.NotSupported, op, "the %s backend does not report kernel attributes", k.mod.dev.backend)
}

// usable reports why k cannot be used: nil, its module closed, or its device
// unusable.
func (k *Kernel) usable(op string) error {
	if k == nil {
		return errorf(errors.InvalidArgument, op, "nil kernel")
	}
	return k.dev.usableObject(op, &k.closed, func() string { return fmt.Sprintf("module %q of kernel %q", k.mod.name, k.name) })
}

// Launch enqueues kernel k over grid work groups of block threads each. The
// arguments are checked against the kernel's declared parameters (count and
// kinds) and the grid and block against the device's limits before anything
// reaches the backend. k must come from a Module the stream's device
// compiled, and every buffer argument must belong to that device: a kernel
// or buffer of another device is InvalidArgument (compile the Source on each
// device, and Copy data between devices first).
func (s *Stream) Launch(k *Kernel, grid, block Dim3, args ...Arg) error {
	grid, block = grid.Norm(), block.Norm()
	if s == nil {
		return s.launchError(k, grid, block, args)
	}
	// The checks of a launch that passes them are one compact function;
	// launchError, out of line, finds and words what failed. Between
	// launches the driver evicts this code from the CPU's caches, so the
	// less of it a launch runs, the less each launch costs (README,
	// Performance). The stream's gate is held from the checks to the
	// backend's Launch, so that a Close of the stream or of the kernel's
	// module waits for the launch (see gate).
	s.gate.enter()
	if !s.launchable(k, grid, block, args) {
		s.gate.leave()
		return s.launchError(k, grid, block, args)
	}
	if s.capture.Load() != nil {
		err := s.captureLaunch(k, grid, block, args, nil)
		s.gate.leave()
		return err
	}
	// The SPI lets a backend keep the argument slice until the launch has
	// run, so it is freshly allocated, except for backends that are done
	// with it when Launch returns (CUDA copies it into its parameter block):
	// those get the stream's scratch slice when no other launch on the
	// stream is using it.
	var out []backend.Arg
	scratch := false
	if len(args) <= len(s.argScratch) && s.copiesArgs && s.argBusy.CompareAndSwap(false, true) {
		out, scratch = s.argScratch[:len(args)], true
	} else {
		out = make([]backend.Arg, len(args))
	}
	for i, a := range args {
		if a.kind == backend.ArgBuffer {
			out[i] = backend.Arg{Kind: a.kind, Buffer: a.buf.impl}
		} else {
			out[i] = backend.Arg{Kind: a.kind, Bits: a.bits}
		}
	}
	var err error
	if s.dev.prof == nil {
		err = s.impl.Launch(k.impl, grid, block, out)
	} else {
		err = s.profiledKernel(k, grid, block, func() error { return s.impl.Launch(k.impl, grid, block, out) })
	}
	s.gate.leave()
	if scratch {
		clear(out) // keep no buffers alive
		s.argBusy.Store(false)
	}
	if err != nil {
		return s.dev.wrap(err, "launch "+k.name)
	}
	s.dev.launches.Add(1)
	return nil
}

// captureLaunch records a launch that passed the checks on s, which
// captures; the caller holds s's gate. opts is nil for a plain launch. The
// recorded call owns its argument slice: a replay passes the same one.
//
//go:noinline
func (s *Stream) captureLaunch(k *Kernel, grid, block Dim3, args []Arg, opts *backend.LaunchOptions) error {
	c := s.capture.Load()
	if c == nil { // ended meanwhile by another goroutine
		return s.dev.errorf(errors.InvalidArgument, "launch "+k.name, captureEndedMsg)
	}
	out := make([]backend.Arg, len(args))
	var bufs []*Buffer
	for i, a := range args {
		if a.kind == backend.ArgBuffer {
			out[i] = backend.Arg{Kind: a.kind, Buffer: a.buf.impl}
			bufs = append(bufs, a.buf)
		} else {
			out[i] = backend.Arg{Kind: a.kind, Bits: a.bits}
		}
	}
	run := func(impl backend.Stream) error { return impl.Launch(k.impl, grid, block, out) }
	if opts != nil {
		o := *opts
		run = func(impl backend.Stream) error {
			ol, ok := impl.(backend.OptionLauncher)
			if !ok {
				return errors.E(errors.NotSupported, s.dev.backend, "", "the stream does not launch with options")
			}
			return ol.LaunchWithOptions(k.impl, grid, block, out, o)
		}
	}
	return c.record(s, "launch "+k.name, k, bufs, true, graphTransfer{}, run)
}

// launchable reports whether a launch passes every check of launchError,
// without saying which failed. grid and block are normalized.
func (s *Stream) launchable(k *Kernel, grid, block Dim3, args []Arg) bool {
	if s == nil || k == nil || s.dev == nil {
		return false
	}
	d := s.dev
	if d.closed.Load() || d.lost.Load() != nil || s.closed.Load() || k.closed.Load() || k.dev != d {
		return false
	}
	if grid.X <= 0 || grid.Y <= 0 || grid.Z <= 0 || block.X <= 0 || block.Y <= 0 || block.Z <= 0 {
		return false
	}
	lim := &d.limits
	if (lim.maxThreads > 0 && block.Count() > int64(lim.maxThreads)) || exceeds(block, lim.maxBlock) || exceeds(grid, lim.maxGrid) {
		return false
	}
	if k.declared && len(args) != len(k.params) {
		return false
	}
	for i, a := range args {
		if a.kind < backend.ArgBuffer || a.kind > backend.ArgU64 || (k.declared && a.kind != k.params[i]) {
			return false
		}
		if a.kind == backend.ArgBuffer && (a.buf == nil || a.buf.closed.Load() || a.buf.dev != d) {
			return false
		}
	}
	return true
}

// exceeds reports whether v is beyond max in a dimension max limits.
func exceeds(v, max Dim3) bool {
	return (max.X > 0 && v.X > max.X) || (max.Y > 0 && v.Y > max.Y) || (max.Z > 0 && v.Z > max.Z)
}

// launchError is the error of a launch launchable refused: the first check
// that fails, worded.
//
//go:noinline
func (s *Stream) launchError(k *Kernel, grid, block Dim3, args []Arg) error {
	if err := s.usable("launch"); err != nil {
		return err
	}
	if err := k.usable("launch"); err != nil {
		return s.dev.record(err)
	}
	op := "launch " + k.name
	if k.dev != s.dev {
		return s.dev.errorf(errors.InvalidArgument, op, "kernel was compiled for %s, the stream belongs to %s", k.dev.name, s.dev.name)
	}
	if err := s.checkGeometry(grid, block); err != nil {
		return s.dev.errorf(errors.InvalidArgument, op, "%v", err)
	}
	if err := s.checkLimits(grid, block); err != nil {
		return s.dev.errorf(errors.Launch, op, "%v", err)
	}
	if _, err := s.convertArgs(k, args, make([]backend.Arg, len(args))); err != nil {
		return s.dev.wrap(err, op)
	}
	// launchable and these checks disagree: a bug, reported rather than
	// launching unchecked.
	return s.dev.errorf(errors.Internal, op, "launch refused by its checks, but no check names a reason")
}

// launchCopiesArgs reports whether impl is a backend.ArgsCopier that says yes.
func launchCopiesArgs(impl backend.Stream) bool {
	c, ok := impl.(backend.ArgsCopier)
	return ok && c.LaunchCopiesArgs()
}

func (s *Stream) checkGeometry(grid, block Dim3) error {
	for _, d := range []struct {
		what string
		v    Dim3
	}{{"grid", grid}, {"block", block}} {
		if d.v.X <= 0 || d.v.Y <= 0 || d.v.Z <= 0 {
			return fmt.Errorf("%s %v: every dimension must be at least 1", d.what, d.v)
		}
	}
	return nil
}

func (s *Stream) checkLimits(grid, block Dim3) error {
	lim := &s.dev.limits
	if m := lim.maxThreads; m > 0 && block.Count() > int64(m) {
		return fmt.Errorf("block %v has %d threads, the device allows %d", block, block.Count(), m)
	}
	if err := within("block", block, lim.maxBlock); err != nil {
		return err
	}
	return within("grid", grid, lim.maxGrid)
}

func within(what string, v, max Dim3) error {
	if exceeds(v, max) {
		return fmt.Errorf("%s %v exceeds the device's maximum %v", what, v, max)
	}
	return nil
}

// convertArgs checks the arguments and turns them into the SPI's form, in
// out (of len(args)).
func (s *Stream) convertArgs(k *Kernel, args []Arg, out []backend.Arg) ([]backend.Arg, error) {
	if k.declared {
		if len(args) != len(k.params) {
			return nil, errors.E(errors.InvalidArgument, "", "", "kernel %s takes %d arguments (%s), got %d", k.name, len(k.params), kindList(k.params), len(args))
		}
	}
	for i, a := range args {
		if a.kind < backend.ArgBuffer || a.kind > backend.ArgU64 {
			return nil, errors.E(errors.InvalidArgument, "", "", "argument %d is not set (build arguments with gpu.Buf, gpu.F32, ...)", i)
		}
		if k.declared && a.kind != k.params[i] {
			return nil, errors.E(errors.InvalidArgument, "", "", "argument %d of kernel %s is %s, want %s", i, k.name, a.kind, k.params[i])
		}
		if a.kind == backend.ArgBuffer {
			b := a.buf
			switch {
			case b == nil:
				return nil, errors.E(errors.InvalidArgument, "", "", "argument %d is a nil buffer", i)
			case b.closed.Load():
				return nil, errors.E(errors.Closed, "", "", "argument %d is a closed buffer", i)
			case b.dev != s.dev:
				return nil, errors.E(errors.InvalidArgument, "", "", "argument %d is a buffer of %s, the stream belongs to %s", i, b.dev.name, s.dev.name)
			}
			out[i] = backend.Arg{Kind: a.kind, Buffer: b.impl}
			continue
		}
		out[i] = backend.Arg{Kind: a.kind, Bits: a.bits}
	}
	return out, nil
}

func kindList(kinds []ArgKind) string {
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = k.String()
	}
	return strings.Join(parts, ", ")
}
