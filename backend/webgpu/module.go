//go:build cgo

package webgpu

import (
	"context"
	"encoding/binary"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/webgpu/internal/wgpuc"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/units"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// module is compiled device code: WGSL (one shader module, an entry point
// per kernel), GLSL (one shader module per kernel) or SPIR-V. The root
// package closes it once, and launches none of its kernels after that.
type module struct {
	d       *device
	name    string
	shader  *wgpu.ShaderModule      // the module whose entry points are the kernels; nil for per-kernel modules
	kernels map[string]*kernel      // guarded by d.mu
	coarsen map[string]int          // anygpu_coarsen_<entry> constants of the WGSL
	sizes   map[string]backend.Dim3 // work-group sizes of the shader's entry points, where the source fixes them
	// lazy: kernels are made on first use (a module without Params, whose
	// entry points the backend cannot list).
	lazy bool
	// blocks is set for WGSL that declares the anygpu_block_x/y/z constants:
	// its entry points sized by them run at any block (guarded by d.mu).
	blocks *blockVariants
	// sub holds the kernels compiled from the source's subgroup variant
	// (Source.Subgroups), which kernels also lists; nil when none.
	sub *module
}

// kernel is a compute pipeline with its bind-group layout (derived from the
// shader: "auto" layout).
type kernel struct {
	m       *module
	name    string
	shader  *wgpu.ShaderModule // its own module (GLSL, per-kernel SPIR-V), else nil
	pipe    *wgpu.ComputePipeline
	layout  *wgpu.BindGroupLayout
	coarsen int // launch groups per dispatched group (anygpu_coarsen_<name>)
	// size is the work-group size the source fixes, zero where the backend
	// cannot tell (an override or specialization constant).
	size backend.Dim3
	// geometry tells, by the size of a launch's scalars, whether the
	// kernel's uniform reaches past them into the launch geometry (guarded
	// by m.d.mu).
	geometry map[int]bool
	// anyBlock: the entry point's @workgroup_size is the module's block
	// constants, so it is compiled per launch block (m.blocks) and always
	// gets the launch geometry, scalars or not.
	anyBlock bool
}

var (
	_ backend.Module = (*module)(nil)
	_ backend.Kernel = (*kernel)(nil)
)

func (k *kernel) Name() string { return k.name }

func (k *kernel) release() {
	_ = protect("release kernel", func() error {
		if k.layout != nil {
			k.layout.Release()
		}
		if k.pipe != nil {
			k.pipe.Release()
		}
		if k.shader != nil {
			k.shader.Release()
		}
		return nil
	})
}

// Compile builds src's WGSL; without WGSL, its GLSL (#version 430 is
// raised to 450, the oldest wgpu's GLSL front end takes; each kernel is
// compiled with ANYGPU_KERNEL_<name> defined and entry point main), else its
// SPIR-V (which must take its scalars from a uniform block at binding n, not
// push constants: WebGPU has none). WGSL has no preprocessor: opts.Defines
// apply to GLSL only. Pipelines are created for every kernel Params names;
// a module without Params makes its kernels on first use.
func (d *device) Compile(ctx context.Context, src backend.Source, opts backend.CompileOptions) (backend.Module, error) {
	op := fmt.Sprintf("compile %q", src.Name)
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	// The kernels the source's WGSL left out (Unsupported) are not built:
	// looking one up fails, and the root reports why.
	names := slices.DeleteFunc(slices.Sorted(maps.Keys(src.Params)), func(n string) bool {
		_, left := src.Unsupported[n]
		return left
	})
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usableLocked(); err != nil {
		return nil, err
	}
	sgNames := d.subgroupKernels(src, names)
	if len(sgNames) == 0 {
		return d.compileLocked(op, src, opts, names)
	}
	// The kernels with subgroup operations come from the subgroup variant's
	// WGSL, a shader module of their own; the others from src's.
	sub, err := d.compileLocked(op, backend.Source{Name: src.Name, WGSL: subgroupWGSL(src.Subgroups.WGSL)}, opts, sgNames)
	if err != nil {
		return nil, err
	}
	m, err := d.compileLocked(op, src, opts, slices.DeleteFunc(names, func(n string) bool { return slices.Contains(sgNames, n) }))
	if err != nil {
		sub.releaseLocked()
		return nil, err
	}
	m.lazy = false
	m.sub = sub
	maps.Copy(m.kernels, sub.kernels)
	return m, nil
}

// compileLocked is Compile of the kernels names (all of them when names is
// empty and the source lets the backend find them), with d.mu held.
func (d *device) compileLocked(op string, src backend.Source, opts backend.CompileOptions, names []string) (*module, error) {
	m := &module{d: d, name: src.Name, kernels: map[string]*kernel{}}
	var err error
	switch {
	case src.WGSL != "":
		m.shader, err = d.createShaderLocked(op, "WGSL", &wgpu.ShaderModuleDescriptor{Label: src.Name, WGSLSource: &wgpu.ShaderSourceWGSL{Code: src.WGSL}})
		m.lazy = len(names) == 0
		m.coarsen = coarsenConsts(src.WGSL)
		m.sizes = wgslSizes(src.WGSL)
		m.blocks = newBlockVariants(src.WGSL)
		if m.blocks != nil {
			for name := range m.blocks.entries {
				delete(m.sizes, name) // sized by the launch
			}
		}
	case src.GLSL != "":
		if len(names) == 0 {
			names = []string{src.Name}
		}
		code := glsl450(src.GLSL)
		size := glslSize(code)
		err = m.compileEachLocked(op, "GLSL", names, func(string) backend.Dim3 { return size }, func(name string) *wgpu.ShaderModuleDescriptor {
			defs := map[string]string{"ANYGPU_KERNEL_" + name: "1"}
			maps.Copy(defs, opts.Defines)
			return &wgpu.ShaderModuleDescriptor{
				Label: src.Name + "/" + name, GLSLSource: &wgpu.ShaderSourceGLSL{Code: code, Defines: defs, ShaderStage: wgpu.ShaderStageCompute},
			}
		})
		names = nil // made
	case len(src.SPIRV) > 0:
		m.shader, err = d.createShaderLocked(op, "SPIR-V", &wgpu.ShaderModuleDescriptor{Label: src.Name, SPIRVSource: &wgpu.ShaderSourceSPIRV{Code: src.SPIRV}})
		m.sizes = spirvSizes(src.SPIRV)
		if len(names) == 0 {
			names = []string{src.Name}
		}
	case len(src.SPIRVKernels) > 0:
		err = m.compileEachLocked(op, "SPIR-V", slices.Sorted(maps.Keys(src.SPIRVKernels)), func(name string) backend.Dim3 {
			return spirvSizes(src.SPIRVKernels[name])["main"]
		}, func(name string) *wgpu.ShaderModuleDescriptor {
			return &wgpu.ShaderModuleDescriptor{Label: src.Name + "/" + name, SPIRVSource: &wgpu.ShaderSourceSPIRV{Code: src.SPIRVKernels[name]}}
		})
		names = nil // made
	default:
		return nil, &errors.Error{
			Backend: Name, Op: op, Category: errors.NotSupported,
			Msg:  "the source has no WGSL (Source.WGSL), nor GLSL or SPIR-V for wgpu to translate",
			Hint: "add a WGSL dialect to the Source: @compute functions named after the kernels, buffers at @group(0) @binding(0..n-1), scalars in a uniform at @binding(n)",
		}
	}
	if err != nil {
		return nil, err
	}
	// The kernels of the one shader module, by entry point.
	for _, name := range names {
		k := &kernel{m: m, name: name}
		if err := d.pipelineLocked(op, k, m.shader, name); err != nil {
			k.release()
			m.releaseLocked()
			return nil, err
		}
		m.kernels[name] = k
	}
	return m, nil
}

// compileEachLocked makes a shader module of dialect per kernel of names,
// from the descriptor desc returns for it, and the kernel's pipeline from
// its entry point main, whose work-group size is size's. On failure it
// releases what the module holds.
func (m *module) compileEachLocked(op, dialect string, names []string, size func(name string) backend.Dim3, desc func(name string) *wgpu.ShaderModuleDescriptor) error {
	d := m.d
	for _, name := range names {
		sm, err := d.createShaderLocked(op, dialect, desc(name))
		if err == nil {
			k := &kernel{m: m, name: name, shader: sm}
			if err = d.pipelineLocked(op, k, sm, "main"); err == nil {
				k.size = size(name)
				m.kernels[name] = k
				continue
			}
			k.release()
		}
		m.releaseLocked()
		return err
	}
	return nil
}

// glsl450 raises "#version 430" to 450: wgpu's GLSL front end (naga) takes
// 440 and later, and 430 compute shaders mean the same there.
func glsl450(src string) string {
	lines := strings.SplitN(src, "\n", 2)
	if f := strings.Fields(lines[0]); len(f) >= 2 && f[0] == "#version" && f[1] < "440" {
		lines[0] = "#version 450"
		return strings.Join(lines, "\n")
	}
	return src
}

// wgslChecks are the runtime checks wgpu compiles WGSL with: bounds checks
// (indexing stays safe, as WebGPU promises), but no loop-bounding counters.
// Those are wgpu's guard against shaders that never end; they stop the
// driver from unrolling a kernel's constant loops (register tiles then spill
// to memory), and a kernel's loops are its author's, as on CUDA and Vulkan.
// WGSL that wgpu-native's trusted creation returns no module for is compiled
// again the ordinary way, with every check.
const wgslChecks = wgpu.ShaderRuntimeChecksBoundsChecks

// createShaderLocked makes a shader module; a failure is a Compilation
// error whose log is wgpu's report.
func (d *device) createShaderLocked(op, dialect string, desc *wgpu.ShaderModuleDescriptor) (*wgpu.ShaderModule, error) {
	if err := shaderText(desc); err != nil {
		return nil, &errors.Error{
			Backend: Name, Op: op, Category: errors.Compilation,
			Msg: dialect + " did not compile: " + err.Error(), Log: err.Error(),
			Hint: "pass the shader's source text: " + dialect + " is UTF-8 text without NUL bytes",
		}
	}
	var sm *wgpu.ShaderModule
	err := d.call(op, errors.Compilation, func() error {
		if desc.SPIRVSource != nil {
			if len(desc.SPIRVSource.Code)%4 != 0 || len(desc.SPIRVSource.Code) < 20 {
				return fmt.Errorf("SPIR-V of %d bytes is not a module (whole 32-bit words, a 5-word header)", len(desc.SPIRVSource.Code))
			}
			sm = wgpuc.CreateShaderModuleSPIRV(d.dev, desc.SPIRVSource.Code)
			return nil
		}
		if desc.WGSLSource != nil {
			sm = wgpuc.CreateShaderModuleWGSL(d.dev, desc.Label, desc.WGSLSource.Code, wgslChecks)
			if sm != nil {
				return nil
			}
		}
		var err error
		sm, err = d.dev.TryCreateShaderModule(desc)
		return err
	})
	if err != nil {
		if sm != nil {
			sm.Release()
		}
		if e, ok := err.(*errors.Error); ok && e.Category == errors.Compilation {
			e.Msg = dialect + " did not compile: " + strings.TrimPrefix(e.Msg, "validation error: ")
			if e.Log == "" {
				e.Log = e.Msg
			}
			e.Hint = "fix the shader source: the error log (errors.LogOf) has wgpu's report with the line and column"
		}
		return nil, err
	}
	if sm == nil {
		return nil, errors.E(errors.Compilation, Name, op, "%s did not compile", dialect)
	}
	return sm, nil
}

// shaderText checks that desc's WGSL or GLSL is text wgpu can take: the
// binding hands it to C as a NUL-terminated string (a NUL byte would cut it
// short, and what is left may compile) and naga aborts the process when it
// reports an error inside a byte sequence that is not UTF-8.
func shaderText(desc *wgpu.ShaderModuleDescriptor) error {
	var code string
	switch {
	case desc.WGSLSource != nil:
		code = desc.WGSLSource.Code
	case desc.GLSLSource != nil:
		code = desc.GLSLSource.Code
	default:
		return nil
	}
	for i, r := range code {
		switch {
		case r == 0:
			return fmt.Errorf("a NUL byte at byte %d (line %d): the source is not text", i, 1+strings.Count(code[:i], "\n"))
		case r == utf8.RuneError && !strings.HasPrefix(code[i:], "\uFFFD"):
			return fmt.Errorf("byte 0x%02x at byte %d (line %d) is not UTF-8: the source is not text", code[i], i, 1+strings.Count(code[:i], "\n"))
		}
	}
	return nil
}

// pipelineLocked creates k's compute pipeline from entry of sm.
func (d *device) pipelineLocked(op string, k *kernel, sm *wgpu.ShaderModule, entry string) error {
	k.coarsen = max(k.m.coarsenOf(entry), 1)
	if k.m != nil {
		k.size = k.m.sizes[entry]
		k.anyBlock = k.m.blocks != nil && k.m.blocks.entries[entry]
	}
	err := d.call(op, errors.Compilation, func() error {
		var err error
		k.pipe, err = d.dev.TryCreateComputePipeline(&wgpu.ComputePipelineDescriptor{
			Label:   k.name,
			Compute: wgpu.ProgrammableStageDescriptor{Module: sm, EntryPoint: entry},
		})
		if err != nil {
			return err
		}
		k.layout = k.pipe.GetBindGroupLayout(0)
		return nil
	})
	if e, ok := err.(*errors.Error); ok && e.Category == errors.Compilation {
		e.Msg = fmt.Sprintf("kernel %s: %s", k.name, strings.TrimPrefix(e.Msg, "validation error: "))
		if e.Log == "" {
			e.Log = e.Msg
		}
	}
	return err
}

func (m *module) Kernel(name string) (backend.Kernel, error) {
	d := m.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if k, ok := m.kernels[name]; ok {
		return k, nil
	}
	if !m.lazy {
		names := slices.Sorted(maps.Keys(m.kernels))
		return nil, errors.E(errors.InvalidArgument, Name, "kernel", "no entry point %q in the module (it has %s)", name, strings.Join(names, ", "))
	}
	if err := d.usableLocked(); err != nil {
		return nil, err
	}
	k := &kernel{m: m, name: name}
	if err := d.pipelineLocked("kernel "+name, k, m.shader, name); err != nil {
		k.release()
		if e, ok := err.(*errors.Error); ok && e.Category == errors.Compilation {
			e.Category = errors.InvalidArgument
		}
		return nil, err
	}
	m.kernels[name] = k
	return k, nil
}

// Close releases the module's pipelines. Launches already enqueued keep
// what they use alive.
func (m *module) Close() error {
	m.d.mu.Lock()
	defer m.d.mu.Unlock()
	// The shared encoder's dispatches may have to be recorded again, with
	// these pipelines: finish it first.
	_ = m.d.closeEncLocked()
	m.releaseLocked()
	return nil
}

func (m *module) releaseLocked() {
	if m.sub != nil {
		for name := range m.sub.kernels {
			delete(m.kernels, name) // released with m.sub
		}
		m.sub.releaseLocked()
		m.sub = nil
	}
	if m.blocks != nil {
		m.blocks.releaseLocked(m.d)
	}
	for _, k := range m.kernels {
		m.d.forgetLayoutLocked(k.layout)
		k.release()
	}
	m.kernels = nil
	if m.shader != nil {
		_ = protect("release module", func() error { m.shader.Release(); return nil })
		m.shader = nil
	}
}

// coarsenRE matches the WGSL declarations by which an entry point asks for
// one dispatched group per K groups of a launch.
var coarsenRE = regexp.MustCompile(`const\s+anygpu_coarsen_([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*u32\s*)?=\s*([0-9]+)u?\s*;`)

// coarsenConsts returns the anygpu_coarsen_<entry> constants of a WGSL
// source, by entry point.
func coarsenConsts(wgsl string) map[string]int {
	out := map[string]int{}
	for _, m := range coarsenRE.FindAllStringSubmatch(wgsl, -1) {
		if k, err := strconv.Atoi(m[2]); err == nil && k >= 1 {
			out[m[1]] = k
		}
	}
	return out
}

func (m *module) coarsenOf(entry string) int {
	if m == nil {
		return 1
	}
	return m.coarsen[entry]
}

// Launch enqueues k over grid. Buffers bind at 0..n-1 (whole buffers, as
// read_write storage); the scalars, packed by the portable ABI, followed at
// the next 16-byte boundary by the launch geometry (grid and block as
// launched, 4 u32 each), form the uniform at binding n. A kernel without
// scalars gets no uniform, unless it is sized by the block constants (then
// the uniform is the geometry alone). Such a kernel runs with the launch's
// block as its work-group size (blockVariants). Other sources fix the
// work-group size, so a launch's block reaches the kernel only through that
// geometry: a launch whose block differs from the fixed size is refused
// unless the kernel's uniform reaches into the geometry (checkBlockLocked). A grid wider than
// the adapter's 65535 groups per dimension is dispatched folded into x and
// y, and kernels compute their group from the linear dispatch index (see
// package kernels). What wgpu's validation would refuse in the dispatch is
// refused here, with InvalidArgument, before it joins the batch.
func (s *stream) Launch(k backend.Kernel, grid, block backend.Dim3, args []backend.Arg) error {
	kern := k.(*kernel)
	op := "launch " + kern.name
	d := s.d
	grid, block = grid.Norm(), block.Norm()
	px, py, pz, err := dispatchSize(grid, kern.coarsen, d.maxDim)
	if err != nil {
		return errors.E(errors.Launch, Name, op, "%v", err)
	}
	fixed := kern.size.X > 0 && block != kern.size
	entries := make([]wgpu.BindGroupEntry, 0, len(args)+1)
	for i, a := range args {
		if a.Kind != backend.ArgBuffer {
			continue
		}
		b := a.Buffer.(*buffer)
		if b.alloc > d.maxBinding {
			return &errors.Error{
				Backend: Name, Op: op, Category: errors.InvalidArgument,
				Msg:  fmt.Sprintf("argument %d is a buffer of %s; the adapter binds at most %s per storage buffer", i, units.ByteSize(b.size), units.ByteSize(int64(d.maxBinding))),
				Hint: "split the data over several buffers or launches",
			}
		}
		entries = append(entries, wgpu.BindGroupEntry{Binding: uint32(len(entries)), Buffer: b.buf, Size: b.alloc})
	}
	params := backend.PackScalars(args, true)
	scalars := len(params)
	if len(params) > 0 || kern.anyBlock {
		params = binary.LittleEndian.AppendUint32(params, uint32(grid.X))
		params = binary.LittleEndian.AppendUint32(params, uint32(grid.Y))
		params = binary.LittleEndian.AppendUint32(params, uint32(grid.Z))
		params = binary.LittleEndian.AppendUint32(params, 0)
		params = binary.LittleEndian.AppendUint32(params, uint32(block.X))
		params = binary.LittleEndian.AppendUint32(params, uint32(block.Y))
		params = binary.LittleEndian.AppendUint32(params, uint32(block.Z))
		params = binary.LittleEndian.AppendUint32(params, 0)
	}
	return s.enqueue(func(d *device) error {
		if fixed {
			if err := d.checkBlockLocked(op, kern, block, entries, scalars, len(params)); err != nil {
				return err
			}
		}
		pipe, layout := kern.pipe, kern.layout
		if kern.anyBlock && block != kern.m.blocks.block {
			var err error
			if pipe, layout, err = kern.m.blocks.pipelineLocked(op, kern, block); err != nil {
				return err
			}
		}
		if len(params) > 0 {
			off := d.paramsLocked(params)
			entries = append(entries, wgpu.BindGroupEntry{Binding: uint32(len(entries)), Buffer: d.arena, Offset: off, Size: uint64(len(params))})
		}
		return d.dispatchLocked(op, errors.InvalidArgument, s, pipe, layout, entries, px, py, pz)
	})
}

// checkBlockLocked refuses a launch of k with a block other than the
// work-group size its source fixes, unless the kernel's uniform reaches
// past the launch's scalars (of scalars bytes, params with the geometry)
// into the launch geometry: a kernel that reads the geometry (as those of
// package kernels do) finds its threads from it, and takes any block.
// Whether it does is learnt once per size of scalars, from whether a bind
// group whose uniform holds only the scalars is too small for it where one
// with the geometry is not. storage is the launch's storage bindings.
func (d *device) checkBlockLocked(op string, k *kernel, block backend.Dim3, storage []wgpu.BindGroupEntry, scalars, params int) error {
	if scalars > 0 {
		reads, ok := k.geometry[scalars]
		if !ok {
			fits := func(size int) bool {
				probe := append(storage[:len(storage):len(storage)], wgpu.BindGroupEntry{Binding: uint32(len(storage)), Buffer: d.arena, Size: uint64(size)})
				return d.call(op, errors.InvalidArgument, func() error {
					bg, err := d.dev.TryCreateBindGroup(&wgpu.BindGroupDescriptor{Layout: k.layout, Entries: probe})
					if bg != nil {
						bg.Release()
					}
					return err
				}) == nil
			}
			if !fits(params) {
				return nil // the launch fails as it is, from its bind group
			}
			reads = !fits(scalars)
			if k.geometry == nil {
				k.geometry = map[int]bool{}
			}
			k.geometry[scalars] = reads
		}
		if reads {
			return nil
		}
	}
	return &errors.Error{
		Backend: Name, Op: op, Category: errors.InvalidArgument,
		Msg:  fmt.Sprintf("block %v differs from the work-group size %v that the kernel's source fixes (WGSL @workgroup_size, GLSL local_size, SPIR-V LocalSize)", block, k.size),
		Hint: fmt.Sprintf("launch with block %v, or have the kernel read the launch geometry that follows its scalars in the uniform and find its threads from it", k.size),
	}
}

// dispatchSize returns the dispatch for a launch over grid of a kernel that
// takes coarsen launch groups per dispatched group.
func dispatchSize(grid backend.Dim3, coarsen int, maxDim uint32) (x, y, z uint32, err error) {
	if coarsen <= 1 {
		return foldGrid(grid, maxDim)
	}
	total := int64(grid.X) * int64(grid.Y) * int64(grid.Z)
	groups := (total + int64(coarsen) - 1) / int64(coarsen)
	if groups > maxGridGroups {
		return 0, 0, 0, fmt.Errorf("grid %v needs %d groups; at most %d can be dispatched", grid, groups, maxGridGroups)
	}
	return foldGrid(backend.Dim3{X: int(groups), Y: 1, Z: 1}, maxDim)
}

// foldGrid returns the dispatch for grid: the grid itself when every
// dimension fits maxDim, else its groups (at most 2³¹-1, which 32-bit group
// indices reach) folded into x and y.
func foldGrid(g backend.Dim3, maxDim uint32) (x, y, z uint32, err error) {
	m := int64(maxDim)
	if int64(g.X) <= m && int64(g.Y) <= m && int64(g.Z) <= m {
		return uint32(g.X), uint32(g.Y), uint32(g.Z), nil
	}
	total := int64(g.X) * int64(g.Y) * int64(g.Z)
	if total > maxGridGroups {
		return 0, 0, 0, fmt.Errorf("grid %v has %d groups; a grid wider than %d groups may have at most %d", g, total, m, maxGridGroups)
	}
	// As few rows as fit, then as few columns as cover the grid: 65536
	// groups fold into 32768×2 rather than 65535×2, so at most fy-1 groups
	// are padding that only exits.
	fy := (total + m - 1) / m
	fx := (total + fy - 1) / fy
	if fy > m {
		return 0, 0, 0, fmt.Errorf("grid %v does not fold into %d×%d groups", g, m, m)
	}
	return uint32(fx), uint32(fy), 1, nil
}

// Work-group sizes fixed in a source. They are read from the text (WGSL,
// GLSL) or the words (SPIR-V): wgpu does not report them. A size the
// backend cannot tell (an override expression, a specialization constant, a
// GLSL source with several local sizes, one per kernel behind #ifdef) is
// left zero, and launches of that kernel are not checked against it.

var (
	// wgslCommentRE matches WGSL's comments (block comments unnested).
	wgslCommentRE = regexp.MustCompile(`(?s)//[^\n]*|/\*.*?\*/`)
	// wgslEntryRE matches the attributes before a function and its name.
	wgslEntryRE = regexp.MustCompile(`((?:@[A-Za-z_]\w*\s*(?:\([^)]*\))?\s*)+)fn\s+([A-Za-z_]\w*)`)
	// wgslSizeRE matches a @workgroup_size attribute.
	wgslSizeRE = regexp.MustCompile(`@workgroup_size\s*\(([^)]*)\)`)
	// wgslConstRE matches a module-scope integer constant.
	wgslConstRE = regexp.MustCompile(`const\s+([A-Za-z_]\w*)\s*(?::\s*[iu]32\s*)?=\s*([0-9]+|0[xX][0-9a-fA-F]+)[iu]?\s*;`)
	// glslSizeRE matches a GLSL input layout qualifier.
	glslSizeRE = regexp.MustCompile(`layout\s*\(([^)]*)\)\s*in\s*;`)
)

// wgslSizes returns the work-group sizes of a WGSL source's entry points
// whose @workgroup_size is made of integer literals and module constants.
func wgslSizes(src string) map[string]backend.Dim3 {
	src = wgslCommentRE.ReplaceAllString(src, " ")
	consts := map[string]int{}
	for _, m := range wgslConstRE.FindAllStringSubmatch(src, -1) {
		if v, err := strconv.ParseInt(m[2], 0, 32); err == nil {
			consts[m[1]] = int(v)
		}
	}
	out := map[string]backend.Dim3{}
	for _, m := range wgslEntryRE.FindAllStringSubmatch(src, -1) {
		a := wgslSizeRE.FindStringSubmatch(m[1])
		if a == nil {
			continue
		}
		var dims [3]int
		ok := true
		for i, e := range strings.Split(strings.TrimSuffix(strings.TrimSpace(a[1]), ","), ",") {
			e = strings.TrimRight(strings.TrimSpace(e), "iu")
			v, err := strconv.ParseInt(e, 0, 32)
			if c, isConst := consts[e]; isConst {
				v, err = int64(c), nil
			}
			if i >= 3 || err != nil || v < 1 {
				ok = false
				break
			}
			dims[i] = int(v)
		}
		if ok {
			out[m[2]] = backend.Dim3{X: dims[0], Y: max(dims[1], 1), Z: max(dims[2], 1)}
		}
	}
	return out
}

// glslSize returns the local size a GLSL source fixes: its one input
// layout with local_size_x/y/z literals (1 where left out); zero when it
// has none, several different ones, or specialization constants.
func glslSize(src string) backend.Dim3 {
	src = wgslCommentRE.ReplaceAllString(src, " ") // GLSL's comments are C's, as WGSL's
	var size backend.Dim3
	for _, m := range glslSizeRE.FindAllStringSubmatch(src, -1) {
		d := backend.Dim3{X: 1, Y: 1, Z: 1}
		found := false
		for _, q := range strings.Split(m[1], ",") {
			k, v, ok := strings.Cut(q, "=")
			k = strings.TrimSpace(k)
			if !strings.HasPrefix(k, "local_size_") {
				continue
			}
			n, err := strconv.ParseInt(strings.TrimRight(strings.TrimSpace(v), "uU"), 0, 32)
			if !ok || err != nil || n < 1 {
				return backend.Dim3{} // local_size_x_id, or an expression
			}
			switch k {
			case "local_size_x":
				d.X = int(n)
			case "local_size_y":
				d.Y = int(n)
			case "local_size_z":
				d.Z = int(n)
			default:
				return backend.Dim3{}
			}
			found = true
		}
		if !found {
			continue
		}
		if size.X > 0 && size != d {
			return backend.Dim3{}
		}
		size = d
	}
	return size
}

// SPIR-V opcodes and enums that spirvSizes reads.
const (
	spvOpEntryPoint       = 15
	spvOpExecutionMode    = 16
	spvOpDecorate         = 71
	spvExecModeLocalSize  = 17
	spvDecorationBuiltIn  = 11
	spvBuiltInWorkgroupSz = 25
)

// spirvSizes returns the LocalSize execution modes of a SPIR-V module's
// entry points, by name; none when the module declares a WorkgroupSize
// built-in (which overrides them) or is not well formed.
func spirvSizes(code []byte) map[string]backend.Dim3 {
	if len(code)%4 != 0 || len(code) < 20 {
		return nil
	}
	words := make([]uint32, len(code)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(code[4*i:])
	}
	if words[0] != 0x07230203 {
		return nil
	}
	names := map[uint32]string{}
	sizes := map[uint32]backend.Dim3{}
	for i := 5; i < len(words); {
		n, op := int(words[i]>>16), words[i]&0xffff
		if n == 0 || i+n > len(words) {
			return nil
		}
		ins := words[i : i+n]
		switch {
		case op == spvOpEntryPoint && n >= 4:
			names[ins[2]] = spirvString(ins[3:])
		case op == spvOpExecutionMode && n >= 6 && ins[2] == spvExecModeLocalSize:
			sizes[ins[1]] = backend.Dim3{X: int(ins[3]), Y: int(ins[4]), Z: int(ins[5])}
		case op == spvOpDecorate && n >= 4 && ins[2] == spvDecorationBuiltIn && ins[3] == spvBuiltInWorkgroupSz:
			return nil
		}
		i += n
	}
	out := map[string]backend.Dim3{}
	for id, sz := range sizes {
		if name, ok := names[id]; ok && sz.X > 0 && sz.Y > 0 && sz.Z > 0 {
			out[name] = sz
		}
	}
	return out
}

// spirvString decodes a SPIR-V literal string: UTF-8 packed little-endian
// into words, NUL-terminated.
func spirvString(words []uint32) string {
	var b []byte
	for _, w := range words {
		for s := 0; s < 32; s += 8 {
			c := byte(w >> s)
			if c == 0 {
				return string(b)
			}
			b = append(b, c)
		}
	}
	return string(b)
}
