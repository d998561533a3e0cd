package cuda

import (
	"fmt"
	"sort"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// A MatMulAdd becomes a call of a __device__ function made for its shape,
// anygpu_mm_<shape>(c, a, b), on the kernel's shared arrays; each shape's
// function is written once, after the helpers.
//
// For the 16-bit precisions on sm_80 and newer the group's full warps run
// the tensor cores: C is cut into units of 16 rows by 8·nt columns; a warp
// takes units in turn (unit w, w + warps, ...), loads the unit's C
// fragments from shared memory, and for each 16 of K loads A's 16×16
// fragment and nt of B's 16×8 fragments from the float32 shared arrays,
// converting pairs with cvt.rn.bf16x2.f32 or cvt.rn.f16x2.f32 (round to
// nearest even), runs mma.sync.aligned.m16n8k16.row.col.f32 on them, and
// stores C back. The fragments are PTX's: with g = lane/4 and t = lane%4, A
// holds rows g and g+8 at columns 2t, 2t+1 and those plus 8; B holds rows
// 2t, 2t+1 and those plus 8 at column g; C rows g and g+8 at columns 2t,
// 2t+1. Float32 precision (no TF32), devices before sm_80 and groups of
// fewer than 32 threads run the scalar loop: each thread takes elements of
// C in turn and adds the dot product, in k order, with the operands
// rounded to the precision. A __syncthreads() comes before and after.

// mmUnitCols is the number of 8-column fragments a warp's unit holds: as
// many as 4 while C still has 4 units or more (a group's warps stay busy),
// else fewer.
func mmUnitCols(s *ir.MatMulAdd) int {
	frags := s.N / 8
	for _, nt := range []int{4, 2} {
		if frags%nt == 0 && (s.M/16)*(frags/nt) >= 4 {
			return nt
		}
	}
	return 1
}

// mmName is the name of the function for s's shape.
func mmName(s *ir.MatMulAdd) string {
	prec := [...]string{"f32", "bf16", "f16"}[s.Precision]
	t := ""
	if s.TransposeB {
		t = "t"
	}
	if s.From != nil {
		return fmt.Sprintf("%smm_from_%s%s_%dx%dx%d_%d", helperPrefix, prec, t, s.M, s.N, s.K, s.LDC)
	}
	return fmt.Sprintf("%smm_%s%s_%dx%dx%d_%d_%d_%d", helperPrefix, prec, t, s.M, s.N, s.K, s.LDA, s.LDB, s.LDC)
}

// mmStrides are the row strides of A and B as the function for s spells
// them (constants, or its parameters lda and ldb for a MatMulAddFrom), and
// the strides that decide whether it may load two floats at once: an odd
// one for the buffers, whose offsets and strides are not known to be even.
func mmStrides(s *ir.MatMulAdd) (lda, ldb string, pairA, pairB int) {
	if s.From != nil {
		return "lda", "ldb", 1, 1
	}
	return fmt.Sprintf("%du", s.LDA), fmt.Sprintf("%du", s.LDB), s.LDA, s.LDB
}

// matMul appends the call of s's function, writing the function first if
// the module has none for its shape yet.
func (fe *funcEmitter) matMul(b *strings.Builder, s *ir.MatMulAdd, depth int) error {
	if !fe.f.Kernel {
		return malformed(s.Pos, "MatMulAdd in helper %s", fe.f.Name)
	}
	if s.C == nil || s.A == nil || s.B == nil || s.Precision > ir.PrecisionFloat16 || s.M <= 0 || s.N <= 0 || s.K <= 0 ||
		s.M%16 != 0 || s.N%16 != 0 || s.K%16 != 0 {
		return malformed(s.Pos, "MatMulAdd of shape %d×%d×%d", s.M, s.N, s.K)
	}
	names := make([]string, 3)
	for i, r := range []*ir.Ref{s.C, s.A, s.B} {
		n, ok := fe.names[r.Var]
		_, buf := r.Var.Type.(*ir.Slice)
		switch {
		case !ok:
			return malformed(s.Pos, "MatMulAdd of %s, an unknown variable", r.Var.Name)
		case s.From != nil && i > 0 && (r.Var.Class != ir.Param || !buf):
			return malformed(s.Pos, "MatMulAddFrom of %s, not a buffer", r.Var.Name)
		case (s.From == nil || i == 0) && r.Var.Class != ir.Shared:
			return malformed(s.Pos, "MatMulAdd of %s, not a shared array", r.Var.Name)
		}
		names[i] = n
	}
	if s.From != nil {
		// The buffers from their offsets, and the strides, computed once
		// by every thread (they are uniform).
		args := make([]string, 4)
		for i, x := range s.From.Exprs() {
			v, err := fe.expr(x)
			if err != nil {
				return err
			}
			args[i] = "(unsigned)(" + bare(v) + ")"
		}
		names[1] = names[1] + " + " + args[0]
		names[2] = names[2] + " + " + args[2]
		names = append(names, args[1], args[3])
	}
	name := mmName(s)
	if _, ok := fe.mmFuncs[name]; !ok {
		text, err := fe.mmFunc(name, s)
		if err != nil {
			return err
		}
		fe.mmFuncs[name] = text
	}
	line(b, depth, fmt.Sprintf("%s(%s);", name, strings.Join(names, ", ")))
	return nil
}

// mmOperands is the shared arrays f's MatMulAdds take, and every shared
// array of a kernel that runs MMAs, LoadMatrices or CopyAsyncs (whose
// ldmatrix rows and cp.async vectors are 16-byte aligned in them).
func mmOperands(f *ir.Func) map[*ir.Var]bool {
	set := map[*ir.Var]bool{}
	ir.WalkStmts(f.Body, func(s ir.Stmt) {
		switch s.(type) {
		case *ir.MMA, *ir.LoadMatrices, *ir.CopyAsync:
			// A kernel on MMA fragments stages them in shared arrays:
			// aligned, its neighbouring words may load as one, and
			// ldmatrix and cp.async need 16-byte aligned addresses.
			for _, v := range f.Shared {
				set[v] = true
			}
		}
		if m, ok := s.(*ir.MatMulAdd); ok {
			for _, r := range []*ir.Ref{m.C, m.A, m.B} {
				if r != nil && r.Var.Class == ir.Shared {
					set[r.Var] = true
				}
			}
		}
	}, nil)
	return set
}

// mmFuncsText is the module's MatMulAdd functions, by name.
func mmFuncsText(funcs map[string]string) string {
	names := make([]string, 0, len(funcs))
	for n := range funcs {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(funcs[n])
		b.WriteString("\n")
	}
	return b.String()
}

// mmFunc writes the function for s's shape.
func (fe *funcEmitter) mmFunc(name string, s *ir.MatMulAdd) (string, error) {
	var b strings.Builder
	w := func(depth int, format string, args ...any) { line(&b, depth, fmt.Sprintf(format, args...)) }
	round := func(x string) string { return x }
	switch s.Precision {
	case ir.PrecisionBFloat16:
		h, err := fe.helper("round_bf16", s.Pos)
		if err != nil {
			return "", err
		}
		round = func(x string) string { return h + "(" + x + ")" }
	case ir.PrecisionFloat16:
		f2h, err := fe.helper("f2h", s.Pos)
		if err != nil {
			return "", err
		}
		h2f, err := fe.helper("h2f", s.Pos)
		if err != nil {
			return "", err
		}
		round = func(x string) string { return h2f + "(" + f2h + "(" + x + "))" }
	}
	lda, ldb, _, _ := mmStrides(s)
	bAt := func(k, j string) string { return fmt.Sprintf("b[(%s) * %s + %s]", k, ldb, j) }
	if s.TransposeB {
		bAt = func(k, j string) string { return fmt.Sprintf("b[(%s) * %s + %s]", j, ldb, k) }
	}
	w(0, "// %s: c (%d×%d, stride %d) += a (%d×%d, stride %s) · b (%s, stride %s), %s operands.",
		name, s.M, s.N, s.LDC, s.M, s.K, strings.TrimSuffix(lda, "u"), map[bool]string{false: fmt.Sprintf("%d×%d", s.K, s.N), true: fmt.Sprintf("%d×%d, transposed", s.N, s.K)}[s.TransposeB],
		strings.TrimSuffix(ldb, "u"), [...]string{"float32", "bfloat16", "float16"}[s.Precision])
	if s.From != nil {
		w(0, "// a and b point into buffers (kernel.MatMulAddFrom), their strides lda and ldb.")
		w(0, "__device__ void %s(float* c, const float* a, const float* b, unsigned lda, unsigned ldb) {", name)
	} else {
		w(0, "__device__ void %s(float* c, const float* a, const float* b) {", name)
	}
	w(1, "__syncthreads();")
	w(1, "const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);")
	w(1, "const unsigned nthreads = blockDim.x * blockDim.y * blockDim.z;")
	if s.Precision != ir.PrecisionFloat32 {
		fe.mmTensorCores(w, s)
	}
	w(1, "for (unsigned e = tid; e < %du; e += nthreads) {", s.M*s.N)
	w(2, "const unsigned i = e / %du, j = e %% %du;", s.N, s.N)
	w(2, "float acc = c[i * %du + j];", s.LDC)
	w(2, "for (unsigned k = 0; k < %du; k++) {", s.K)
	w(3, "acc += %s * %s;", round(fmt.Sprintf("a[i * %s + k]", lda)), round(bAt("k", "j")))
	w(2, "}")
	w(2, "c[i * %du + j] = acc;", s.LDC)
	w(1, "}")
	w(1, "__syncthreads();")
	w(0, "}")
	return b.String(), nil
}

// mmTensorCores writes the tensor-core path of a 16-bit MatMulAdd: it
// returns from the function when it ran (sm_80 and newer, a full warp).
func (fe *funcEmitter) mmTensorCores(w func(int, string, ...any), s *ir.MatMulAdd) {
	nt := mmUnitCols(s)
	units := (s.M / 16) * (s.N / (8 * nt))
	lda, ldb, pairA, pairB := mmStrides(s)
	ty, cvt := "bf16", "cvt.rn.bf16x2.f32"
	if s.Precision == ir.PrecisionFloat16 {
		ty, cvt = "f16", "cvt.rn.f16x2.f32"
	}
	// pair loads two neighbouring floats of an array at an even offset
	// (with an even stride, the arrays being 8-byte aligned) or two apart.
	pair := func(arr string, ld int, at string) (string, string) {
		if ld%2 == 0 {
			return "", fmt.Sprintf("*reinterpret_cast<const float2*>(&%s[%s])", arr, at)
		}
		return fmt.Sprintf("%s[%s]", arr, at), fmt.Sprintf("%s[%s + 1]", arr, at)
	}
	// pack converts (lo, hi) to a register: lo in the low half. cvt puts
	// its first source in the high half.
	pack := func(depth int, dst, arr string, ld int, at string) {
		lo, hi := pair(arr, ld, at)
		if lo == "" {
			w(depth, "{ const float2 p = %s; asm(\"%s %%0, %%1, %%2;\" : \"=r\"(%s) : \"f\"(p.y), \"f\"(p.x)); }", hi, cvt, dst)
			return
		}
		w(depth, "asm(\"%s %%0, %%1, %%2;\" : \"=r\"(%s) : \"f\"(%s), \"f\"(%s));", cvt, dst, hi, lo)
	}
	w(0, "#if __CUDA_ARCH__ >= 800")
	w(1, "if (nthreads >= 32u) {")
	w(2, "const unsigned lane = tid & 31u, g = lane >> 2, t = lane & 3u;")
	w(2, "for (unsigned u = tid >> 5; u < %du && (tid | 31u) < nthreads; u += nthreads >> 5) {", units)
	w(3, "const unsigned r0 = (u / %du) * 16u, n0 = (u %% %du) * %du;", s.N/(8*nt), s.N/(8*nt), 8*nt)
	w(3, "float d[%d][4];", nt)
	w(3, "#pragma unroll")
	w(3, "for (int f = 0; f < %d; f++) {", nt)
	_, c01 := pair("c", s.LDC, fmt.Sprintf("(r0 + g) * %du + n0 + f * 8u + 2u * t", s.LDC))
	_, c23 := pair("c", s.LDC, fmt.Sprintf("(r0 + g + 8u) * %du + n0 + f * 8u + 2u * t", s.LDC))
	if s.LDC%2 == 0 {
		w(4, "const float2 lo = %s, hi = %s;", c01, c23)
		w(4, "d[f][0] = lo.x; d[f][1] = lo.y; d[f][2] = hi.x; d[f][3] = hi.y;")
	} else {
		w(4, "const unsigned o0 = (r0 + g) * %du + n0 + f * 8u + 2u * t, o1 = o0 + %du;", s.LDC, 8*s.LDC)
		w(4, "d[f][0] = c[o0]; d[f][1] = c[o0 + 1u]; d[f][2] = c[o1]; d[f][3] = c[o1 + 1u];")
	}
	w(3, "}")
	if s.K <= 128 {
		w(3, "#pragma unroll")
	} else {
		w(3, "#pragma unroll 4")
	}
	w(3, "for (unsigned k0 = 0; k0 < %du; k0 += 16u) {", s.K)
	w(4, "unsigned ar[4], br[%d][2];", nt)
	pack(4, "ar[0]", "a", pairA, fmt.Sprintf("(r0 + g) * %s + k0 + 2u * t", lda))
	pack(4, "ar[1]", "a", pairA, fmt.Sprintf("(r0 + g + 8u) * %s + k0 + 2u * t", lda))
	pack(4, "ar[2]", "a", pairA, fmt.Sprintf("(r0 + g) * %s + k0 + 8u + 2u * t", lda))
	pack(4, "ar[3]", "a", pairA, fmt.Sprintf("(r0 + g + 8u) * %s + k0 + 8u + 2u * t", lda))
	w(4, "#pragma unroll")
	w(4, "for (int f = 0; f < %d; f++) {", nt)
	w(5, "const unsigned n = n0 + f * 8u + g;")
	if s.TransposeB {
		pack(5, "br[f][0]", "b", pairB, fmt.Sprintf("n * %s + k0 + 2u * t", ldb))
		pack(5, "br[f][1]", "b", pairB, fmt.Sprintf("n * %s + k0 + 8u + 2u * t", ldb))
	} else {
		w(5, "asm(\"%s %%0, %%1, %%2;\" : \"=r\"(br[f][0]) : \"f\"(b[(k0 + 2u * t + 1u) * %s + n]), \"f\"(b[(k0 + 2u * t) * %s + n]));", cvt, ldb, ldb)
		w(5, "asm(\"%s %%0, %%1, %%2;\" : \"=r\"(br[f][1]) : \"f\"(b[(k0 + 2u * t + 9u) * %s + n]), \"f\"(b[(k0 + 2u * t + 8u) * %s + n]));", cvt, ldb, ldb)
	}
	w(5, "asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32 {%%0, %%1, %%2, %%3}, {%%4, %%5, %%6, %%7}, {%%8, %%9}, {%%0, %%1, %%2, %%3};\"", ty, ty)
	w(6, ": \"+f\"(d[f][0]), \"+f\"(d[f][1]), \"+f\"(d[f][2]), \"+f\"(d[f][3])")
	w(6, ": \"r\"(ar[0]), \"r\"(ar[1]), \"r\"(ar[2]), \"r\"(ar[3]), \"r\"(br[f][0]), \"r\"(br[f][1]));")
	w(4, "}")
	w(3, "}")
	w(3, "#pragma unroll")
	w(3, "for (int f = 0; f < %d; f++) {", nt)
	if s.LDC%2 == 0 {
		w(4, "*reinterpret_cast<float2*>(&c[(r0 + g) * %du + n0 + f * 8u + 2u * t]) = make_float2(d[f][0], d[f][1]);", s.LDC)
		w(4, "*reinterpret_cast<float2*>(&c[(r0 + g + 8u) * %du + n0 + f * 8u + 2u * t]) = make_float2(d[f][2], d[f][3]);", s.LDC)
	} else {
		w(4, "const unsigned o0 = (r0 + g) * %du + n0 + f * 8u + 2u * t, o1 = o0 + %du;", s.LDC, 8*s.LDC)
		w(4, "c[o0] = d[f][0]; c[o0 + 1u] = d[f][1]; c[o1] = d[f][2]; c[o1 + 1u] = d[f][3];")
	}
	w(3, "}")
	w(2, "}")
	w(2, "__syncthreads();")
	w(2, "return;")
	w(1, "}")
	w(0, "#endif")
}
