package cuda

import (
	"context"
	"fmt"
	"sync"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/nvrtc"
)

// compileCUDA compiles src.CUDA with NVRTC through the default kernel cache.
// The device's architecture is the target unless opts.Arch names another;
// Debug adds line information (-lineinfo), FastMath is --use_fast_math,
// Defines become -D, Flags go to NVRTC verbatim. A compile that outlives ctx
// is abandoned (it finishes in the background and is cached).
func compileCUDA(ctx context.Context, src backend.Source, opts backend.CompileOptions, arch string, driverVersion int) (*nvrtc.Result, error) {
	o := nvrtc.Options{
		Arch:          arch,
		FastMath:      opts.FastMath,
		LineInfo:      opts.Debug,
		Defines:       opts.Defines,
		Flags:         opts.Flags,
		Name:          src.Name + ".cu",
		DriverVersion: driverVersion,
	}
	if opts.Arch != "" {
		o.Arch = opts.Arch
	}
	if ctx.Done() == nil {
		return nvrtc.Compile(src.CUDA, o)
	}
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, "compile")
	}
	type result struct {
		r   *nvrtc.Result
		err error
	}
	ch := make(chan result, 1)
	go func() {
		r, err := nvrtc.Compile(src.CUDA, o)
		ch <- result{r, err}
	}()
	select {
	case res := <-ch:
		return res.r, res.err
	case <-ctx.Done():
		return nil, errors.Wrap(ctx.Err(), Name, "compile")
	}
}

// module is a loaded CUmodule.
type module struct {
	dev     *device
	h       cu.Module
	name    string
	lowered map[string]string // name expression -> mangled name

	mu      sync.Mutex
	closed  bool
	kernels map[string]*kernel
}

var _ backend.Module = (*module)(nil)

// Kernel looks up an entry point: an extern "C" name, or a name expression
// compiled with the module.
func (m *module) Kernel(name string) (backend.Kernel, error) {
	op := fmt.Sprintf("kernel %q", name)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.E(errors.Closed, Name, op, "module %q is closed", m.name)
	}
	if k, ok := m.kernels[name]; ok {
		return k, nil
	}
	sym := name
	if l, ok := m.lowered[name]; ok {
		sym = l
	}
	d := m.dev
	fr := framePool.Get().(*cu.Frame)
	defer framePool.Put(fr)
	if err := d.enter(fr, op); err != nil {
		return nil, err
	}
	f, r := d.lib.ModuleGetFunction(m.h, sym)
	var params []int
	if r == cu.Success {
		params = paramSizes(d.lib, f)
	}
	d.leave()
	if r == cu.ErrorNotFound {
		return nil, &errors.Error{Backend: Name, Op: op, Category: errors.InvalidArgument, Code: int64(r), Name: r.String(),
			Msg:  fmt.Sprintf("module %q has no entry point %q", m.name, name),
			Hint: "CUDA entry points must be extern \"C\" __global__ functions of that name"}
	}
	if err := d.check(r, op); err != nil {
		return nil, err
	}
	k := &kernel{mod: m, name: name, fn: f, params: params}
	m.kernels[name] = k
	return k, nil
}

// paramSizes returns the size of each parameter of f (cuFuncGetParamInfo,
// CUDA 12.4+), or nil when the driver cannot tell. The context is current.
func paramSizes(lib *cu.Lib, f cu.Function) []int {
	if !lib.Has(cu.SymFuncGetParamInfo) {
		return nil
	}
	sizes := []int{}
	for i := 0; i <= maxParams; i++ {
		_, size, r := lib.FuncGetParamInfo(f, i)
		switch r {
		case cu.Success:
			sizes = append(sizes, size)
		case cu.ErrorInvalidValue:
			return sizes // past the last parameter
		default:
			return nil
		}
	}
	return nil
}

// Close unloads the module.
func (m *module) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	d := m.dev
	d.mu.Lock()
	_, live := d.modules[m]
	delete(d.modules, m)
	d.mu.Unlock()
	if !live || d.broken() {
		return nil
	}
	return d.do(fmt.Sprintf("close module %q", m.name), func(*cu.Frame) cu.Result { return d.lib.ModuleUnload(m.h) })
}

// unload releases the module during Device.Close; the context is current.
func (m *module) unload() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	_ = m.dev.lib.ModuleUnload(m.h)
}

// kernel is a CUfunction.
type kernel struct {
	mod    *module
	name   string
	fn     cu.Function
	params []int // parameter sizes in bytes; nil when unknown

	attrOnce sync.Once
	attrs    backend.KernelAttributes
	attrErr  error
}

var (
	_ backend.Kernel           = (*kernel)(nil)
	_ backend.KernelAttributer = (*kernel)(nil)
	_ backend.NativeHandle     = (*kernel)(nil)
)

// Name is the entry point's name.
func (k *kernel) Name() string { return k.name }

// NativeHandle is the CUfunction.
func (k *kernel) NativeHandle() uintptr { return uintptr(k.fn) }

// Attributes reports the kernel's resources (cuFuncGetAttribute); they feed
// the occupancy calculation.
func (k *kernel) Attributes() (backend.KernelAttributes, error) {
	k.attrOnce.Do(func() { k.attrs, k.attrErr = k.readAttributes() })
	return k.attrs, k.attrErr
}

