// Package wgsl emits WGSL, WebGPU's shading language, from the kernel IR.
//
// The output follows the portable kernel ABI of the WebGPU backend
// (backend/webgpu): a kernel's buffers are read_write storage arrays at
// @group(0) @binding(0..n-1), in argument order; its scalars are the members
// of one uniform struct at @binding(n), in argument order, followed at the
// next 16-byte boundary by the launch geometry (grid and block as launched,
// two vec4<u32>), which the backend binds for every launch of such a source.
// The work-group size is three module constants, anygpu_block_x/y/z, which
// the backend rewrites to each launch's block; the entry points take it
// through @workgroup_size(anygpu_block_x, anygpu_block_y, anygpu_block_z),
// and GroupSizeX/Y/Z read it from the constants too (through a variable, so
// that the driver folds it but WGSL's constant evaluation does not), not
// from the geometry.
//
// A kernel finds its group from the geometry: the backend folds a grid
// wider than WebGPU's dispatch limit into x and y, so the group index is
// recovered from the linear dispatch index (without a division for a grid
// that is not folded or is one-dimensional), and the threads of the groups
// that only pad a folded dispatch return before the kernel's first
// statement (a condition that is the same for a whole group, so barriers
// stay valid).
//
// A buffer of 4-byte elements that a kernel moves 4 at a time (Load4,
// Store4) is declared an array of vec4 and moved one 16-byte vector per
// access; its one-element accesses are a vector's lane (see bufferUse.vec4
// for the exceptions). The backends pad every buffer to 16 bytes.
//
// Go's semantics are kept where WGSL's differ: shifts by the width or more,
// float-to-integer conversion (saturating, NaN to 0), min and max of floats
// (NaN if either is, -0 below +0), and the compare-exchange (WGSL's weak
// one may fail spuriously: it is retried). WGSL has no 64-bit or 16-bit types
// without extensions, nor float atomics: kernels that need them are listed
// in Output.Unsupported with the reason, and left out of the WGSL.
package wgsl

