package front

import (
	"strconv"
	"strings"
)

// reservedWords are identifiers an emitter's language reserves or predeclares
// (C++ and CUDA, WGSL, MSL, GLSL, Go): a local, parameter or helper with one
// of these names is renamed with a suffix.
var reservedWords = map[string]bool{}

func init() {
	for _, list := range []string{
		// C and C++.
		`alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t
		class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
		decltype default delete do double dynamic_cast else enum explicit export extern false final float for
		friend goto if import inline int long module mutable namespace new noexcept not not_eq nullptr operator
		or or_eq override private protected public register reinterpret_cast requires restrict return short
		signed sizeof static static_assert static_cast struct switch template this thread_local throw true try
		typedef typeid typename union unsigned using virtual void volatile wchar_t while xor xor_eq NULL
		size_t ptrdiff_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t std main`,
		// CUDA.
		`threadIdx blockIdx blockDim gridDim warpSize dim3 uint ushort uchar ulong longlong ulonglong half
		half2 float1 float2 float3 float4 double2 double4 int2 int3 int4 uint2 uint3 uint4 char2 char4 long2
		atomicAdd atomicSub atomicMin atomicMax atomicAnd atomicOr atomicXor atomicExch atomicCAS
		sqrtf rsqrtf expf exp2f logf log2f sinf cosf tanhf powf floorf ceilf truncf fmaf fabsf fminf fmaxf
		fabs fmin fmax rsqrt llabs labs isnan isinf signbit`,
		// WGSL.
		`alias array atomic bitcast const_assert continuing diagnostic discard enable f16 f32 fallthrough fn
		i32 let loop override ptr sampler sampler_comparison u32 var vec2 vec3 vec4 mat2x2 mat2x3 mat2x4
		mat3x2 mat3x3 mat3x4 mat4x2 mat4x3 mat4x4 workgroup storage uniform function read write read_write
		texture_1d texture_2d texture_3d texture_cube NULL Self abstract active actor as async await become
		cast catch common compile compile_fragment crate debugger defer delete demote demote_to_helper do
		dynamic elif end enum extends extern external filter finally fn fragment from fxgroup get goto groupshared
		highp impl implements import inline instanceof interface layout lowp macro macro_rules match mediump meta
		mod move mut new nil noexcept noinline nointerpolation noperspective null nullptr of package packoffset
		partition pass patch pixelfragment precise precision premerge priv protected pub public readonly ref
		regardless register reinterpret_cast require resource restrict self set shared sizeof smooth snorm
		static static_cast std subroutine super target template this thread_local throw trait try type typedef
		typeid typename typeof union unless unorm unsafe unsized use using varying virtual volatile wgsl where
		with writeonly yield select all any arrayLength dot cross length distance normalize mix step smoothstep
		sign round fract saturate clamp countLeadingZeros countOneBits countTrailingZeros reverseBits
		extractBits insertBits firstLeadingBit firstTrailingBit degrees radians modf frexp ldexp quantizeToF16
		pack4x8snorm unpack4x8snorm workgroupBarrier storageBarrier textureBarrier atomicLoad atomicStore
		atomicExchange atomicCompareExchangeWeak vertex compute builtin location binding group id size align
		invariant interpolate workgroup_size`,
		// MSL.
		`kernel device constant threadgroup thread metal simd float2x2 float3x3 float4x4 half4 packed_float4
		threadgroup_barrier mem_flags atomic_int atomic_uint atomic_float memory_order`,
		// GLSL.
		`attribute centroid flat in out inout buffer coherent input output highp mediump lowp precision sampler2D
		image2D ivec2 ivec3 ivec4 uvec2 uvec3 uvec4 bvec2 bvec3 bvec4 dvec2 dvec3 dvec4 mat2 mat3 mat4 dmat2
		dmat3 dmat4 barrier memoryBarrier memoryBarrierShared memoryBarrierBuffer groupMemoryBarrier atomicCounter
		floatBitsToUint uintBitsToFloat floatBitsToInt intBitsToFloat inversesqrt fma superp sample`,
		// Math and built-in function names shared by the dialects.
		`min max abs sqrt exp exp2 log log2 sin cos tan tanh asin acos atan atan2 sinh cosh pow floor ceil trunc
		fmod mod`,
		// Go's keywords and predeclared identifiers (the Go emitter), and its package names.
		`break case chan const continue default defer else fallthrough for func go goto if import interface map
		package range return select struct switch type var any bool byte comparable complex64 complex128 error
		float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr true false
		iota nil append cap clear close complex copy delete imag len make max min new panic print println real
		recover math unsafe atomic kernel gpu`,
	} {
		for _, w := range strings.Fields(list) {
			reservedWords[w] = true
		}
	}
}

// reserved reports whether name may not be used as is in generated code.
func reserved(name string) bool {
	return reservedWords[name] || strings.HasPrefix(name, "gl_") || strings.HasPrefix(name, "anygpu") ||
		strings.HasPrefix(name, "_") || strings.Contains(name, "__")
}

// unreservedBase is want made into a base that a numeric suffix makes
// unreserved: no "__", and none of the reserved prefixes (prefix goes
// first), so that the suffix loops of the namers end.
func unreservedBase(want, prefix string) string {
	base := want
	for strings.Contains(base, "__") {
		base = strings.ReplaceAll(base, "__", "_")
	}
	if base == "" || strings.HasPrefix(base, "_") || strings.HasPrefix(base, "gl_") || strings.HasPrefix(base, "anygpu") {
		base = prefix + base
	}
	return base
}

// namer hands out unique, unreserved names within one function.
type namer struct {
	used  map[string]bool
	avoid map[string]bool // names of the package's functions
}

func newNamer(avoid map[string]bool) *namer { return &namer{used: map[string]bool{}, avoid: avoid} }

// name returns a fresh name for the Go name want: want itself when it is
// free, or want with a suffix.
func (n *namer) name(want string) string {
	base := unreservedBase(want, "v")
	name := base
	for i := 1; n.used[name] || n.avoid[name] || reserved(name); i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	n.used[name] = true
	return name
}
