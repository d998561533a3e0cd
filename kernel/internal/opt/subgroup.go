package opt

import "github.com/anygpu/gpu/kernel/internal/ir"

// subgroupFallback replaces f's subgroup operations by their results for a
// subgroup of one thread, which the language's contract (package kernel's
// subgroup.go) makes correct: SubgroupSize is 1, SubgroupInvocationID 0, and
// a reduction, shuffle or broadcast yields the thread's own value (a lane
// argument has no effects: the front end checks it).
func subgroupFallback(f *ir.Func) {
	f.Body = mapStmts(f.Body, func(e ir.Expr) ir.Expr {
		b, ok := e.(*ir.CallBuiltin)
		if !ok || !b.Builtin.IsSubgroup() {
			return e
		}
		switch b.Builtin {
		case ir.SubgroupSize:
			return &ir.Const{Type: ir.U32, Uint: 1, Pos: b.Pos}
		case ir.SubgroupInvocationID:
			return &ir.Const{Type: ir.U32, Uint: 0, Pos: b.Pos}
		}
		if len(b.Args) == 0 {
			return e
		}
		return b.Args[0]
	}, nil)
	f.Features &^= ir.Subgroup
}
