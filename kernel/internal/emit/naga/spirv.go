package naga

import (
	"fmt"
	"slices"

	"github.com/gogpu/naga/ir"
	"github.com/gogpu/naga/spirv"
)

// spirvVersion is the SPIR-V version of the modules: 1.3, the newest that
// Vulkan 1.1 (backend/vulkan's minimum) accepts (see keepSPIRV13 for the
// modules naga makes 1.4).
var spirvVersion = spirv.Version1_3

// entryPointName is the entry point of every module SPIRV returns: what
// backend/vulkan expects of Source.SPIRVKernels.
const entryPointName = "main"

// SPIRV compiles each kernel's WGSL module (see the package doc for their
// form) to a SPIR-V 1.3 module for Source.SPIRVKernels: one GLCompute entry
// point "main", the work-group size as specialization constants SpecId 0, 1
// and 2 (the module's anygpu_block_* values their defaults), buffers at set 0
// bindings 0..n-1 and the scalars' uniform block at binding n. The bytes are
// the same for the same modules.
func SPIRV(modules map[string]string) (map[string][]byte, error) {
	mods, err := readModules(modules)
	if err != nil {
		return nil, fmt.Errorf("naga: spir-v: %w", err)
	}
	out := make(map[string][]byte, len(mods))
	for _, m := range mods {
		blob, err := translate(m, func(text string, s [3]uint32) ([]byte, error) {
			return m.spirv(text, s)
		})
		if err != nil {
			return nil, fmt.Errorf("naga: spir-v: %w", err)
		}
		out[m.name] = blob
	}
	return out, nil
}

// spirv translates one variant of the module (block values s) and makes its
// work-group size specializable.
func (m *kernelModule) spirv(text string, s [3]uint32) ([]byte, error) {
	mod, err := m.lower(text)
	if err != nil {
		return nil, err
	}
	mod.EntryPoints[0].Name = entryPointName
	if err := initBlockVars(mod, s); err != nil {
		return nil, fmt.Errorf("kernel %q: %w", m.name, err)
	}
	if err := markRelational(mod); err != nil {
		return nil, fmt.Errorf("kernel %q: %w", m.name, err)
	}
	opts := spirv.DefaultOptions()
	opts.Version = spirvVersion
	// No loop-bounding counters: they are naga's guard against infinite loops
	// in untrusted shaders, and they stop drivers from unrolling a kernel's
	// constant loops (register tiles then spill to memory). A kernel's loop
	// is its author's, as in CUDA; the MSL has none either.
	opts.ForceLoopBounding = false
	blob, err := spirv.NewBackend(opts).Compile(mod)
	if err != nil {
		return nil, fmt.Errorf("kernel %q: naga cannot write SPIR-V: %w", m.name, err)
	}
	if blob, err = restoreRelational(blob); err != nil {
		return nil, fmt.Errorf("kernel %q: %w", m.name, err)
	}
	if blob, err = relaxAtomics(blob); err != nil {
		return nil, fmt.Errorf("kernel %q: %w", m.name, err)
	}
	if blob, err = keepSPIRV13(blob); err != nil {
		return nil, fmt.Errorf("kernel %q: %w", m.name, err)
	}
	if blob, err = dropSharedInitSPIRV(blob); err != nil {
		return nil, fmt.Errorf("kernel %q: %w", m.name, err)
	}
	blob, err = specializeBlock(blob, s, m.block)
	if err != nil {
		return nil, fmt.Errorf("kernel %q: making the work-group size specializable: %w", m.name, err)
	}
	return blob, nil
}

// initBlockVars gives the block variables of withBlock the initialisers
// naga's SPIR-V writer reads (GlobalVariable.Init, a constant; v0.19.0's WGSL
// lowering sets only InitExpr, and the SPIR-V would leave them 0): u32
// constants of the sentinels s, which specializeBlock then turns into the
// specialization constants.
func initBlockVars(mod *ir.Module, s [3]uint32) error {
	for i := range mod.GlobalVariables {
		g := &mod.GlobalVariables[i]
		k := slices.Index(blockConstNames[:], g.Name)
		if k < 0 || g.Init != nil {
			continue
		}
		if g.Space != ir.SpacePrivate {
			return fmt.Errorf("%s is not a private variable", g.Name)
		}
		mod.Constants = append(mod.Constants, ir.Constant{Type: g.Type, Value: ir.ScalarValue{Bits: uint64(s[k]), Kind: ir.ScalarUint}})
		h := ir.ConstantHandle(len(mod.Constants) - 1)
		g.Init = &h
	}
	return nil
}