func (k *kernel) readAttributes() (backend.KernelAttributes, error) {
	d := k.mod.dev
	op := "attributes of " + k.name
	fr := framePool.Get().(*cu.Frame)
	defer framePool.Put(fr)
	if err := d.enter(fr, op); err != nil {
		return backend.KernelAttributes{}, err
	}
	defer d.leave()
	var a backend.KernelAttributes
	for _, f := range []struct {
		attr cu.FuncAttribute
		dst  *int
	}{
		{cu.FuncNumRegs, &a.Registers},
		{cu.FuncSharedSizeBytes, &a.SharedMemBytes},
		{cu.FuncLocalSizeBytes, &a.LocalMemBytes},
		{cu.FuncConstSizeBytes, &a.ConstMemBytes},
		{cu.FuncMaxThreadsPerBlock, &a.MaxThreadsPerBlock},
		{cu.FuncMaxDynamicSharedSize, &a.MaxDynamicShared},
	} {
		v, r := d.lib.FuncGetAttribute(f.attr, k.fn)
		if r != cu.Success {
			return backend.KernelAttributes{}, d.check(r, op)
		}
		*f.dst = v
	}
	return a, nil
}

// maxParams is the most arguments a launch takes.
const maxParams = 256

// paramBlock is the argument memory of launches on one stream, reused from
// launch to launch (cuLaunchKernel copies the values before it returns):
// vals holds each argument's value in 8 bytes (a 4-byte scalar in the low
// half, as a little-endian pointer to it reads it), ptrs the address of
// each value, the kernelParams array.
type paramBlock struct {
	vals [maxParams]uint64
	ptrs [maxParams]uintptr
}

// init points ptrs at vals. The block lives inside a heap object that the
// garbage collector never moves.
func (p *paramBlock) init() {
	for i := range p.vals {
		p.ptrs[i] = uintptr(unsafe.Pointer(&p.vals[i]))
	}
}

// pack stores args in the block, checking their number and sizes against
// the kernel's parameters where the driver reports them. The common case,
// arguments that fit, runs the compact packFast; packChecked, out of line,
// finds and words what does not fit.
func (p *paramBlock) pack(args []backend.Arg, k *kernel) error {
	if p.packFast(args, k) {
		return nil
	}
	return p.packChecked(args, k)
}

// packFast stores args and reports whether they all fit (packChecked finds
// nothing wrong); on false the block's contents are unspecified.
func (p *paramBlock) packFast(args []backend.Arg, k *kernel) bool {
	if len(args) > maxParams || (k.params != nil && len(args) != len(k.params)) {
		return false
	}
	for i, a := range args {
		size := p.put(i, a)
		if size == 0 || !k.fits(i, size) {
			return false
		}
	}
	return true
}

// put stores argument a as parameter i and returns its size in bytes; 0 if
// a is neither a CUDA buffer nor a scalar.
func (p *paramBlock) put(i int, a backend.Arg) int {
	switch a.Kind {
	case backend.ArgBuffer:
		if b, ok := a.Buffer.(*buffer); ok {
			p.vals[i] = uint64(b.ptr)
			return 8
		}
	case backend.ArgF32, backend.ArgI32, backend.ArgU32:
		p.vals[i] = a.Bits & 0xffffffff
		return 4
	case backend.ArgF64, backend.ArgI64, backend.ArgU64:
		p.vals[i] = a.Bits
		return 8
	}
	return 0
}

// fits reports whether parameter i takes an argument of size bytes (any
// does where the driver did not report the sizes). A parameter takes an
// argument of its size; a 1- or 2-byte integer parameter (char, short)
// takes a 4-byte integer, whose low bytes the driver reads.
func (k *kernel) fits(i, size int) bool {
	return k.params == nil || k.params[i] == size || (k.params[i] < 4 && size == 4)
}

// packChecked is pack's checking half: the error of the first argument
// that does not fit.
//
//go:noinline
func (p *paramBlock) packChecked(args []backend.Arg, k *kernel) error {
	bad := func(format string, a ...any) error {
		e := errors.E(errors.InvalidArgument, Name, "launch "+k.name, format, a...)
		e.Hint = "pass the kernel's parameters in order: gpu.Buf for pointers, the scalar type of each other parameter"
		return e
	}
	if len(args) > maxParams {
		return bad("%d arguments: at most %d are supported", len(args), maxParams)
	}
	if k.params != nil && len(args) != len(k.params) {
		return bad("kernel %s takes %d parameters, got %d arguments", k.name, len(k.params), len(args))
	}
	for i, a := range args {
		size := p.put(i, a)
		switch {
		case size == 0 && a.Kind == backend.ArgBuffer:
			return bad("argument %d: %T is not a CUDA buffer", i, a.Buffer)
		case size == 0:
			return bad("argument %d has no kind", i)
		case !k.fits(i, size):
			return bad("parameter %d of %s takes %d bytes, argument %d (%s) has %d", i, k.name, k.params[i], i, a.Kind, size)
		}
	}
	return nil
}
