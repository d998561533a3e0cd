package cuda

import (
	"fmt"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// The anygpu_* helpers: small __device__ functions for the operations whose
// Go semantics C++ does not have (division by zero, shifts by the width or
// more, saturating conversions, Go's min and max of floats) and for Float4
// arithmetic. Each is emitted only when used, all in the fixed order of
// helperOrder, before the module's own functions.

// helperPrefix starts every name the emitter makes up.
const helperPrefix = "anygpu_"

// helper is one helper's name (without the prefix) and definition.
type helper struct {
	name, text string
}

var (
	helperOrder []helper       // every helper, in output order
	helperIndex map[string]int // name → position in helperOrder
)

func init() {
	add := func(name, format string, args ...any) {
		helperOrder = append(helperOrder, helper{name, fmt.Sprintf(format, args...)})
	}
	ints := []ir.Scalar{ir.I32, ir.U32, ir.I64, ir.U64}
	floats := []ir.Scalar{ir.F32, ir.F64}

	// Float to integer: truncate, saturate, NaN → 0.
	for _, from := range floats {
		f := scalarNames[from]
		lit := func(s string) string { // a float literal of type from
			if from == ir.F32 {
				return s + ".0f"
			}
			return s + ".0"
		}
		for _, to := range ints {
			t := scalarNames[to]
			name := "cvt_" + suffixes[from] + "_" + suffixes[to]
			if to.IsSigned() {
				limit := "2147483648" // 2^31, exact in both float types
				lo, hi := "(-2147483647 - 1)", "2147483647"
				if to == ir.I64 {
					limit, lo, hi = "9223372036854775808", "(-9223372036854775807ll - 1ll)", "9223372036854775807ll"
				}
				add(name, "__device__ %s %s%s(%s x) {\n\tif (x != x) return 0;\n\tif (x <= -%s) return %s;\n\tif (x >= %s) return %s;\n\treturn (%s)x;\n}\n",
					t, helperPrefix, name, f, lit(limit), lo, lit(limit), hi, t)
			} else {
				limit, hi := "4294967296", "4294967295u" // 2^32
				if to == ir.U64 {
					limit, hi = "18446744073709551616", "18446744073709551615ull"
				}
				add(name, "__device__ %s %s%s(%s x) {\n\tif (!(x > 0)) return 0; // NaN too\n\tif (x >= %s) return %s;\n\treturn (%s)x;\n}\n",
					t, helperPrefix, name, f, lit(limit), hi, t)
			}
		}
	}
	// Division and remainder: x/0 == x, x%0 == 0, most negative / -1 wraps.
	for _, s := range ints {
		t, sfx := scalarNames[s], suffixes[s]
		if s.IsSigned() {
			u := scalarNames[unsignedOf[s]]
			add("div_"+sfx, "__device__ %s %sdiv_%s(%s a, %s b) {\n\tif (b == 0) return a;\n\tif (b == -1) return (%s)((%s)0 - (%s)a);\n\treturn a / b;\n}\n",
				t, helperPrefix, sfx, t, t, t, u, u)
			add("rem_"+sfx, "__device__ %s %srem_%s(%s a, %s b) {\n\tif (b == 0 || b == -1) return 0;\n\treturn a %% b;\n}\n",
				t, helperPrefix, sfx, t, t)
		} else {
			add("div_"+sfx, "__device__ %s %sdiv_%s(%s a, %s b) {\n\treturn b == 0 ? a : a / b;\n}\n", t, helperPrefix, sfx, t, t)
			add("rem_"+sfx, "__device__ %s %srem_%s(%s a, %s b) {\n\treturn b == 0 ? 0 : a %% b;\n}\n", t, helperPrefix, sfx, t, t)
		}
	}
	// Shifts, the count as unsigned long long (a negative count, the
	// kernel's error, is then a huge one).
	for _, s := range ints {
		t, sfx, bits := scalarNames[s], suffixes[s], s.Bits()
		if s.IsSigned() {
			u := scalarNames[unsignedOf[s]]
			add("shl_"+sfx, "__device__ %s %sshl_%s(%s x, unsigned long long n) {\n\treturn n < %d ? (%s)((%s)x << n) : 0;\n}\n",
				t, helperPrefix, sfx, t, bits, t, u)
			add("shr_"+sfx, "__device__ %s %sshr_%s(%s x, unsigned long long n) {\n\treturn x >> (n < %d ? (int)n : %d); // arithmetic: the sign fills\n}\n",
				t, helperPrefix, sfx, t, bits, bits-1)
		} else {
			add("shl_"+sfx, "__device__ %s %sshl_%s(%s x, unsigned long long n) {\n\treturn n < %d ? x << n : 0;\n}\n", t, helperPrefix, sfx, t, bits)
			add("shr_"+sfx, "__device__ %s %sshr_%s(%s x, unsigned long long n) {\n\treturn n < %d ? x >> n : 0;\n}\n", t, helperPrefix, sfx, t, bits)
		}
	}
	// Abs of a signed integer: the most negative value stays itself.
	for _, s := range []ir.Scalar{ir.I32, ir.I64} {
		t, sfx, u := scalarNames[s], suffixes[s], scalarNames[unsignedOf[s]]
		add("abs_"+sfx, "__device__ %s %sabs_%s(%s x) {\n\treturn x < 0 ? (%s)((%s)0 - (%s)x) : x;\n}\n", t, helperPrefix, sfx, t, t, u, u)
	}
	// Go's min and max: for floats NaN if either is NaN, and -0 < +0.
	for _, s := range []ir.Scalar{ir.I32, ir.U32, ir.I64, ir.U64, ir.F32, ir.F64} {
		t, sfx := scalarNames[s], suffixes[s]
		for _, op := range []struct{ name, cmp, zero string }{{"min", "<", "|"}, {"max", ">", "&"}} {
			if !s.IsFloat() {
				add(op.name+"_"+sfx, "__device__ %s %s%s_%s(%s a, %s b) {\n\treturn a %s b ? a : b;\n}\n",
					t, helperPrefix, op.name, sfx, t, t, op.cmp)
				continue
			}
			// Equal operands differ only for ±0: or-ing the bits gives -0
			// if either is -0 (min), and-ing gives +0 if either is +0 (max).
			bits := "__uint_as_float(__float_as_uint(a) %s __float_as_uint(b))"
			if s == ir.F64 {
				bits = "__longlong_as_double(__double_as_longlong(a) %s __double_as_longlong(b))"
			}
			add(op.name+"_"+sfx, "__device__ %s %s%s_%s(%s a, %s b) {\n\tif (a != a) return a;\n\tif (b != b) return b;\n\tif (a == b) return "+bits+";\n\treturn a %s b ? a : b;\n}\n",
				t, helperPrefix, op.name, sfx, t, t, op.zero, op.cmp)
		}
	}
	// Warp reductions (subgroup.go): a butterfly over the 32 lanes; signed
	// sums in unsigned, so that they wrap.
	for _, s := range []ir.Scalar{ir.I32, ir.U32, ir.F32} {
		t, sfx := scalarNames[s], suffixes[s]
		acc, in, out := "v", "v", "v"
		if s == ir.I32 {
			acc, in, out = "u", "unsigned u = (unsigned)v;\n\t", "(int)u"
		} else {
			in = ""
		}
		add("sg_add_"+sfx, "__device__ %s %ssg_add_%s(%s v) {\n\t%sfor (int o = 16; o > 0; o >>= 1) %s += __shfl_xor_sync(0xffffffffu, %s, o);\n\treturn %s;\n}\n",
			t, helperPrefix, sfx, t, in, acc, acc, out)
		for _, op := range []string{"min", "max"} {
			add("sg_"+op+"_"+sfx, "__device__ %s %ssg_%s_%s(%s v) {\n\tfor (int o = 16; o > 0; o >>= 1) v = %s%s_%s(v, __shfl_xor_sync(0xffffffffu, v, o));\n\treturn v;\n}\n",
				t, helperPrefix, op, sfx, t, helperPrefix, op, sfx)
		}
	}
	// float16 (a buffer's element, stored as its bits): the PTX conversions,
	// exact to float32 and rounded to nearest even from it, subnormals kept;
	// no cuda_fp16.h needed.
	add("h2f", "__device__ float %sh2f(unsigned short h) {\n\tfloat f;\n\tasm(\"cvt.f32.f16 %%0, %%1;\" : \"=f\"(f) : \"h\"(h));\n\treturn f;\n}\n", helperPrefix)
	add("f2h", "__device__ unsigned short %sf2h(float f) {\n\tunsigned short h;\n\tasm(\"cvt.rn.f16.f32 %%0, %%1;\" : \"=h\"(h) : \"f\"(f));\n\treturn h;\n}\n", helperPrefix)
	// bfloat16 rounding of a float32 (nearest even, NaN kept), for
	// MatMulAdd's scalar loop.
	add("round_bf16", "__device__ float %sround_bf16(float x) {\n\tconst unsigned b = __float_as_uint(x);\n\tif ((b & 0x7fffffffu) > 0x7f800000u) return x;\n\treturn __uint_as_float((b + 0x7fffu + ((b >> 16) & 1u)) & 0xffff0000u);\n}\n", helperPrefix)
	// MMA and PackHalves (mma.go).
	mmaHelpers(add)
	// LoadMatrices and CopyAsync (ldmatrix.go).
	ldmHelpers(add)
	// Float4 arithmetic and comparison, lane by lane.
	for _, op := range []struct{ name, sym string }{{"add", "+"}, {"sub", "-"}, {"mul", "*"}, {"div", "/"}} {
		add(op.name+"_f4", "__device__ float4 %s%s_f4(float4 a, float4 b) {\n\treturn make_float4(a.x %s b.x, a.y %s b.y, a.z %s b.z, a.w %s b.w);\n}\n",
			helperPrefix, op.name, op.sym, op.sym, op.sym, op.sym)
	}
	add("neg_f4", "__device__ float4 %sneg_f4(float4 a) {\n\treturn make_float4(-a.x, -a.y, -a.z, -a.w);\n}\n", helperPrefix)
	add("eq_f4", "__device__ bool %seq_f4(float4 a, float4 b) {\n\treturn a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;\n}\n", helperPrefix)

	helperIndex = make(map[string]int, len(helperOrder))
	for i, h := range helperOrder {
		helperIndex[h.name] = i
	}
}

// helperSet records which helpers a module uses.
type helperSet []bool

// use marks helper name (without the prefix) used and returns its full
// name, or reports false when the table has no such helper.
func (hs helperSet) use(name string) (string, bool) {
	i, ok := helperIndex[name]
	if !ok {
		return "", false
	}
	hs[i] = true
	return helperPrefix + name, true
}

// write appends the used helpers' definitions to b, in the table's order.
func (hs helperSet) write(b *strings.Builder) {
	for i, used := range hs {
		if used {
			b.WriteString(helperOrder[i].text)
			b.WriteString("\n")
		}
	}
}
