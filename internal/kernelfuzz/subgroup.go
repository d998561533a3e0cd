package kernelfuzz

import "fmt"

// subgroup writes, in the kernel's uniform prologue, a reduction of an
// input through a subgroup operation, finished across the group through a
// shared array (one partial per subgroup), and a shuffle of each thread's
// own lane, and adds both to the hash: the results are the same for any
// subgroup size. Its choices come from g.sr, not g.r, so that turning it on
// changes no other part of a seed's program (the repros' cases stay).
func (g *gen) subgroup(w *writer, block int) {
	var inputs []buffer
	for _, b := range g.buffers {
		if !b.output && !b.atomic {
			inputs = append(inputs, b)
		}
	}
	if len(inputs) == 0 {
		return
	}
	in := inputs[g.sr.IntN(len(inputs))]
	ops := []string{"Add", "Min", "Max"}
	if in.t == tF32 {
		ops = ops[1:] // a float sum's rounding depends on the order
	}
	op := ops[g.sr.IntN(len(ops))]
	t := in.t.goName()
	sh, v, r, a, j := g.fresh("sgsh"), g.fresh("sgv"), g.fresh("sgr"), g.fresh("sga"), g.fresh("sgj")
	w.line("%s := kernel.Shared[[%d]%s]()", sh, block, t)
	w.line("var %s %s", v, t)
	w.line("if i < n {")
	w.line("\t%s = %s[i]", v, in.name)
	w.line("}")
	w.line("%s := kernel.Subgroup%s(%s)", r, op, v)
	w.line("if kernel.SubgroupInvocationID() == 0 {")
	w.line("\t%s[kernel.ThreadX()/kernel.SubgroupSize()] = %s", sh, r)
	w.line("}")
	w.line("kernel.Barrier()")
	w.line("%s := %s[0]", a, sh)
	w.line("for %s := uint32(1); %s < %d/kernel.SubgroupSize(); %s++ {", j, j, block, j)
	if op == "Add" {
		w.line("\t%s += %s[%s]", a, sh, j)
	} else {
		w.line("\t%s = %s(%s, %s[%s])", a, map[string]string{"Min": "min", "Max": "max"}[op], a, sh, j)
	}
	w.line("}")
	shuffle := fmt.Sprintf("kernel.SubgroupShuffle(%s, kernel.SubgroupInvocationID()) - kernel.SubgroupShuffleXor(%s, 0)", v, v)
	if in.t == tF32 {
		w.line("%s += uint32(int32(%s)) + uint32(int32(%s))", g.hash, a, shuffle)
	} else {
		w.line("%s += uint32(%s) + uint32(%s)", g.hash, a, shuffle)
	}
}
