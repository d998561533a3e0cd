package cuda

import (
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// CUDA runs the subgroup operations as warp intrinsics: a subgroup is a
// warp of 32 threads, consecutive by linear thread index, which the
// language's contract (all threads of the group call the operation
// together, and the group is a whole number of subgroups) makes full, so
// every mask is 0xffffffff. The reductions are butterflies of
// __shfl_xor_sync, whose every lane ends with the same value (the pairs
// added are the same in every lane).

// warpSize is CUDA's subgroup size.
const warpSize = "32u"

// subgroup writes a subgroup operation (arity already checked).
func (fe *funcEmitter) subgroup(x *ir.CallBuiltin) (string, error) {
	switch x.Builtin {
	case ir.SubgroupSize:
		return warpSize, nil
	case ir.SubgroupInvocationID:
		return "(" + ids[ir.ThreadIndex] + " & 31u)", nil
	}
	t, ok := x.Type.(ir.Scalar)
	if !ok || (t != ir.I32 && t != ir.U32 && t != ir.F32) {
		return "", malformed(x.Pos, "%v of type %v", x.Builtin, x.Type)
	}
	args, err := fe.exprs(x.Args)
	if err != nil {
		return "", err
	}
	switch x.Builtin {
	case ir.SubgroupShuffle:
		return "__shfl_sync(0xffffffffu, " + args[0] + ", (int)(" + args[1] + "))", nil
	case ir.SubgroupShuffleXor:
		return "__shfl_xor_sync(0xffffffffu, " + args[0] + ", (int)(" + args[1] + "))", nil
	case ir.SubgroupBroadcastFirst:
		return "__shfl_sync(0xffffffffu, " + args[0] + ", 0)", nil
	case ir.SubgroupMin, ir.SubgroupMax:
		// The reduction helper calls Go's min or max of the type.
		op := strings.ToLower(strings.TrimPrefix(x.Builtin.String(), "Subgroup"))
		if _, err := fe.helper(op+"_"+suffixes[t], x.Pos); err != nil {
			return "", err
		}
		h, err := fe.helper("sg_"+op+"_"+suffixes[t], x.Pos)
		return h + "(" + args[0] + ")", err
	case ir.SubgroupAdd:
		h, err := fe.helper("sg_add_"+suffixes[t], x.Pos)
		return h + "(" + args[0] + ")", err
	}
	return "", malformed(x.Pos, "subgroup operation %v", x.Builtin)
}
