package wgsl

import (
	"fmt"
	"strings"
)

// reservedWords are the identifiers a WGSL module may not declare, or should
// not, as the generated code calls or spells them: WGSL's keywords, its
// reserved words, its predeclared types and the built-in functions (a local
// named min would hide min()).
var reservedWords = func() map[string]bool {
	words := `
alias break case const const_assert continue continuing default diagnostic discard else enable false fn for
if let loop override requires return struct switch true var while
NULL Self abstract active alignas alignof as asm asm_fragment async attribute auto await become binding_array
cast catch class co_await co_return co_yield coherent column_major common compile compile_fragment concept
const_cast consteval constexpr constinit crate debugger decltype delete demote demote_to_helper do
dynamic_cast enum explicit export extends extern external fallthrough filter final finally friend from
fxgroup get goto groupshared highp impl implements import inline instanceof interface layout lowp macro
macro_rules match mediump meta mod module move mut mutable namespace new nil noexcept noinline
nointerpolation noperspective null nullptr of operator package packoffset partition pass patch
pixelfragment precise precision premerge priv protected pub public readonly ref regardless register
reinterpret_cast require resource restrict self set shared sizeof smooth snorm static static_assert
static_cast std subroutine super target template this thread_local throw trait try type typedef typeid
typename typeof union unless unorm unsafe unsized use using varying virtual volatile wgsl where with
writeonly yield
bool f16 f32 f64 i32 u32 i64 u64 vec2 vec3 vec4 mat2x2 mat2x3 mat2x4 mat3x2 mat3x3 mat3x4 mat4x2 mat4x3
mat4x4 array atomic ptr sampler sampler_comparison texture_1d texture_2d texture_2d_array texture_3d
texture_cube texture_cube_array texture_multisampled_2d texture_storage_1d texture_storage_2d
texture_storage_2d_array texture_storage_3d texture_depth_2d texture_depth_2d_array texture_depth_cube
texture_depth_cube_array texture_depth_multisampled_2d texture_external vec2i vec3i vec4i vec2u vec3u
vec4u vec2f vec3f vec4f vec2h vec3h vec4h mat2x2f mat3x3f mat4x4f function private workgroup uniform
storage read write read_write
abs acos acosh all any arrayLength asin asinh atan atan2 atanh bitcast ceil clamp cos cosh
countLeadingZeros countOneBits countTrailingZeros cross degrees determinant distance dot dot4I8Packed
dot4U8Packed exp exp2 extractBits faceForward firstLeadingBit firstTrailingBit floor fma fract frexp
insertBits inverseSqrt ldexp length log log2 max min mix modf normalize pow quantizeToF16 radians
reflect refract reverseBits round saturate select sign sin sinh smoothstep sqrt step tan tanh transpose
trunc atomicLoad atomicStore atomicAdd atomicSub atomicMax atomicMin atomicAnd atomicOr atomicXor
atomicExchange atomicCompareExchangeWeak storageBarrier workgroupBarrier textureBarrier
workgroupUniformLoad pack4x8snorm pack4x8unorm pack2x16snorm pack2x16unorm pack2x16float unpack4x8snorm
unpack4x8unorm unpack2x16snorm unpack2x16unorm unpack2x16float dpdx dpdy fwidth subgroupAdd
subgroupBroadcast subgroupBallot quadBroadcast main subgroupMin subgroupMax subgroupShuffle
subgroupShuffleXor subgroupBroadcastFirst subgroupExclusiveAdd subgroupInclusiveAdd`
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}()

// ownPrefixes start the names the emitter declares itself (its helpers,
// the block constants): a Go name with one of them is renamed.
var ownPrefixes = []string{"ag_", "anygpu_", "__"}

// isReserved reports whether name may not be used as it is.
func isReserved(name string) bool {
	if name == "_" || name == "" || reservedWords[name] {
		return true
	}
	for _, p := range ownPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// namer hands out identifiers that are unique among those it has given and
// those it was seeded with, and never reserved.
type namer struct {
	taken map[string]bool
}

func newNamer() *namer { return &namer{taken: map[string]bool{}} }

// child returns a namer that avoids every name n has given.
func (n *namer) child() *namer {
	c := newNamer()
	for k := range n.taken {
		c.taken[k] = true
	}
	return c
}

// fresh returns base, or base with a prefix (when reserved) or a numeric
// suffix (when taken), and marks it taken.
func (n *namer) fresh(base string) string {
	if isReserved(base) {
		base = "go_" + strings.TrimLeft(base, "_")
		if base == "go_" {
			base = "go_v"
		}
	}
	name := base
	for i := 1; n.taken[name] || isReserved(name); i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	n.taken[name] = true
	return name
}
