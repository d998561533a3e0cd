//go:build darwin

package metal

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/metal/internal/objc"
	"github.com/anygpu/gpu/errors"
)

// Compile compiles src.MSL with newLibraryWithSource:options:error:. The
// compile runs to its end: ctx is checked before it starts.
func (d *device) Compile(ctx context.Context, src backend.Source, opts backend.CompileOptions) (backend.Module, error) {
	op := fmt.Sprintf("compile %q", src.Name)
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	if strings.TrimSpace(src.MSL) == "" {
		return nil, errorf(errors.NotSupported, op,
			"add the Metal Shading Language dialect (Source.MSL), or use a backend whose dialect the source has",
			"the source has no MSL dialect (Source.MSL): the Metal backend compiles Metal Shading Language")
	}
	if !utf8.ValidString(src.MSL) {
		return nil, errorf(errors.InvalidArgument, op, "Source.MSL must be UTF-8 text", "the MSL source is not valid UTF-8")
	}
	cfg, err := compileConfigFrom(opts)
	if err != nil {
		return nil, withOp(err, op)
	}
	m, err := d.compile(src.Name, src.MSL, cfg, op)
	if err != nil {
		return nil, err
	}
	d.adopt(m)
	return m, nil
}

// compile builds a library. The caller holds enter.
//
// Ownership: options (MTLCompileOptions, +1 from new) and source (an NSString,
// +1) are released before returning; the macro dictionary and its strings are
// autoreleased into the pool; the library is +1 and goes to the module.
func (d *device) compile(name, msl string, cfg compileConfig, op string) (*module, error) {
	p := objc.EnterPool()
	defer p.Exit()
	options := objc.ID(objc.ClassMTLCompileOptions.Send(objc.SelNew))
	if options == 0 {
		return nil, errorf(errors.Internal, op, "retry; if it repeats, report it", "MTLCompileOptions new returned nil")
	}
	defer options.Release()
	if options.Responds(objc.SelSetMathMode) { // macOS 15+: fastMathEnabled is deprecated
		mode := uintptr(mathModeSafe)
		if cfg.fastMath {
			mode = mathModeFast
		}
		options.Send1(objc.SelSetMathMode, mode)
	} else {
		options.Send1(objc.SelSetFastMathEnabled, objc.BoolArg(cfg.fastMath))
	}
	if cfg.languageVersion != 0 {
		options.Send1(objc.SelSetLanguageVersion, uintptr(cfg.languageVersion))
	}
	if len(cfg.macros) > 0 {
		dict, err := macroDictionary(cfg.macros)
		if err != nil {
			return nil, withOp(err, op)
		}
		options.Send1(objc.SelSetPreprocessorMacros, uintptr(dict))
	}
	source := objc.NewString(msl)
	if source == 0 {
		return nil, errorf(errors.InvalidArgument, op, "Source.MSL must be UTF-8 text", "the MSL source could not be made an NSString")
	}
	defer source.Release()
	lib, nsErr := d.obj.SendError(objc.SelNewLibraryWithSource, uintptr(source), uintptr(options)) // nsErr: autoreleased, or nil
	if lib == 0 {
		if nsErr == 0 {
			return nil, errorf(errors.Compilation, op, "check the MSL source", "newLibraryWithSource:options:error: failed without an error")
		}
		return nil, fromNSError(objc.ReadError(nsErr), op, errors.Compilation)
	}
	return &module{dev: d, name: name, lib: lib, kernels: map[string]*kernel{}}, nil
}

// macroDictionary builds an autoreleased NSDictionary of NSString macro names
// and values (the strings are autoreleased with it: each owned string is
// released once the dictionary, which retains it, holds it). Call inside a
// pool.
func macroDictionary(macros [][2]string) (objc.ID, error) {
	keys := make([]objc.ID, 0, len(macros))
	vals := make([]objc.ID, 0, len(macros))
	defer func() {
		for _, k := range keys {
			k.Release()
		}
		for _, v := range vals {
			v.Release()
		}
	}()
	for _, m := range macros {
		k, v := objc.NewString(m[0]), objc.NewString(m[1])
		if k != 0 {
			keys = append(keys, k)
		}
		if v != 0 {
			vals = append(vals, v)
		}
		if k == 0 || v == 0 {
			return 0, errorf(errors.InvalidArgument, "compile", "macro names and values must be UTF-8", "macro %q is not valid UTF-8", m[0])
		}
	}
	dict := objc.Dictionary(keys, vals)
	if dict == 0 {
		return 0, errorf(errors.Internal, "compile", "retry without Defines; report it if it repeats", "dictionaryWithObjects:forKeys:count: returned nil")
	}
	return dict, nil
}

