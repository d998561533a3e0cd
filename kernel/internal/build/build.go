// Package build assembles the dialects of a translated module into one
// backend.Source: CUDA C++ from the CUDA emitter, WGSL from the WGSL
// emitter, and SPIR-V, GLSL, GLSL ES and MSL from the WGSL emitter's native
// modules through naga. The Go for the CPU backend is the caller's: compiled
// Go in a generated file, or the closure compiler at run time.
package build

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/emit/cuda"
	"github.com/anygpu/gpu/kernel/internal/emit/naga"
	"github.com/anygpu/gpu/kernel/internal/emit/wgsl"
	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/anygpu/gpu/kernel/internal/opt"
)

// Source returns every dialect of m but Go, with Params from the kernels'
// signatures, named name. It rewrites m for the dialects after CUDA
// (opt.Portable), which the CPU's Go takes too. Kernels a dialect cannot express (float64 on
// WebGPU, say) are left out of that dialect; Unsupported says why, by
// dialect and kernel.
func Source(name string, m *ir.Module) (backend.Source, Unsupported, error) {
	src := backend.Source{Name: name, Params: map[string][]backend.ArgKind{}}
	for _, k := range m.Kernels() {
		kinds, err := Params(k)
		if err != nil {
			return src, nil, err
		}
		src.Params[k.Name] = kinds
	}
	var err error
	if src.CUDA, err = cuda.Emit(m); err != nil {
		return src, nil, err
	}
	// The dialects with real subgroups get float16 in words; the kernels
	// with subgroup operations get a variant of their own in them.
	if err := opt.KeepSubgroups(m); err != nil {
		return src, nil, err
	}
	if src.Subgroups, err = subgroupSource(name, m); err != nil {
		return src, nil, err
	}
	// Every other dialect gets subgroups of one thread.
	if err := opt.Portable(m); err != nil {
		return src, nil, err
	}
	w, err := wgsl.Emit(m)
	if err != nil {
		return src, nil, err
	}
	src.WGSL = w.All
	unsupported := Unsupported{}
	for k, why := range w.Unsupported {
		if src.Unsupported == nil {
			src.Unsupported = map[string]string{}
		}
		src.Unsupported[k] = fmt.Sprintf("kernel %s is not in the WGSL, SPIR-V, GLSL and MSL dialects: %s; it runs on CUDA and the CPU", k, why)
		unsupported.add("WGSL", k, why)
		unsupported.add("SPIR-V", k, why)
		unsupported.add("GLSL", k, why)
		unsupported.add("MSL", k, why)
	}
	if len(w.Native) > 0 {
		if src.SPIRVKernels, err = naga.SPIRV(w.Native); err != nil {
			return src, nil, fmt.Errorf("spir-v: %w", err)
		}
		if src.GLSL, err = naga.GLSL(w.Native); err != nil {
			return src, nil, fmt.Errorf("glsl: %w", err)
		}
		if src.GLSLES, err = naga.GLSLES(w.Native); err != nil {
			return src, nil, fmt.Errorf("glsl es: %w", err)
		}
		if src.MSL, err = naga.MSL(w.Native); err != nil {
			return src, nil, fmt.Errorf("msl: %w", err)
		}
	}
	return src, unsupported, nil
}

// Unsupported lists, by dialect then kernel, why a kernel is missing from
// a dialect.
type Unsupported map[string]map[string]string

func (u Unsupported) add(dialect, kernel, why string) {
	if u[dialect] == nil {
		u[dialect] = map[string]string{}
	}
	u[dialect][kernel] = why
}

// String lists every entry, one per line, sorted.
func (u Unsupported) String() string {
	var b strings.Builder
	for _, d := range slices.Sorted(maps.Keys(u)) {
		for _, k := range slices.Sorted(maps.Keys(u[d])) {
			fmt.Fprintf(&b, "%s: %s: %s\n", d, k, u[d][k])
		}
	}
	return b.String()
}

// Params is a kernel's parameter kinds, in order: buffers for slices, the
// scalar kinds for scalars.
func Params(k *ir.Func) ([]backend.ArgKind, error) {
	kinds := make([]backend.ArgKind, len(k.Params))
	for i, p := range k.Params {
		switch t := p.Type.(type) {
		case *ir.Slice:
			kinds[i] = backend.ArgBuffer
		case ir.Scalar:
			switch t {
			case ir.I32:
				kinds[i] = backend.ArgI32
			case ir.U32:
				kinds[i] = backend.ArgU32
			case ir.F32:
				kinds[i] = backend.ArgF32
			case ir.I64:
				kinds[i] = backend.ArgI64
			case ir.U64:
				kinds[i] = backend.ArgU64
			case ir.F64:
				kinds[i] = backend.ArgF64
			default:
				return nil, fmt.Errorf("%s: parameter %s of kernel %s has type %s, which a kernel cannot take; pass a uint32",
					p.Pos, p.Name, k.Name, t)
			}
		default:
			return nil, fmt.Errorf("%s: parameter %s of kernel %s is not a slice or a scalar", p.Pos, p.Name, k.Name)
		}
	}
	return kinds, nil
}
