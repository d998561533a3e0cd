package cuda

import (
	"fmt"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// An MMA (kernel.MMA) becomes a call of anygpu_mma_bf16 or anygpu_mma_f16
// on the kernel's local arrays, which the helpers take by reference (float
// (&c)[4], ...) and which are inlined: with the indices constants (the
// loops around unrolled), the fragments stay in registers. On sm_80 and
// newer the helper is one mma.sync.aligned.m16n8k16.row.col.f32 with "+f"
// for C and "r" for A and B; on older devices each lane gathers, with
// __shfl_sync, the words of its rows of A and columns of B from the lanes
// that hold them and adds the products in k order. Either way only the 32
// lanes of the warp take part: no __syncthreads().
//
// PackHalves becomes anygpu_pack_bf16 or anygpu_pack_f16: cvt.rn.bf16x2.f32
// or cvt.rn.f16x2.f32 on sm_80 and newer (whose first source goes to the
// upper half: hi, then lo), integer rounding or cvt.rn.f16.f32 per half on
// older devices.

// mmaHelpers adds the helpers of MMA and PackHalves to the helper table,
// after h2f and f2h, which they use.
func mmaHelpers(add func(name, format string, args ...any)) {
	p := helperPrefix
	add("bf16_bits", "__device__ unsigned %sbf16_bits(float x) {\n"+
		"\tconst unsigned b = __float_as_uint(x);\n"+
		"\tif ((b & 0x7fffffffu) > 0x7f800000u) return (b | 0x400000u) >> 16; // NaN: quiet\n"+
		"\treturn (b + 0x7fffu + ((b >> 16) & 1u)) >> 16;\n}\n", p)
	add("pack_bf16", "__device__ unsigned %spack_bf16(float lo, float hi) {\n"+
		"#if __CUDA_ARCH__ >= 800\n"+
		"\tunsigned r;\n"+
		"\tasm(\"cvt.rn.bf16x2.f32 %%0, %%1, %%2;\" : \"=r\"(r) : \"f\"(hi), \"f\"(lo)); // d = {hi, lo}\n"+
		"\treturn r;\n"+
		"#else\n"+
		"\treturn %sbf16_bits(lo) | (%sbf16_bits(hi) << 16);\n"+
		"#endif\n}\n", p, p, p)
	add("pack_f16", "__device__ unsigned %spack_f16(float lo, float hi) {\n"+
		"#if __CUDA_ARCH__ >= 800\n"+
		"\tunsigned r;\n"+
		"\tasm(\"cvt.rn.f16x2.f32 %%0, %%1, %%2;\" : \"=r\"(r) : \"f\"(hi), \"f\"(lo)); // d = {hi, lo}\n"+
		"\treturn r;\n"+
		"#else\n"+
		"\treturn (unsigned)%sf2h(lo) | ((unsigned)%sf2h(hi) << 16);\n"+
		"#endif\n}\n", p, p, p)
	for _, prec := range []struct{ sfx, ptx, lo, hi string }{
		{"bf16", "bf16", "__uint_as_float(w << 16)", "__uint_as_float(w & 0xffff0000u)"},
		{"f16", "f16", p + "h2f((unsigned short)(w & 0xffffu))", p + "h2f((unsigned short)(w >> 16))"},
	} {
		var b strings.Builder
		fmt.Fprintf(&b, "// %smma_%s: a warp's C (16×8, float32) += A (16×16) · B (16×8), %s, in\n", p, prec.sfx, prec.ptx)
		b.WriteString("// mma.m16n8k16's fragments (kernel.MMA). Only the warp's 32 lanes take part.\n")
		fmt.Fprintf(&b, "__device__ __forceinline__ void %smma_%s(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {\n", p, prec.sfx)
		b.WriteString("#if __CUDA_ARCH__ >= 800\n")
		fmt.Fprintf(&b, "\tasm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32 {%%0, %%1, %%2, %%3}, {%%4, %%5, %%6, %%7}, {%%8, %%9}, {%%0, %%1, %%2, %%3};\"\n", prec.ptx, prec.ptx)
		b.WriteString("\t\t: \"+f\"(c[0]), \"+f\"(c[1]), \"+f\"(c[2]), \"+f\"(c[3])\n")
		b.WriteString("\t\t: \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b[0]), \"r\"(b[1]));\n")
		b.WriteString("#else\n")
		b.WriteString("\t// Lane (g, t) = (lane/4, lane%4) holds A[g][2t..], A[g+8][2t..], A[g][2t+8..], A[g+8][2t+8..],\n")
		b.WriteString("\t// B[2t..][g], B[2t+8..][g]. Pair kp (k = 2kp, 2kp+1) of row g is word 2(kp/4) of lane 4g + kp%4;\n")
		b.WriteString("\t// of column n, word kp/4 of lane 4n + kp%4.\n")
		b.WriteString("\tconst unsigned lane = (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u;\n")
		b.WriteString("\tconst unsigned g = lane >> 2, t = lane & 3u;\n")
		b.WriteString("\t#pragma unroll\n")
		b.WriteString("\tfor (unsigned kp = 0; kp < 8u; kp++) {\n")
		b.WriteString("\t\tconst unsigned src = kp & 3u, upper = kp >> 2;\n")
		b.WriteString("\t\tconst unsigned wa0 = __shfl_sync(0xffffffffu, upper ? a[2] : a[0], (int)(g * 4u + src));\n")
		b.WriteString("\t\tconst unsigned wa1 = __shfl_sync(0xffffffffu, upper ? a[3] : a[1], (int)(g * 4u + src));\n")
		b.WriteString("\t\tconst unsigned wb0 = __shfl_sync(0xffffffffu, upper ? b[1] : b[0], (int)(8u * t + src));\n")
		b.WriteString("\t\tconst unsigned wb1 = __shfl_sync(0xffffffffu, upper ? b[1] : b[0], (int)(8u * t + 4u + src));\n")
		for i, w := range []string{"wa0", "wa1", "wb0", "wb1"} {
			fmt.Fprintf(&b, "\t\tfloat x%dlo, x%dhi;\n", i, i)
			fmt.Fprintf(&b, "\t\t{ const unsigned w = %s; x%dlo = %s; x%dhi = %s; }\n", w, i, prec.lo, i, prec.hi)
		}
		for ci, ab := range [4][2]int{{0, 2}, {0, 3}, {1, 2}, {1, 3}} {
			fmt.Fprintf(&b, "\t\tc[%d] += x%dlo * x%dlo; c[%d] += x%dhi * x%dhi;\n", ci, ab[0], ab[1], ci, ab[0], ab[1])
		}
		b.WriteString("\t}\n")
		b.WriteString("#endif\n}\n")
		add("mma_"+prec.sfx, "%s", b.String())
	}
}

// mma appends the call of s's helper.
func (fe *funcEmitter) mma(b *strings.Builder, s *ir.MMA, depth int) error {
	if !fe.f.Kernel {
		return malformed(s.Pos, "MMA in helper %s", fe.f.Name)
	}
	name := ""
	switch s.Precision {
	case ir.PrecisionBFloat16:
		name = "mma_bf16"
	case ir.PrecisionFloat16:
		name = "mma_f16"
		if _, err := fe.helper("h2f", s.Pos); err != nil { // the emulation's
			return err
		}
	default:
		return malformed(s.Pos, "MMA of precision %d", s.Precision)
	}
	args := make([]string, 3)
	for i, x := range []struct {
		e    ir.Expr
		elem ir.Scalar
		n    int
	}{{s.C, ir.F32, 4}, {s.A, ir.U32, 4}, {s.B, ir.U32, 2}} {
		if x.e == nil {
			return malformed(s.Pos, "MMA without its fragments")
		}
		if at, ok := x.e.ExprType().(*ir.Array); !ok || at.Elem != x.elem || at.Len != x.n {
			return malformed(s.Pos, "MMA fragment of type %v", x.e.ExprType())
		}
		v, err := fe.expr(x.e)
		if err != nil {
			return err
		}
		args[i] = bare(v)
	}
	h, err := fe.helper(name, s.Pos)
	if err != nil {
		return err
	}
	line(b, depth, h+"("+strings.Join(args, ", ")+");")
	return nil
}

// packHalves spells PackHalves of lo and hi.
func (fe *funcEmitter) packHalves(x *ir.CallBuiltin, args []string) (string, error) {
	name := "pack_bf16"
	if x.Builtin == ir.PackHalvesFloat16 {
		name = "pack_f16"
		if _, err := fe.helper("f2h", x.Pos); err != nil { // older devices'
			return "", err
		}
	} else if _, err := fe.helper("bf16_bits", x.Pos); err != nil {
		return "", err
	}
	h, err := fe.helper(name, x.Pos)
	return h + "(" + args[0] + ", " + args[1] + ")", err
}
