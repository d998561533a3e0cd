package cuda

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// A LoadMatrices (kernel.LoadMatrices4 and 2) becomes a call of
// anygpu_ldsm_x4, _x2, _x4_trans or _x2_trans on the fragment (by
// reference, as MMA's), the shared array and the lane's word index. On
// sm_75 and newer the helper is one ldmatrix.sync.aligned.m8n8 on the
// address __cvta_generic_to_shared gives; on older devices each lane
// gathers the row addresses it needs from their lanes with __shfl_sync and
// reads its words. Only the warp takes part: no __syncthreads().
//
// A CopyAsync becomes anygpu_cp_async16 (cp.async.cg.shared.global, 16
// bytes, on sm_80 and newer; a uint4 copy on older devices), a
// CopyAsyncCommit cp.async.commit_group and a CopyAsyncWait(n)
// cp.async.wait_group n (nothing before sm_80).

// ldmHelpers adds the helpers of LoadMatrices and CopyAsync to the helper
// table.
func ldmHelpers(add func(name, format string, args ...any)) {
	p := helperPrefix
	for _, n := range []int{4, 2} {
		for _, trans := range []bool{false, true} {
			name := "ldsm_x" + strconv.Itoa(n)
			ptx := "ldmatrix.sync.aligned.m8n8.x" + strconv.Itoa(n)
			if trans {
				name += "_trans"
				ptx += ".trans"
			}
			ptx += ".shared.b16"
			var b strings.Builder
			fmt.Fprintf(&b, "// %s%s: kernel.LoadMatrices%d%s: lane l gives in at the word index in s of\n", p, name, n, map[bool]string{true: " (transposed)"}[trans])
			b.WriteString("// row l%8 of matrix l/8. Only the warp's 32 lanes take part.\n")
			fmt.Fprintf(&b, "__device__ __forceinline__ void %s%s(unsigned (&r)[%d], const unsigned *s, unsigned at) {\n", p, name, n)
			b.WriteString("#if __CUDA_ARCH__ >= 750\n")
			b.WriteString("\tconst unsigned a = (unsigned)__cvta_generic_to_shared(s + at);\n")
			regs, outs := make([]string, n), make([]string, n)
			for i := range n {
				regs[i] = "%" + strconv.Itoa(i)
				outs[i] = "\"=r\"(r[" + strconv.Itoa(i) + "])"
			}
			fmt.Fprintf(&b, "\tasm volatile(\"%s {%s}, [%%%d];\" : %s : \"r\"(a) : \"memory\");\n",
				ptx, strings.Join(regs, ", "), n, strings.Join(outs, ", "))
			b.WriteString("#else\n")
			b.WriteString("\tconst unsigned lane = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u;\n")
			b.WriteString("\tconst unsigned g = lane >> 2, t = lane & 3u;\n")
			b.WriteString("\t#pragma unroll\n")
			fmt.Fprintf(&b, "\tfor (unsigned i = 0; i < %du; i++) {\n", n)
			if !trans {
				b.WriteString("\t\tr[i] = s[__shfl_sync(0xffffffffu, at, (int)(8u * i + g)) + t]; // word t of row g\n")
			} else {
				b.WriteString("\t\t// column g of rows 2t and 2t+1: half g%2 of word g/2\n")
				b.WriteString("\t\tconst unsigned r0 = __shfl_sync(0xffffffffu, at, (int)(8u * i + 2u * t));\n")
				b.WriteString("\t\tconst unsigned r1 = __shfl_sync(0xffffffffu, at, (int)(8u * i + 2u * t + 1u));\n")
				b.WriteString("\t\tconst unsigned sh = (g & 1u) << 4, w = g >> 1;\n")
				b.WriteString("\t\tr[i] = ((s[r0 + w] >> sh) & 0xffffu) | (((s[r1 + w] >> sh) & 0xffffu) << 16);\n")
			}
			b.WriteString("\t}\n#endif\n}\n")
			add(name, "%s", b.String())
		}
	}
	add("cp_async16", "// %scp_async16: kernel.CopyAsync of 16 bytes from global s to shared d.\n"+
		"__device__ __forceinline__ void %scp_async16(unsigned *d, const void *s) {\n"+
		"#if __CUDA_ARCH__ >= 800\n"+
		"\tasm volatile(\"cp.async.cg.shared.global [%%0], [%%1], 16;\" : : \"r\"((unsigned)__cvta_generic_to_shared(d)), \"l\"(s) : \"memory\");\n"+
		"#else\n"+
		"\t*reinterpret_cast<uint4*>(d) = *reinterpret_cast<const uint4*>(s);\n"+
		"#endif\n}\n", p, p)
	add("cp_async_commit", "__device__ __forceinline__ void %scp_async_commit() {\n"+
		"#if __CUDA_ARCH__ >= 800\n"+
		"\tasm volatile(\"cp.async.commit_group;\" : : : \"memory\");\n"+
		"#endif\n}\n", p)
	add("cp_async_wait", "template <int N> __device__ __forceinline__ void %scp_async_wait() {\n"+
		"#if __CUDA_ARCH__ >= 800\n"+
		"\tasm volatile(\"cp.async.wait_group %%0;\" : : \"n\"(N) : \"memory\");\n"+
		"#endif\n}\n", p)
}

