package naga

import "strings"

// naga's GLSL and SPIR-V writers zero a compute entry point's workgroup
// variables when each group starts: thread (0,0,0) stores zeros, then the
// whole group waits at a barrier. WGSL requires it; the kernel language does
// not (kernel.Shared: "its contents start undefined", as in CUDA, whose
// dialect has no such code), and it costs every group a serial store of
// every shared array and a barrier. These rewrites take it out again, where
// the code has exactly the form naga writes; any other form is left alone.

// SPIR-V opcodes of naga's zero-initialisation.
const (
	opConstantNull      = 46
	opStore             = 62
	opIEqual            = 170
	opControlBarrier    = 224
	opSelectionMerge    = 247
	opLabel             = 248
	opBranch            = 249
	opBranchConditional = 250
)

// glslSharedInit is the first line of naga's GLSL zero-initialisation, the
// first statement of main().
const glslSharedInit = "if (gl_LocalInvocationID == uvec3(0u)) {"

// dropSharedInitGLSL removes the zero-initialisation of workgroup variables
// from the start of main() in naga's GLSL: the If on gl_LocalInvocationID
// up to its closing brace at the same indentation, then
// memoryBarrierShared(); and barrier();.
func dropSharedInitGLSL(text string) string {
	lines := strings.SplitAfter(text, "\n")
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "void main() {" && i+1 < len(lines) && strings.TrimSpace(lines[i+1]) == glslSharedInit {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return text
	}
	indent := lines[start][:len(lines[start])-len(strings.TrimLeft(lines[start], " \t"))]
	for end := start + 1; end+2 < len(lines); end++ {
		if strings.TrimRight(lines[end], "\n") != indent+"}" {
			continue
		}
		if strings.TrimSpace(lines[end+1]) != "memoryBarrierShared();" || strings.TrimSpace(lines[end+2]) != "barrier();" {
			return text
		}
		return strings.Join(lines[:start], "") + strings.Join(lines[end+3:], "")
	}
	return text
}

// dropSharedInitSPIRV removes naga's zero-initialisation of workgroup
// variables from a module: in the entry point's first block,
//
//	%eq  = OpIEqual %v3bool %lid %null        (%null an OpConstantNull)
//	%all = OpAll %bool %eq
//	OpSelectionMerge %merge None
//	OpBranchConditional %all %init %merge
//	%init = OpLabel
//	OpStore ... (only stores)
//	OpBranch %merge
//	%merge = OpLabel
//	OpControlBarrier ...
//
// goes, so that the block runs on into what followed the barrier (the load
// of the local id it compared stays, unused). The first such sequence is
// removed; a module without one is returned unchanged.
func dropSharedInitSPIRV(blob []byte) ([]byte, error) {
	header, insts, err := splitSPIRV(blob)
	if err != nil {
		return nil, err
	}
	nulls := map[uint32]bool{}
	for _, in := range insts {
		if in.op() == opConstantNull && len(in) >= 3 {
			nulls[in[2]] = true
		}
	}
	for i := 0; i+8 < len(insts); i++ {
		eq := insts[i]
		if eq.op() != opIEqual || len(eq) != 5 || !nulls[eq[4]] {
			continue
		}
		all, merge, branch, label := insts[i+1], insts[i+2], insts[i+3], insts[i+4]
		if all.op() != opAll || len(all) != 4 || all[3] != eq[2] ||
			merge.op() != opSelectionMerge || len(merge) != 3 ||
			branch.op() != opBranchConditional || len(branch) < 4 || branch[1] != all[2] || branch[3] != merge[1] ||
			label.op() != opLabel || len(label) != 2 || label[1] != branch[2] {
			continue
		}
		j := i + 5
		for j < len(insts) && insts[j].op() == opStore {
			j++
		}
		if j+2 >= len(insts) || j == i+5 {
			continue
		}
		end, mergeLabel, barrier := insts[j], insts[j+1], insts[j+2]
		if end.op() != opBranch || len(end) != 2 || end[1] != merge[1] ||
			mergeLabel.op() != opLabel || len(mergeLabel) != 2 || mergeLabel[1] != merge[1] ||
			barrier.op() != opControlBarrier {
			continue
		}
		out := append(append([]spvInst(nil), insts[:i]...), insts[j+3:]...)
		return joinSPIRV(header, out), nil
	}
	return blob, nil
}
