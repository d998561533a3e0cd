package cuda

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/keyhash"
	"github.com/anygpu/gpu/internal/prebuilt"
	"github.com/anygpu/gpu/nvrtc"
)

// compileCUDA compiles src.CUDA with NVRTC through the default kernel cache.
// The device's architecture is the target unless opts.Arch names another;
// Debug adds line information (-lineinfo), FastMath is --use_fast_math,
// Defines become -D, IncludePaths -I (before the CUDA headers, which NVRTC
// gets without options), Headers in-memory headers, KernelNames name
// expressions, MaxRegisters --maxrregcount, Flags go to NVRTC verbatim; with
// a launch bound or an optimisation level the result is PTX, for the driver
// to compile with those (jitOptions). The options are
// prebuilt.NVRTCOptions', which the prebuilt set's keys hash. A compile that
// outlives ctx is abandoned (it finishes in the background and is cached).
func compileCUDA(ctx context.Context, src backend.Source, opts backend.CompileOptions, names []string, arch string, driverVersion int) (*nvrtc.Result, error) {
	o := prebuilt.NVRTCOptions(src, opts, names)
	o.Arch, o.DriverVersion = arch, driverVersion
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

// jitOptions are the cuModuleLoadDataEx options for PTX that opts asks for.
func jitOptions(opts backend.CompileOptions) ([]cu.JITOption, []uintptr) {
	var keys []cu.JITOption
	var vals []uintptr
	if opts.MaxRegisters > 0 {
		keys, vals = append(keys, cu.JITMaxRegisters), append(vals, uintptr(opts.MaxRegisters))
	}
	if opts.MaxThreadsPerBlock > 0 {
		keys, vals = append(keys, cu.JITThreadsPerBlock), append(vals, uintptr(opts.MaxThreadsPerBlock))
	}
	if opts.OptLevel != nil {
		keys, vals = append(keys, cu.JITOptimizationLevel), append(vals, uintptr(*opts.OptLevel))
	}
	return keys, vals
}

// Compile loads the device code of src: the first of CUBIN, Fatbin, PTX and
// CUDA that the source has and the device takes. CUDA is served by the
// prebuilt set when it has the program (loadPrebuilt), else compiled with
// NVRTC for the device, or opts.Arch, through the kernel cache. A binary for
// another architecture falls through to the next. The loaded module is kept in the
// device's module cache: compiling the same source with the same options
// again, while no header it included changed, returns it at once.
func (d *device) Compile(ctx context.Context, src backend.Source, opts backend.CompileOptions) (backend.Module, error) {
	op := fmt.Sprintf("compile %q", src.Name)
	if strings.TrimSpace(src.CUDA) == "" && strings.TrimSpace(src.PTX) == "" && len(src.CUBIN) == 0 && len(src.Fatbin) == 0 {
		return nil, &errors.Error{Backend: Name, Op: op, Category: errors.NotSupported,
			Msg:  "the source has no CUDA dialect (Source.CUDA, PTX, CUBIN and Fatbin are empty)",
			Hint: "write the kernel in CUDA C++ (extern \"C\" __global__) in Source.CUDA, give compiled code in Source.PTX, CUBIN or Fatbin, or use a backend whose dialect the source has"}
	}
	key := moduleKey(src, opts, opts.KernelNames, d.arch)
	if lm := d.cachedModule(key); lm != nil {
		return &module{dev: d, lm: lm, name: src.Name, src: src, opts: opts}, nil
	}
	lm, err := d.load(ctx, op, src, opts, opts.KernelNames)
	if err != nil {
		return nil, err
	}
	lm = d.keepModule(key, lm)
	return &module{dev: d, lm: lm, name: src.Name, src: src, opts: opts}, nil
}

// load compiles and loads src (see Compile) with names as NVRTC name
// expressions; the result has one reference.
func (d *device) load(ctx context.Context, op string, src backend.Source, opts backend.CompileOptions, names []string) (*loadedModule, error) {
	type image struct {
		what string
		data []byte
		jit  bool // PTX: the driver compiles it, with the JIT options
	}
	var images []image
	if len(src.CUBIN) > 0 {
		images = append(images, image{"Source.CUBIN", src.CUBIN, false})
	}
	if len(src.Fatbin) > 0 {
		images = append(images, image{"Source.Fatbin", src.Fatbin, false})
	}
	if strings.TrimSpace(src.PTX) != "" {
		images = append(images, image{"Source.PTX", append([]byte(src.PTX), 0), true})
	}
	hasCUDA := strings.TrimSpace(src.CUDA) != ""
	var lastErr error
	for i, im := range images {
		h, err := d.loadImage(op+": load "+im.what, im.data, im.jit, opts)
		if err == nil {
			return &loadedModule{h: h, refs: 1}, nil
		}
		if !wrongImage(err) || (i == len(images)-1 && !hasCUDA) {
			return nil, err
		}
		lastErr = err
	}
	if !hasCUDA {
		return nil, lastErr
	}
	if lm, err := d.loadPrebuilt(op, src, opts, names); lm != nil || err != nil {
		return lm, err
	}
	res, err := compileCUDA(ctx, src, opts, names, d.arch, d.lib.Version)
	if err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	h, err := d.loadImage(op+": load module", res.Image(), len(res.CUBIN) == 0, opts)
	if err != nil {
		return nil, err
	}
	return &loadedModule{h: h, refs: 1, lowered: res.LoweredNames, deps: res.Dependencies, uncached: res.Uncached}, nil
}

// wrongImage reports whether a load failed because the image is not for
// this device (another architecture, a newer PTX), so another dialect of
// the source may still load.
func wrongImage(err error) bool {
	var e *errors.Error
	if !errors.As(err, &e) {
		return false
	}
	switch cu.Result(e.Code) {
	case cu.ErrorNoBinaryForGPU, cu.ErrorInvalidImage, cu.ErrorInvalidPTX, cu.ErrorUnsupportedPTXVersion, cu.ErrorInvalidSource:
		return true
	}
	return false
}

// loadImage is cuModuleLoadData, or for PTX with JIT options
// cuModuleLoadDataEx.
func (d *device) loadImage(op string, data []byte, jit bool, opts backend.CompileOptions) (cu.Module, error) {
	var h cu.Module
	err := d.do(op, func(*cu.Frame) cu.Result {
		var r cu.Result
		if keys, vals := jitOptions(opts); jit && len(keys) > 0 {
			h, r = d.lib.ModuleLoadDataEx(data, keys, vals)
		} else {
			h, r = d.lib.ModuleLoadData(data)
		}
		return r
	})
	return h, err
}

// loadedModule is a CUmodule, shared by the Modules compiled from one source
// with the same options while the device's module cache holds it.
type loadedModule struct {
	h        cu.Module
	lowered  map[string]string  // name expression -> mangled name
	deps     []nvrtc.Dependency // the headers the program's includes reached
	uncached string             // why the kernel cache could not keep it
	prebuilt string             // the prebuilt image it was loaded from ("sm_90 CUBIN (NVRTC 13.0)"); "" when none

	// Under the device's mu:
	refs   int  // Modules using it, plus one while cached
	cached bool // held by the device's module cache
}

// moduleCacheSize bounds the device's module cache; beyond it, entries no
// Module uses are unloaded.
const moduleCacheSize = 256

// moduleKey names what determines a loaded module: the code in every CUDA
// dialect, the options, the name expressions, the architecture and, for a
// program that includes files, the working directory. (The contents of the
// files are checked apart: loadedModule.deps.)
func moduleKey(src backend.Source, opts backend.CompileOptions, names []string, arch string) string {
	k := keyhash.New()
	k.String(arch)
	if strings.Contains(src.CUDA, "include") {
		// Relative include paths and "..." includes of the program resolve
		// against the working directory.
		wd, _ := os.Getwd()
		k.String(wd)
	}
	k.String(src.Name)
	k.String(src.CUDA)
	k.String(src.PTX)
	k.String(string(src.CUBIN))
	k.String(string(src.Fatbin))
	k.String(opts.Arch)
	k.String(strconv.FormatBool(opts.FastMath))
	k.String(strconv.FormatBool(opts.Debug))
	k.Map(opts.Defines)
	k.Map(opts.Headers)
	k.List(opts.Flags)
	k.List(opts.IncludePaths)
	k.List(names)
	opt := -1
	if opts.OptLevel != nil {
		opt = *opts.OptLevel
	}
	k.String(fmt.Sprint(opts.MaxRegisters, opts.MaxThreadsPerBlock, opt))
	return k.Hex()
}

// cachedModule returns the cached module for key with a new reference, or
// nil: none, or one whose headers changed (it leaves the cache).
func (d *device) cachedModule(key string) *loadedModule {
	d.mu.Lock()
	lm := d.mcache[key]
	d.mu.Unlock()
	if lm == nil {
		return nil
	}
	for _, dep := range lm.deps {
		if dep.Changed() {
			d.mu.Lock()
			if d.mcache[key] == lm {
				d.evictLocked(key, lm)
			}
			d.mu.Unlock()
			return nil
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !lm.cached || d.mcache[key] != lm {
		return nil // evicted meanwhile
	}
	lm.refs++
	return lm
}

// keepModule records lm, just loaded with one reference, under key, and
// returns the module to use: lm, or the one a concurrent Compile of the same
// key stored first (lm is then unloaded). A module the kernel cache could not
// keep is not cached here either.
func (d *device) keepModule(key string, lm *loadedModule) *loadedModule {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.loaded[lm] = struct{}{}
	if lm.uncached != "" {
		return lm
	}
	if old := d.mcache[key]; old != nil {
		d.evictLocked(key, old)
	}
	if len(d.mcache) >= moduleCacheSize {
		for k, v := range d.mcache {
			if v.refs == 1 { // only the cache's reference
				d.evictLocked(k, v)
				break
			}
		}
	}
	lm.cached = true
	lm.refs++
	d.mcache[key] = lm
	return lm
}

// evictLocked drops the cache's reference to lm; d.mu is held.
func (d *device) evictLocked(key string, lm *loadedModule) {
	delete(d.mcache, key)
	lm.cached = false
	d.unrefLocked(lm)
}

// unrefLocked drops one reference to lm and unloads it with the last; d.mu
// is held.
func (d *device) unrefLocked(lm *loadedModule) {
	if lm.refs--; lm.refs > 0 {
		return
	}
	delete(d.loaded, lm)
	if !d.broken() {
		_ = d.bound("unload module", func(*cu.Frame) { _ = d.lib.ModuleUnload(lm.h) })
	}
}

// module is a Module: a reference to a loaded CUmodule, plus those loaded
// later for C++ names it did not resolve.
type module struct {
	dev  *device
	lm   *loadedModule
	name string
	src  backend.Source
	opts backend.CompileOptions

	extra  []*loadedModule // recompiled for names (Kernel); under dev.mu
	closed bool            // under dev.mu
}

var (
	_ backend.Module           = (*module)(nil)
	_ backend.UncachedCompiler = (*module)(nil)
)

// UncachedReason says why the kernel cache could not keep the program.
func (m *module) UncachedReason() string { return m.lm.uncached }

// Prebuilt names the prebuilt image the module's code was loaded from
// ("sm_90 CUBIN (NVRTC 13.0)"), or is "" when NVRTC compiled it or the source
// gave it (see loadPrebuilt).
func (m *module) Prebuilt() string { return m.lm.prebuilt }

// Kernel looks up an entry point: an extern "C" name, a symbol name of
// compiled code, or a C++ name (a template instantiation such as
// "softmax<float, 128>"). A C++ name not given to Compile (gpu.KernelNames)
// compiles the CUDA source again with the name as an NVRTC name expression
// (through the caches), and looks up its lowered name. The root package
// asks once per name.
func (m *module) Kernel(name string) (backend.Kernel, error) {
	op := fmt.Sprintf("kernel %q", name)
	k, r, err := m.lookup(op, m.lm, name)
	if err != nil {
		return nil, err
	}
	if r == cu.ErrorNotFound && m.lm.lowered[name] == "" && mentions(m.src.CUDA, name) {
		lm, err := m.loadFor(op, name)
		if errors.Is(err, errors.Compilation) {
			// NVRTC could not resolve the name in the source.
			e := m.notFound(op, name, r)
			e.Log, e.Err = errors.LogOf(err), err
			e.Msg += " (NVRTC could not resolve it as a name expression)"
			return nil, e
		}
		if err != nil {
			return nil, err
		}
		if k, r, err = m.lookup(op, lm, name); err != nil {
			return nil, err
		}
	}
	if r == cu.ErrorNotFound {
		return nil, m.notFound(op, name, r)
	}
	if err := m.dev.check(r, op); err != nil {
		return nil, err
	}
	return k, nil
}

// notFound is the error of a name the module does not have.
func (m *module) notFound(op, name string, r cu.Result) *errors.Error {
	return &errors.Error{Backend: Name, Op: op, Category: errors.InvalidArgument, Code: int64(r), Name: r.String(),
		Msg:  fmt.Sprintf("module %q has no entry point %q", m.name, name),
		Hint: "name a __global__ function of the source: its extern \"C\" name, or its C++ name with template arguments (\"softmax<float, 128>\"); compiled code (PTX, CUBIN) is looked up by symbol"}
}

// mentions reports whether src has the function name of the C++ name
// expression name ("softmax" of "ns::softmax<float, 128>"): only then can
// compiling src with it as a name expression resolve it, so a name that is
// nowhere in the source fails at once instead of after a compile.
func mentions(src, name string) bool {
	base := name
	if i := strings.IndexAny(base, "<("); i >= 0 {
		base = base[:i]
	}
	if i := strings.LastIndex(base, "::"); i >= 0 {
		base = base[i+2:]
	}
	base = strings.TrimSpace(base)
	return base != "" && strings.Contains(src, base)
}

// lookup finds name (through lm's lowered names) in lm.
func (m *module) lookup(op string, lm *loadedModule, name string) (*kernel, cu.Result, error) {
	sym := name
	if l, ok := lm.lowered[name]; ok {
		sym = l
	}
	d := m.dev
	var f cu.Function
	var params []int
	var r cu.Result
	err := d.bound(op, func(*cu.Frame) {
		if f, r = d.lib.ModuleGetFunction(lm.h, sym); r == cu.Success {
			params = paramSizes(d.lib, f)
		}
	})
	if err != nil || r != cu.Success {
		return nil, r, err
	}
	return &kernel{mod: m, name: name, fn: f, params: params}, r, nil
}

// loadFor compiles the module's source again with name as a name expression
// as well, and keeps the result with the module.
func (m *module) loadFor(op, name string) (*loadedModule, error) {
	d := m.dev
	names := append(slices.Clone(m.opts.KernelNames), name)
	key := moduleKey(m.src, m.opts, names, d.arch)
	lm := d.cachedModule(key)
	if lm == nil {
		var err error
		if lm, err = d.load(context.Background(), op+": compile with the name expression", m.src, m.opts, names); err != nil {
			return nil, err
		}
		lm = d.keepModule(key, lm)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if m.closed {
		d.unrefLocked(lm)
		return nil, errors.E(errors.Closed, Name, op, "module %q is closed", m.name)
	}
	m.extra = append(m.extra, lm)
	return lm, nil
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

// Close releases the module's references to its loaded code; the code is
// unloaded when no Module uses it and the module cache does not hold it.
func (m *module) Close() error {
	d := m.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	if _, live := d.loaded[m.lm]; live {
		d.unrefLocked(m.lm)
	}
	for _, lm := range m.extra {
		if _, live := d.loaded[lm]; live {
			d.unrefLocked(lm)
		}
	}
	m.extra = nil
	return nil
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

	sharedMu  sync.Mutex
	dynShared int // the dynamic shared memory the kernel was opted in to; 0 = the default
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
