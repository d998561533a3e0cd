package cuda

import (
	"fmt"
	"strconv"
	"strings"
)

// reserved are the identifiers a Go name must not become in the CUDA text:
// C++ keywords and alternative tokens, the CUDA built-in variables and
// types, and every function the emitted text calls. Names starting with
// "__" or helperPrefix are reserved too (isReserved).
var reserved = map[string]bool{}

func init() {
	words := `
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t
class compl concept const consteval constexpr constinit const_cast continue co_await co_return
co_yield decltype default delete do double dynamic_cast else enum explicit export extern false
float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr
operator or or_eq private protected public register reinterpret_cast requires return short
signed sizeof static static_assert static_cast struct switch template this thread_local throw
true try typedef typeid typename union unsigned using virtual void volatile wchar_t while xor
xor_eq NULL main
threadIdx blockIdx blockDim gridDim warpSize dim3 uint3
float4 make_float4 int4 uint4 float2 int2 uint2 float3 double2 double4 make_int4 make_uint4
sqrtf rsqrtf expf exp2f logf log2f sinf cosf tanhf powf floorf ceilf truncf fmaf fabsf fminf fmaxf
sqrt rsqrt exp exp2 log log2 sin cos tanh pow floor ceil trunc fma fabs fmin fmax
min max abs isnan isinf isfinite signbit printf assert memcpy memset malloc free
atomicAdd atomicSub atomicMin atomicMax atomicAnd atomicOr atomicXor atomicExch atomicCAS
atomicInc atomicDec`
	for _, w := range strings.Fields(words) {
		reserved[w] = true
	}
}

// isReserved reports whether name cannot be used as it is.
func isReserved(name string) bool {
	return reserved[name] || strings.HasPrefix(name, "__") || strings.HasPrefix(name, helperPrefix)
}

// namer hands out unique C++ names in one scope.
type namer struct {
	taken map[string]bool
}

// newNamer starts a scope in which the names of outer are taken.
func newNamer(outer map[string]bool) *namer {
	n := &namer{taken: map[string]bool{}}
	for name := range outer {
		n.taken[name] = true
	}
	return n
}

// name returns goName, or goName with the first numeric suffix that makes
// it neither reserved nor taken, and takes it. A letter outside ASCII, which
// Go allows in names, becomes _uXXXX.
func (n *namer) name(goName string) string {
	base := asciiName(goName)
	if strings.HasPrefix(base, "__") || strings.HasPrefix(base, helperPrefix) {
		base = "v" + strings.TrimLeft(base, "_")
	}
	name := base
	for i := 1; isReserved(name) || n.taken[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	n.taken[name] = true
	return name
}

// asciiName spells a Go identifier in ASCII letters, digits and _.
func asciiName(goName string) string {
	var b strings.Builder
	for _, r := range goName {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "_u%04x", r)
		}
	}
	if b.Len() == 0 {
		return "v"
	}
	return b.String()
}
