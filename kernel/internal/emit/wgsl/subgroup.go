package wgsl

import "github.com/anygpu/gpu/kernel/internal/ir"

// A kernel whose module still has subgroup operations (opt.KeepSubgroups
// ran, not opt.Portable) is emitted with WGSL's subgroups: the module
// starts with "enable subgroups;", the entry point takes the subgroup_size
// and subgroup_invocation_id built-ins, and the operations are WGSL's
// subgroup built-in functions, except the float SubgroupMin and SubgroupMax:
// Go's min and max (NaN if any is NaN, -0 below +0) are not what a device's
// subgroupMin of floats promises, so they are a butterfly of
// subgroupShuffleXor through the Go min or max, which gives every lane the
// same value (min and max are associative and commutative). SubgroupShuffle
// and SubgroupShuffleXor need the shuffle operations, SubgroupAdd and the
// integer SubgroupMin and SubgroupMax the arithmetic ones, and
// SubgroupBroadcastFirst the ballot ones (SPIR-V's GroupNonUniform*
// capabilities, which a backend checks against the device).

// enableSubgroups is the directive a module with subgroup operations starts
// with (after the header comment).
const enableSubgroups = "enable subgroups;\n"

// subgroupParams are the entry point's built-in parameters of a kernel with
// subgroup operations.
const subgroupParams = "@builtin(subgroup_size) ag_sgsize: u32, @builtin(subgroup_invocation_id) ag_sglane: u32"

// usesSubgroups reports whether kernel k is emitted with subgroups.
func usesSubgroups(k *ir.Func) bool { return k != nil && k.Features&ir.Subgroup != 0 }

// subgroup writes a subgroup operation.
func (c *fctx) subgroup(e *ir.CallBuiltin) string {
	if c.plan == nil {
		c.fail(e.Pos, "%v in a helper; call subgroup operations in the kernel itself", e.Builtin)
		return "ag_invalid"
	}
	switch e.Builtin {
	case ir.SubgroupSize:
		return "ag_sgsize"
	case ir.SubgroupInvocationID:
		return "ag_sglane"
	}
	argc := 1
	if e.Builtin == ir.SubgroupShuffle || e.Builtin == ir.SubgroupShuffleXor {
		argc = 2
	}
	if len(e.Args) != argc {
		c.fail(e.Pos, "%s takes %d arguments, not %d", e.Builtin, argc, len(e.Args))
		return "ag_invalid"
	}
	for _, a := range e.Args {
		if a == nil {
			c.fail(e.Pos, "%s of nothing", e.Builtin)
			return "ag_invalid"
		}
	}
	t, _ := e.Args[0].ExprType().(ir.Scalar)
	if t != ir.I32 && t != ir.U32 && t != ir.F32 {
		c.fail(e.Pos, "%s of %v; subgroup operations take int32, uint32 or float32", e.Builtin, e.Args[0].ExprType())
		return "ag_invalid"
	}
	x := c.expr(e.Args[0])
	switch e.Builtin {
	case ir.SubgroupAdd:
		return "subgroupAdd(" + x + ")"
	case ir.SubgroupMin, ir.SubgroupMax:
		name := map[ir.Builtin]string{ir.SubgroupMin: "Min", ir.SubgroupMax: "Max"}[e.Builtin]
		if t == ir.F32 {
			h := "ag_sg_" + map[ir.Builtin]string{ir.SubgroupMin: "min", ir.SubgroupMax: "max"}[e.Builtin] + "_f32"
			c.need(h)
			return h + "(" + x + ", ag_sgsize)"
		}
		return "subgroup" + name + "(" + x + ")"
	case ir.SubgroupShuffle:
		return "subgroupShuffle(" + x + ", " + c.asU32(e.Args[1]) + ")"
	case ir.SubgroupShuffleXor:
		return "subgroupShuffleXor(" + x + ", " + c.asU32(e.Args[1]) + ")"
	case ir.SubgroupBroadcastFirst:
		return "subgroupBroadcastFirst(" + x + ")"
	}
	c.fail(e.Pos, "subgroup operation %v", e.Builtin)
	return "ag_invalid"
}