import (
	"fmt"
	"maps"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// Output is the WGSL of a module.
type Output struct {
	// All is one WGSL module with every supported kernel as an entry point,
	// for the WebGPU backend: each kernel's globals are prefixed with its
	// name so they do not clash, and the block constants and shared helpers
	// are declared once.
	All string
	// Modules holds one self-contained WGSL module per supported kernel, by
	// kernel name (for naga, which refuses two entry points sharing a
	// binding).
	Modules map[string]string
	// Native holds one self-contained module per supported kernel for the
	// native backends (the naga translation to SPIR-V, GLSL and MSL): the
	// ids are the real built-ins' and the uniform holds just the scalars
	// (none when the kernel has no scalars), since only WebGPU folds wide
	// grids and appends the launch geometry.
	Native map[string]string
	// Unsupported holds, by kernel name, why a kernel cannot run on WebGPU;
	// those kernels are in neither All nor Modules nor Native.
	Unsupported map[string]string
}

// header starts every emitted module.
const header = "// Code generated from Go kernels by github.com/anygpu/gpu/kernel. DO NOT EDIT.\n"

// Emit returns the WGSL of m. The text is deterministic: the same module
// gives the same bytes.
func Emit(m *ir.Module) (Output, error) {
	out := Output{Modules: map[string]string{}, Native: map[string]string{}, Unsupported: map[string]string{}}
	if m == nil {
		return out, fmt.Errorf("wgsl: no module to emit")
	}
	e := &emitter{m: m, global: newNamer(), funcNames: map[*ir.Func]string{}, helpers: map[*ir.Func]*funcText{}}
	for _, name := range []string{"ag_Launch"} {
		e.global.taken[name] = true
	}
	kernels := m.Kernels()
	for _, k := range kernels {
		if isReserved(k.Name) {
			return out, fmt.Errorf("%s: kernel name %q is a WGSL reserved word or a name the emitter keeps for itself; rename the function", k.Pos, k.Name)
		}
		if e.global.taken[k.Name] {
			return out, fmt.Errorf("%s: a second kernel named %q; give each kernel its own name", k.Pos, k.Name)
		}
		e.global.taken[k.Name] = true
		e.funcNames[k] = k.Name
	}
	for _, f := range m.Funcs {
		if f == nil {
			return out, fmt.Errorf("wgsl: the module lists a nil function")
		}
		if !f.Kernel {
			e.funcNames[f] = e.global.fresh(f.Name)
		}
	}
	// Which kernels can be emitted, and the names of their globals.
	var plans []*kernelPlan
	for _, k := range kernels {
		helpers := callees(m, k)
		if why := unsupported(k, helpers); why != "" {
			out.Unsupported[k.Name] = why
			continue
		}
		p, err := e.plan(k, helpers)
		if err != nil {
			return out, err
		}
		plans = append(plans, p)
	}
	// The helpers the emitted kernels call.
	used := map[*ir.Func]bool{}
	for _, p := range plans {
		for _, h := range p.helpers {
			used[h] = true
		}
	}
	for _, f := range m.Funcs {
		if !used[f] {
			continue
		}
		t, err := e.helper(f)
		if err != nil {
			return out, err
		}
		e.helpers[f] = t
	}
	// The kernels, and the modules.
	var all strings.Builder
	allNeeds := map[string]bool{}
	allPriv := false
	var allHelpers []*ir.Func
	for _, f := range m.Funcs {
		if used[f] {
			allHelpers = append(allHelpers, f)
		}
	}
	var kernelTexts []string
	allSubgroups := false
	for _, p := range plans {
		nt, err := e.kernel(p, true)
		if err != nil {
			return out, err
		}
		t, err := e.kernel(p, false)
		if err != nil {
			return out, err
		}
		needs, priv := t.needs, t.privIDs
		for _, h := range p.helpers {
			for n := range e.helpers[h].needs {
				addNeed(needs, n)
			}
			priv = priv || e.helpers[h].privIDs
		}
		for n := range needs {
			allNeeds[n] = true
		}
		allPriv = allPriv || priv
		kernelTexts = append(kernelTexts, t.text)
		sg := usesSubgroups(p.f)
		allSubgroups = allSubgroups || sg
		out.Modules[p.f.Name] = e.module(needs, priv, p.helpers, []string{t.text}, false, sg)
		nneeds := maps.Clone(needs)
		delete(nneeds, "ag_group")
		out.Native[p.f.Name] = e.module(nneeds, priv, p.helpers, []string{nt.text}, true, sg)
	}
	all.WriteString(e.module(allNeeds, allPriv, allHelpers, kernelTexts, false, allSubgroups))
	out.All = all.String()
	return out, nil
}

// module assembles one WGSL module: the subgroups directive (when a kernel
// has subgroup operations), the block constants, the launch struct (not in a
// native module), the helpers of needs, the Go helpers and the kernels'
// texts.
func (e *emitter) module(needs map[string]bool, privIDs bool, helpers []*ir.Func, kernels []string, native, subgroups bool) string {
	var b strings.Builder
	b.WriteString(header)
	if subgroups {
		b.WriteString(enableSubgroups)
	}
	b.WriteString("\n")
	b.WriteString(blockConsts)
	if !native {
		b.WriteString("\n")
		b.WriteString(launchStruct)
	}
	if privIDs {
		b.WriteString("\n// The thread's indices, for the helpers that read them.\n")
		b.WriteString("var<private> ag_priv_grp: vec3<u32>;\nvar<private> ag_priv_lid: vec3<u32>;\nvar<private> ag_priv_lidx: u32;\nvar<private> ag_priv_grid: vec3<u32>;\nvar<private> ag_priv_bs: vec3<u32>;\n")
	}
	b.WriteString(runtimeText(needs))
	for _, h := range helpers {
		b.WriteString("\n")
		b.WriteString(e.helpers[h].text)
	}
	for _, k := range kernels {
		b.WriteString("\n")
		b.WriteString(k)
	}
	return b.String()
}

// emitter holds what the functions of one module share.
type emitter struct {
	m         *ir.Module
	global    *namer                 // the module-scope names
	funcNames map[*ir.Func]string    // every function's WGSL name
	helpers   map[*ir.Func]*funcText // the emitted helpers
}

// funcText is an emitted function (with the declarations it owns) and what
// it needs.
type funcText struct {
	text    string
	needs   map[string]bool // runtime helpers
	privIDs bool            // reads the thread's indices from the private copies
}

// kernelPlan is a kernel's globals, named before any body is emitted.
type kernelPlan struct {
	f       *ir.Func
	helpers []*ir.Func // the helpers it calls, in module order
	use     bufferUse
	globals map[*ir.Var]string // buffers and shared arrays
	vec4    map[*ir.Var]bool   // buffers declared array<vec4<T>> (see bufferUse.vec4)
	load4   map[*ir.Var]string // per-buffer 4-wide load and store helpers
	store4  map[*ir.Var]string
	cas     map[*ir.Var]string // per-array compare-exchange helpers
	params  string             // the uniform's struct type
	uniform string             // the uniform variable
}

// plan names k's globals.
func (e *emitter) plan(k *ir.Func, helpers []*ir.Func) (*kernelPlan, error) {
	p := &kernelPlan{
		f: k, helpers: helpers, use: useOf(k), globals: map[*ir.Var]string{}, vec4: map[*ir.Var]bool{},
		load4: map[*ir.Var]string{}, store4: map[*ir.Var]string{}, cas: map[*ir.Var]string{},
	}
	p.params = e.global.fresh(k.Name + "_Params")
	p.uniform = e.global.fresh(k.Name + "_params")
	vars := append([]*ir.Var{}, k.Params...)
	vars = append(vars, k.Shared...)
	for _, v := range vars {
		if v == nil {
			return nil, fmt.Errorf("%s: kernel %s has a nil parameter or shared array", k.Pos, k.Name)
		}
		switch t := v.Type.(type) {
		case *ir.Slice:
			if t.Elem == ir.Bool {
				return nil, fmt.Errorf("%s: buffer %s of bool; use uint32", v.Pos, v.Name)
			}
		case *ir.Array:
			if v.Class != ir.Shared {
				return nil, fmt.Errorf("%s: parameter %s is an array; pass a slice (a buffer)", v.Pos, v.Name)
			}
		case ir.Scalar:
			if v.Class == ir.Param && t == ir.Bool {
				return nil, fmt.Errorf("%s: parameter %s is a bool; pass a uint32", v.Pos, v.Name)
			}
			continue
		default:
			return nil, fmt.Errorf("%s: parameter %s of type %T cannot be passed to a kernel; pass buffers and scalars", v.Pos, v.Name, v.Type)
		}
		g := e.global.fresh(k.Name + "_" + v.Name)
		p.globals[v] = g
		if p.use.wide[v] {
			if p.use.vec4(v) {
				p.vec4[v] = true
			} else {
				p.load4[v] = e.global.fresh(g + "_load4")
				p.store4[v] = e.global.fresh(g + "_store4")
			}
		}
		if p.use.cas[v] {
			p.cas[v] = e.global.fresh(g + "_cas")
		}
	}
	return p, nil
}
