package wgsl

import (
	"fmt"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// matMul emits a MatMulAdd as the portable loop: between two barriers, the
// group's threads take C's elements in turn (a thread every group size
// elements), and each adds to its element the dot product of A's row and
// B's column from shared memory (from the buffers, for a MatMulAddFrom), in
// k order, with the operands rounded to the precision.
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
	what := "kernel.MatMulAdd"
	lda, ldb := fmt.Sprintf("%du", s.LDA), fmt.Sprintf("%du", s.LDB)
	aAt := func(i string) string { return an + "[" + i + "]" }
	bAt := func(i string) string { return bn + "[" + i + "]" }
	if s.From != nil {
		// A and B from buffers: the group's offsets and strides, computed
		// once before the loop (they are uniform).
		what = "kernel.MatMulAddFrom"
		lda, ldb = "ag_mm_lda", "ag_mm_ldb"
		aAt = func(i string) string { return c.mmElem(s.A.Var, "ag_mm_aoff + "+i) }
		bAt = func(i string) string { return c.mmElem(s.B.Var, "ag_mm_boff + "+i) }
	}
	bIdx := fmt.Sprintf("ag_mm_k * %s + ag_mm_j", ldb)
	if s.TransposeB {
		bIdx = fmt.Sprintf("ag_mm_j * %s + ag_mm_k", ldb)
	}
	c.line("// %s: %s += %s·%s (%d×%d×%d)", what, cn, an, bn, s.M, s.N, s.K)
	c.line("storageBarrier();")
	c.line("workgroupBarrier();")
	c.line("{")
	c.depth++
	if s.From != nil {
		names := []string{"ag_mm_aoff", "ag_mm_lda", "ag_mm_boff", "ag_mm_ldb"}
		for i, x := range s.From.Exprs() {
			c.line("let %s: u32 = %s;", names[i], c.expr(x))
		}
	}
	c.line("for (var ag_mm_e: u32 = ag_lidx; ag_mm_e < %du; ag_mm_e += ag_bs.x * ag_bs.y * ag_bs.z) {", s.M*s.N)
	c.line("\tlet ag_mm_i = ag_mm_e / %du;", s.N)
	c.line("\tlet ag_mm_j = ag_mm_e - ag_mm_i * %du;", s.N)
	c.line("\tvar ag_mm_s = %s[ag_mm_i * %du + ag_mm_j];", cn, s.LDC)
	c.line("\tfor (var ag_mm_k: u32 = 0u; ag_mm_k < %du; ag_mm_k++) {", s.K)
	c.line("\t\tag_mm_s += %s * %s;", round(aAt(fmt.Sprintf("ag_mm_i * %s + ag_mm_k", lda))), round(bAt(bIdx)))
	c.line("\t}")
	c.line("\t%s[ag_mm_i * %du + ag_mm_j] = ag_mm_s;", cn, s.LDC)
	c.line("}")
	c.depth--
	c.line("}")
	c.line("workgroupBarrier();")
}

// mmElem is element i (a u32 expression) of buffer v, which the module
// declares as an array of f32 or, for Load4 and Store4, of vec4<f32>.
func (c *fctx) mmElem(v *ir.Var, i string) string {
	g := c.name(v)
	if c.plan != nil && c.plan.vec4[v] {
		return fmt.Sprintf("%s[(%s) >> 2u][(%s) & 3u]", g, i, i)
	}
	return g + "[" + i + "]"
}
