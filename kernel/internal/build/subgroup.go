package build

import (
	"fmt"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/emit/naga"
	"github.com/anygpu/gpu/kernel/internal/emit/wgsl"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// subgroupSource returns backend.Source.Subgroups for m (rewritten by
// opt.KeepSubgroups): the WGSL, SPIR-V, GLSL and GLSL ES of the kernels that
// use subgroup operations, with the operations kept (MSL is left out: the
// Metal backend runs those kernels with subgroups of one). It is nil when no
// kernel uses them. A kernel that WGSL cannot express at all is not in it
// either (Source.Unsupported says why).
func subgroupSource(name string, m *ir.Module) (*backend.Source, error) {
	sub := &ir.Module{}
	n := 0
	for _, f := range m.Funcs {
		if f == nil {
			continue
		}
		if f.Kernel && f.Features&ir.Subgroup == 0 {
			continue // only the kernels with subgroup operations
		}
		if f.Kernel {
			n++
		}
		sub.Funcs = append(sub.Funcs, f) // the helpers: the emitter writes those the kernels call
	}
	if n == 0 {
		return nil, nil
	}
	w, err := wgsl.Emit(sub)
	if err != nil {
		return nil, fmt.Errorf("subgroups: %w", err)
	}
	if len(w.Native) == 0 {
		return nil, nil
	}
	src := &backend.Source{Name: name, WGSL: w.All}
	if src.SPIRVKernels, err = naga.SPIRV(w.Native); err != nil {
		return nil, fmt.Errorf("subgroups: spir-v: %w", err)
	}
	if src.GLSL, err = naga.GLSL(w.Native); err != nil {
		return nil, fmt.Errorf("subgroups: glsl: %w", err)
	}
	if src.GLSLES, err = naga.GLSLES(w.Native); err != nil {
		return nil, fmt.Errorf("subgroups: glsl es: %w", err)
	}
	return src, nil
}
