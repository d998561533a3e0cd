package front

import (
	"go/ast"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// subgroupBuiltins are the subgroup operations.
var subgroupBuiltins = map[string]ir.Builtin{
	"SubgroupSize": ir.SubgroupSize, "SubgroupInvocationID": ir.SubgroupInvocationID,
	"SubgroupAdd": ir.SubgroupAdd, "SubgroupMin": ir.SubgroupMin, "SubgroupMax": ir.SubgroupMax,
	"SubgroupShuffle": ir.SubgroupShuffle, "SubgroupShuffleXor": ir.SubgroupShuffleXor,
	"SubgroupBroadcastFirst": ir.SubgroupBroadcastFirst,
}

// subgroup lowers kernel.Subgroup*(...). Like Barrier, a subgroup operation
// belongs to the kernel (checkUniform then sees every one); its lane
// argument has no effects, since the size-1 fallback drops it.
func (f *fnLower) subgroup(e *ast.CallExpr, name string, b ir.Builtin) ir.Expr {
	p := f.pos(e)
	if !f.fn.Kernel {
		f.errorf(e, "do it in the kernel and pass the result to the helper", "kernel.%s in a helper is not allowed", name)
		return bad(p)
	}
	f.fn.Features |= ir.Subgroup
	if b == ir.SubgroupSize || b == ir.SubgroupInvocationID {
		return &ir.CallBuiltin{Builtin: b, Type: ir.U32, Pos: p}
	}
	t := f.l.quietType(f.typeOf(e))
	args := make([]ir.Expr, len(e.Args))
	for i, a := range e.Args {
		args[i] = f.expr(a)
	}
	if len(args) == 2 {
		args[1] = convert(args[1], ir.U32)
		effects := false
		ir.WalkExpr(args[1], func(x ir.Expr) {
			if _, ok := x.(*ir.Atomic); ok {
				effects = true
			}
		})
		if effects {
			f.errorf(e.Args[1], "do the atomic in a statement before and pass its result",
				"an atomic in the lane argument of kernel.%s is not allowed", name)
			return bad(p)
		}
	}
	if t == nil || len(args) == 0 {
		return bad(p)
	}
	args[0] = convert(args[0], t)
	return &ir.CallBuiltin{Builtin: b, Args: args, Type: t, Pos: p}
}
