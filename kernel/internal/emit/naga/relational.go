package naga

import (
	"fmt"

	"github.com/gogpu/naga/ir"
)

// naga v0.19.0's SPIR-V writer has no all() or any() (ir.ExprRelational),
// which SPIR-V has as OpAll and OpAny and the WGSL emitter uses for vector
// equality. markRelational writes each as an element access of its vector
// with a marker index no vector has, which naga writes as OpCompositeExtract;
// restoreRelational turns those back into OpAll and OpAny.
const (
	markerAll = 0x7a11a110 // OpCompositeExtract %bool %v markerAll is OpAll %bool %v
	markerAny = 0x7a11a111 // ... markerAny is OpAny %bool %v

	opCompositeExtract = 81
	opAny              = 154
	opAll              = 155
)

// markRelational replaces the module's all() and any() with marked element
// accesses; isNan and isInf, which the SPIR-V writer lacks too, and all() or
// any() of a scalar, are refused.
func markRelational(mod *ir.Module) error {
	fns := make([]*ir.Function, 0, len(mod.Functions)+len(mod.EntryPoints))
	for i := range mod.Functions {
		fns = append(fns, &mod.Functions[i])
	}
	for i := range mod.EntryPoints {
		fns = append(fns, &mod.EntryPoints[i].Function)
	}
	for _, f := range fns {
		for h, e := range f.Expressions {
			rel, ok := e.Kind.(ir.ExprRelational)
			if !ok {
				continue
			}
			var marker uint32
			switch rel.Fun {
			case ir.RelationalAll:
				marker = markerAll
			case ir.RelationalAny:
				marker = markerAny
			default:
				return fmt.Errorf("naga cannot write isNan or isInf to SPIR-V; test the float's bits instead")
			}
			if !isVector(mod, f, rel.Argument) {
				return fmt.Errorf("all() or any() of a scalar bool; use the bool itself")
			}
			f.Expressions[h].Kind = ir.ExprAccessIndex{Base: rel.Argument, Index: marker}
		}
	}
	return nil
}

// isVector reports whether expression h of f is a vector.
func isVector(mod *ir.Module, f *ir.Function, h ir.ExpressionHandle) bool {
	if int(h) >= len(f.ExpressionTypes) {
		return false
	}
	res := f.ExpressionTypes[h]
	inner := res.Value
	if res.Handle != nil && int(*res.Handle) < len(mod.Types) {
		inner = mod.Types[*res.Handle].Inner
	}
	_, ok := inner.(ir.VectorType)
	return ok
}

// restoreRelational turns the marked OpCompositeExtracts of markRelational
// into OpAll and OpAny.
func restoreRelational(blob []byte) ([]byte, error) {
	header, insts, err := splitSPIRV(blob)
	if err != nil {
		return nil, err
	}
	for i, in := range insts {
		if in.op() != opCompositeExtract || len(in) != 5 {
			continue
		}
		switch in[4] {
		case markerAll:
			insts[i] = inst(opAll, in[1], in[2], in[3])
		case markerAny:
			insts[i] = inst(opAny, in[1], in[2], in[3])
		}
	}
	return joinSPIRV(header, insts), nil
}
