package cuda

import (
	"context"
	"fmt"
	"strings"
	"sync"

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

// Compile compiles src.CUDA with NVRTC for the device (or opts.Arch) through
// the kernel cache, and loads it.
func (d *device) Compile(ctx context.Context, src backend.Source, opts backend.CompileOptions) (backend.Module, error) {
	op := fmt.Sprintf("compile %q", src.Name)
	if strings.TrimSpace(src.CUDA) == "" {
		return nil, &errors.Error{Backend: Name, Op: op, Category: errors.NotSupported,
			Msg:  "the source has no CUDA dialect (Source.CUDA is empty)",
			Hint: "write the kernel in CUDA C++ (extern \"C\" __global__) in Source.CUDA, or use a backend whose dialect the source has"}
	}
	res, err := compileCUDA(ctx, src, opts, d.arch, d.lib.Version)
	if err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	var h cu.Module
	err = d.do(op+": load module", func(*cu.Frame) cu.Result {
		var r cu.Result
		h, r = d.lib.ModuleLoadData(res.Image())
		return r
	})
	if err != nil {
		return nil, err
	}
	return track(d, d.modules, &module{dev: d, h: h, name: src.Name, lowered: res.LoweredNames}), nil
}

// module is a loaded CUmodule.
type module struct {
	dev     *device
	h       cu.Module
	name    string
	lowered map[string]string // name expression -> mangled name
}

var _ backend.Module = (*module)(nil)

// Kernel looks up an entry point: an extern "C" name, or a name expression
// compiled with the module. The root package asks once per name.
func (m *module) Kernel(name string) (backend.Kernel, error) {
	op := fmt.Sprintf("kernel %q", name)
	sym := name
	if l, ok := m.lowered[name]; ok {
		sym = l
	}
	d := m.dev
	var f cu.Function
	var params []int
	var r cu.Result
	err := d.bound(op, func(*cu.Frame) {
		if f, r = d.lib.ModuleGetFunction(m.h, sym); r == cu.Success {
			params = paramSizes(d.lib, f)
		}
	})
	if err != nil {
		return nil, err
	}
	if r == cu.ErrorNotFound {
		return nil, &errors.Error{Backend: Name, Op: op, Category: errors.InvalidArgument, Code: int64(r), Name: r.String(),
			Msg:  fmt.Sprintf("module %q has no entry point %q", m.name, name),
			Hint: "CUDA entry points must be extern \"C\" __global__ functions of that name"}
	}
	if err := d.check(r, op); err != nil {
		return nil, err
	}
	return &kernel{mod: m, name: name, fn: f, params: params}, nil
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
	d := m.dev
	return release(d, d.modules, m, fmt.Sprintf("close module %q", m.name), func() cu.Result { return d.lib.ModuleUnload(m.h) })
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
	var a backend.KernelAttributes
	err := d.do("attributes of "+k.name, func(*cu.Frame) cu.Result {
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
				return r
			}
			*f.dst = v
		}
		return cu.Success
	})
	if err != nil {
		return backend.KernelAttributes{}, err
	}
	return a, nil
}