// loadMatrices appends the call of s's helper.
func (fe *funcEmitter) loadMatrices(b *strings.Builder, s *ir.LoadMatrices, depth int) error {
	if !fe.f.Kernel {
		return malformed(s.Pos, "LoadMatrices in helper %s", fe.f.Name)
	}
	if s.Frag == nil || s.Src == nil || s.Src.Var == nil || s.At == nil || (s.N != 2 && s.N != 4) {
		return malformed(s.Pos, "LoadMatrices without its operands")
	}
	if at, ok := s.Frag.ExprType().(*ir.Array); !ok || at.Elem != ir.U32 || at.Len != s.N {
		return malformed(s.Pos, "LoadMatrices fragment of type %v", s.Frag.ExprType())
	}
	if at, ok := s.Src.Var.Type.(*ir.Array); !ok || at.Elem != ir.U32 || s.Src.Var.Class != ir.Shared {
		return malformed(s.Pos, "LoadMatrices from %s, not a shared uint32 array", s.Src.Var.Name)
	}
	frag, err := fe.expr(s.Frag)
	if err != nil {
		return err
	}
	src, err := fe.ref(s.Src)
	if err != nil {
		return err
	}
	at, err := fe.expr(s.At)
	if err != nil {
		return err
	}
	name := "ldsm_x" + strconv.Itoa(s.N)
	if s.Trans {
		name += "_trans"
	}
	h, err := fe.helper(name, s.Pos)
	if err != nil {
		return err
	}
	line(b, depth, h+"("+bare(frag)+", "+src+", "+bare(at)+");")
	return nil
}

// copyAsync appends the call of anygpu_cp_async16 for s.
func (fe *funcEmitter) copyAsync(b *strings.Builder, s *ir.CopyAsync, depth int) error {
	if s.Dst == nil || s.Dst.Var == nil || s.Src == nil || s.Src.Var == nil || s.DstIndex == nil || s.SrcIndex == nil {
		return malformed(s.Pos, "CopyAsync without its operands")
	}
	if at, ok := s.Dst.Var.Type.(*ir.Array); !ok || at.Elem != ir.U32 || s.Dst.Var.Class != ir.Shared {
		return malformed(s.Pos, "CopyAsync to %s, not a shared uint32 array", s.Dst.Var.Name)
	}
	if sl, ok := s.Src.Var.Type.(*ir.Slice); !ok || (sl.Elem != ir.F32 && sl.Elem != ir.U32) {
		return malformed(s.Pos, "CopyAsync from %s, not a float32 or uint32 buffer", s.Src.Var.Name)
	}
	dst, err := fe.ref(s.Dst)
	if err != nil {
		return err
	}
	src, err := fe.ref(s.Src)
	if err != nil {
		return err
	}
	dv, err := fe.expr(s.DstIndex)
	if err != nil {
		return err
	}
	sv, err := fe.expr(s.SrcIndex)
	if err != nil {
		return err
	}
	h, err := fe.helper("cp_async16", s.Pos)
	if err != nil {
		return err
	}
	line(b, depth, h+"("+dst+" + 4u * ("+bare(dv)+"), reinterpret_cast<const uint4*>("+src+") + ("+bare(sv)+"));")
	return nil
}

// copyAsyncSync appends a CopyAsyncCommit or CopyAsyncWait.
func (fe *funcEmitter) copyAsyncSync(b *strings.Builder, s ir.Stmt, depth int) error {
	switch s := s.(type) {
	case *ir.CopyAsyncCommit:
		h, err := fe.helper("cp_async_commit", s.Pos)
		if err != nil {
			return err
		}
		line(b, depth, h+"();")
	case *ir.CopyAsyncWait:
		if s.N < 0 || s.N > 7 {
			return malformed(s.Pos, "CopyAsyncWait(%d)", s.N)
		}
		h, err := fe.helper("cp_async_wait", s.Pos)
		if err != nil {
			return err
		}
		line(b, depth, h+"<"+strconv.Itoa(s.N)+">();")
	}
	return nil
}
