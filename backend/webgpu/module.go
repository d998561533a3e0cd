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
	shader  *wgpu.ShaderModule // the module whose entry points are the kernels; nil for per-kernel modules
	kernels map[string]*kernel // guarded by d.mu
	coarsen map[string]int     // anygpu_coarsen_<entry> constants of the WGSL
	// lazy: kernels are made on first use (a module without Params, whose
	// entry points the backend cannot list).
	lazy bool
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
	names := slices.Sorted(maps.Keys(src.Params))
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usableLocked(); err != nil {
		return nil, err
	}
	m := &module{d: d, name: src.Name, kernels: map[string]*kernel{}}
	var err error
	switch {
	case src.WGSL != "":
		m.shader, err = d.createShaderLocked(op, "WGSL", &wgpu.ShaderModuleDescriptor{Label: src.Name, WGSLSource: &wgpu.ShaderSourceWGSL{Code: src.WGSL}})
		m.lazy = len(names) == 0
		m.coarsen = coarsenConsts(src.WGSL)
	case src.GLSL != "":
		if len(names) == 0 {
			names = []string{src.Name}
		}
		code := glsl450(src.GLSL)
		err = m.compileEachLocked(op, "GLSL", names, func(name string) *wgpu.ShaderModuleDescriptor {
			defs := map[string]string{"ANYGPU_KERNEL_" + name: "1"}
			maps.Copy(defs, opts.Defines)
			return &wgpu.ShaderModuleDescriptor{
				Label: src.Name + "/" + name, GLSLSource: &wgpu.ShaderSourceGLSL{Code: code, Defines: defs, ShaderStage: wgpu.ShaderStageCompute},
			}
		})
		names = nil // made
	case len(src.SPIRV) > 0:
		m.shader, err = d.createShaderLocked(op, "SPIR-V", &wgpu.ShaderModuleDescriptor{Label: src.Name, SPIRVSource: &wgpu.ShaderSourceSPIRV{Code: src.SPIRV}})
		if len(names) == 0 {
			names = []string{src.Name}
		}
	case len(src.SPIRVKernels) > 0:
		err = m.compileEachLocked(op, "SPIR-V", slices.Sorted(maps.Keys(src.SPIRVKernels)), func(name string) *wgpu.ShaderModuleDescriptor {
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
// its entry point main. On failure it releases what the module holds.
func (m *module) compileEachLocked(op, dialect string, names []string, desc func(name string) *wgpu.ShaderModuleDescriptor) error {
	d := m.d
	for _, name := range names {
		sm, err := d.createShaderLocked(op, dialect, desc(name))
		if err == nil {
			k := &kernel{m: m, name: name, shader: sm}
			if err = d.pipelineLocked(op, k, sm, "main"); err == nil {
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

// createShaderLocked makes a shader module; a failure is a Compilation
// error whose log is wgpu's report.
func (d *device) createShaderLocked(op, dialect string, desc *wgpu.ShaderModuleDescriptor) (*wgpu.ShaderModule, error) {
	var sm *wgpu.ShaderModule
	err := d.call(op, errors.Compilation, func() error {
		if desc.SPIRVSource != nil {
			if len(desc.SPIRVSource.Code)%4 != 0 || len(desc.SPIRVSource.Code) < 20 {
				return fmt.Errorf("SPIR-V of %d bytes is not a module (whole 32-bit words, a 5-word header)", len(desc.SPIRVSource.Code))
			}
			sm = wgpuc.CreateShaderModuleSPIRV(d.dev, desc.SPIRVSource.Code)
			return nil
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

// pipelineLocked creates k's compute pipeline from entry of sm.
func (d *device) pipelineLocked(op string, k *kernel, sm *wgpu.ShaderModule, entry string) error {
	k.coarsen = max(k.m.coarsenOf(entry), 1)
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
	m.releaseLocked()
	return nil
}

func (m *module) releaseLocked() {
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
// scalars gets no uniform. WGSL fixes the work-group size, so the launch's
// block reaches the kernel only through that geometry; a grid wider than the
// adapter's 65535 groups per dimension is dispatched folded into x and y, and
// kernels compute their group from the linear dispatch index (see package
// kernels).
func (s *stream) Launch(k backend.Kernel, grid, block backend.Dim3, args []backend.Arg) error {
	kern := k.(*kernel)
	op := "launch " + kern.name
	d := s.d
	grid, block = grid.Norm(), block.Norm()
	px, py, pz, err := dispatchSize(grid, kern.coarsen, d.maxDim)
	if err != nil {
		return errors.E(errors.Launch, Name, op, "%v", err)
	}
	entries := make([]wgpu.BindGroupEntry, 0, len(args)+1)
	for i, a := range args {
		if a.Kind != backend.ArgBuffer {
			continue
		}
		b := a.Buffer.(*buffer)
		if b.alloc > d.maxBinding {
			return &errors.Error{
				Backend: Name, Op: op, Category: errors.Launch,
				Msg:  fmt.Sprintf("argument %d is a buffer of %s; the adapter binds at most %s per storage buffer", i, units.ByteSize(b.size), units.ByteSize(int64(d.maxBinding))),
				Hint: "split the data over several buffers or launches",
			}
		}
		entries = append(entries, wgpu.BindGroupEntry{Binding: uint32(len(entries)), Buffer: b.buf, Size: b.alloc})
	}
	params := backend.PackScalars(args, true)
	if len(params) > 0 {
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
		if len(params) > 0 {
			off := d.paramsLocked(params)
			entries = append(entries, wgpu.BindGroupEntry{Binding: uint32(len(entries)), Buffer: d.arena, Offset: off, Size: uint64(len(params))})
		}
		return d.dispatchLocked(op, errors.Launch, s, kern.pipe, kern.layout, entries, px, py, pz)
	})
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
	fx := min(total, m)
	fy := (total + fx - 1) / fx
	if fy > m {
		return 0, 0, 0, fmt.Errorf("grid %v does not fold into %d×%d groups", g, m, m)
	}
	return uint32(fx), uint32(fy), 1, nil
}
