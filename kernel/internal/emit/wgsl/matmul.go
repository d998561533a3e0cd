package wgsl

import (
	"fmt"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// matMul emits a MatMulAdd as the portable loop: between two barriers, the
// group's threads take C's elements in turn (a thread every group size
// elements), and each adds to its element the dot product of A's row and
// B's column from shared memory, in k order, with the operands rounded to
// the precision.
func (c *fctx) matMul(s *ir.MatMulAdd) {
	if c.plan == nil {
		c.fail(s.Pos, "kernel.MatMulAdd in a helper function; call it in the kernel")
		return
	}
	if s.C == nil || s.A == nil || s.B == nil {
		c.fail(s.Pos, "kernel.MatMulAdd without its arrays")
		return
	}
	round := func(x string) string { return x }
	switch s.Precision {
	case ir.PrecisionBFloat16:
		c.need("ag_round_bf16")
		round = func(x string) string { return "ag_round_bf16(" + x + ")" }
	case ir.PrecisionFloat16:
		c.need("ag_round_f16")
		round = func(x string) string { return "ag_round_f16(" + x + ")" }
	}
	cn, an, bn := c.name(s.C.Var), c.name(s.A.Var), c.name(s.B.Var)
	bAt := fmt.Sprintf("ag_mm_k * %du + ag_mm_j", s.LDB)
	if s.TransposeB {
		bAt = fmt.Sprintf("ag_mm_j * %du + ag_mm_k", s.LDB)
	}
	c.line("// kernel.MatMulAdd: %s += %s·%s (%d×%d×%d)", cn, an, bn, s.M, s.N, s.K)
	c.line("storageBarrier();")
	c.line("workgroupBarrier();")
	c.line("for (var ag_mm_e: u32 = ag_lidx; ag_mm_e < %du; ag_mm_e += ag_bs.x * ag_bs.y * ag_bs.z) {", s.M*s.N)
	c.line("\tlet ag_mm_i = ag_mm_e / %du;", s.N)
	c.line("\tlet ag_mm_j = ag_mm_e - ag_mm_i * %du;", s.N)
	c.line("\tvar ag_mm_s = %s[ag_mm_i * %du + ag_mm_j];", cn, s.LDC)
	c.line("\tfor (var ag_mm_k: u32 = 0u; ag_mm_k < %du; ag_mm_k++) {", s.K)
	c.line("\t\tag_mm_s += %s * %s;", round(fmt.Sprintf("%s[ag_mm_i * %du + ag_mm_k]", an, s.LDA)), round(fmt.Sprintf("%s[%s]", bn, bAt)))
	c.line("\t}")
	c.line("\t%s[ag_mm_i * %du + ag_mm_j] = ag_mm_s;", cn, s.LDC)
	c.line("}")
	c.line("workgroupBarrier();")
}