// internalKernel returns a pipeline of the device's internal kernels,
// compiling internalMSL on first use. The caller holds enter.
func (d *device) internalKernel(name string) (*kernel, error) {
	d.mu.Lock()
	m := d.internal
	d.mu.Unlock()
	if m == nil {
		cfg, _ := compileConfigFrom(backend.CompileOptions{})
		nm, err := d.compile("anygpu internal", internalMSL, cfg, "compile internal kernels")
		if err != nil {
			return nil, &errors.Error{Backend: Name, Op: "internal kernels", Category: errors.Internal, Err: err,
				Hint: "the backend's own kernels did not compile on this device: please report it with `gpu info --json`"}
		}
		d.mu.Lock()
		if d.internal == nil {
			d.internal = nm
		} else {
			nm.destroy() // another goroutine compiled them first
		}
		m = d.internal
		d.mu.Unlock()
	}
	return m.kernel(name)
}

// module is a compiled MTLLibrary and the pipelines made from it.
//
// Owns: lib (+1) and every kernel's pso (+1), released by destroy. mu guards
// kernels: Kernel may run on several goroutines at once.
type module struct {
	dev  *device
	name string

	mu      sync.Mutex
	lib     objc.ID
	kernels map[string]*kernel
}

var _ backend.Module = (*module)(nil)

// Kernel creates (once) the compute pipeline state of the kernel function
// called name.
func (m *module) Kernel(name string) (backend.Kernel, error) {
	if err := m.dev.enter(); err != nil {
		return nil, err
	}
	defer m.dev.leave()
	k, err := m.kernel(name)
	if err != nil {
		return nil, err
	}
	return k, nil
}

// kernel is Kernel for a caller that holds enter.
//
// Ownership: the MTLFunction (+1 from newFunctionWithName:) is released once
// the pipeline state (+1) exists; the pipeline goes to the kernel.
func (m *module) kernel(name string) (*kernel, error) {
	op := fmt.Sprintf("kernel %q", name)
	m.mu.Lock()
	defer m.mu.Unlock()
	if k, ok := m.kernels[name]; ok {
		return k, nil
	}
	p := objc.EnterPool()
	defer p.Exit()
	fname := objc.NewString(name)
	if fname == 0 {
		return nil, errorf(errors.InvalidArgument, op, "kernel names are UTF-8", "invalid kernel name")
	}
	fn := objc.ID(m.lib.Send1(objc.SelNewFunctionWithName, uintptr(fname)))
	fname.Release()
	if fn == 0 {
		names := objc.Strings(objc.ID(m.lib.Send(objc.SelFunctionNames)))
		sort.Strings(names)
		return nil, &errors.Error{Backend: Name, Op: op, Category: errors.InvalidArgument, Name: "MTLLibraryErrorFunctionNotFound",
			Msg:  fmt.Sprintf("no kernel function %q in the MSL of %q (it has %s)", name, m.name, strings.Join(names, ", ")),
			Hint: "name each kernel function after its kernel (the keys of Source.Params)"}
	}
	pso, nsErr := m.dev.obj.SendError(objc.SelNewComputePipelineState, uintptr(fn))
	fn.Release()
	if pso == 0 {
		if nsErr == 0 {
			return nil, errorf(errors.Compilation, op, "check the kernel's resource use", "newComputePipelineStateWithFunction:error: failed without an error")
		}
		return nil, fromNSError(objc.ReadError(nsErr), op, errors.Compilation)
	}
	k := &kernel{
		mod:        m,
		name:       name,
		pso:        pso,
		maxThreads: int(pso.Send(objc.SelMaxTotalThreadsPerThreadgroup)),
		simdWidth:  int(pso.Send(objc.SelThreadExecutionWidth)),
		staticMem:  int(pso.Send(objc.SelStaticThreadgroupMemoryLength)),
	}
	m.kernels[name] = k
	return k, nil
}

func (m *module) destroy() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range m.kernels {
		k.pso.Release()
	}
	m.lib.Release()
	m.lib, m.kernels = 0, nil
}

// Close releases the library and pipelines. Launches already committed keep
// the pipeline they use alive (ownership rule 5 in doc.go).
func (m *module) Close() error { return m.dev.closeChild(m) }

// kernel is a compute pipeline state of a module. pso is owned by the module
// (released by its destroy); a launch retains it for its command buffer.
type kernel struct {
	mod        *module
	name       string
	pso        objc.ID
	maxThreads int // maxTotalThreadsPerThreadgroup
	simdWidth  int // threadExecutionWidth
	staticMem  int // staticThreadgroupMemoryLength
}

var (
	_ backend.Kernel           = (*kernel)(nil)
	_ backend.KernelAttributer = (*kernel)(nil)
	_ backend.NativeHandle     = (*kernel)(nil)
)

// Name is the kernel function's name.
func (k *kernel) Name() string { return k.name }

// NativeHandle is the id<MTLComputePipelineState>.
func (k *kernel) NativeHandle() uintptr { return uintptr(k.pso) }

// Attributes reports the pipeline's limits: the most threads per threadgroup
// (its register use can make that less than the device's) and its static
// threadgroup memory. Metal reports no register count.
func (k *kernel) Attributes() (backend.KernelAttributes, error) {
	return backend.KernelAttributes{
		SharedMemBytes:     k.staticMem,
		MaxThreadsPerBlock: k.maxThreads,
		MaxDynamicShared:   max(0, k.mod.dev.info.SharedMemPerBlock-k.staticMem),
	}, nil
}
