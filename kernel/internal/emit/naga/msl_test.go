package naga_test

import (
	"context"
	"encoding/binary"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/metal/mslcheck"
	"github.com/anygpu/gpu/kernel/internal/emit/naga"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shimPrelude declares what naga's MSL uses that mslcheck's stand-in
// metal_stdlib (both the check's and the execution's) does not have yet: the
// types inside namespace metal, metal::all, as_type, the 32-bit atomics and
// float overloads of min, max, clamp and fma that accept naga's unsuffixed
// literals (1.0 is a float in MSL, a double in C++). It is C++ against either
// header (device is an empty macro in both), goes right after the source's
// #include <metal_stdlib>, and belongs in the shim
// (backend/metal/mslcheck/include), which this package does not own. Only the
// check's header defines thread_execution_width; the execution's defines
// fma(float, float, float) already.
const shimPrelude = `
template <class T, class U> T as_type(U u) { static_assert(sizeof(T) == sizeof(U), "as_type"); T t; __builtin_memcpy(&t, &u, sizeof t); return t; }
namespace metal {
using ::uint; using ::uint2; using ::uint3; using ::uint4;
using ::int2; using ::int3; using ::int4;
using ::float2; using ::float3; using ::float4;
inline bool all(bool b) { return b; }
template <class V> auto all(V v) -> decltype(v.z, bool()) { return v.x && v.y && v.z; }
inline float min(float x, float y) { return y < x ? y : x; }
inline float max(float x, float y) { return x < y ? y : x; }
inline float clamp(float x, float lo, float hi) { return min(max(x, lo), hi); }
#ifdef thread_execution_width
inline float fma(float a, float b, float c) { return a * b + c; }
#endif
enum memory_order { memory_order_relaxed };
struct atomic_uint { uint v; };
struct atomic_int { int v; };
// The check's header: declarations (its AST must not see the __atomic
// built-ins, which clang lists as extern "C" functions, that is as kernels).
#ifdef thread_execution_width
#define ANYGPU_ATOMIC(name, op) template <class A, class T> T name(device A* p, T v, memory_order);
template <class A> auto atomic_load_explicit(device A* p, memory_order) -> decltype(p->v);
template <class A, class T> void atomic_store_explicit(device A* p, T v, memory_order);
#else
#define ANYGPU_ATOMIC(name, op) template <class A, class T> T name(device A* p, T v, memory_order) { return op(&p->v, v, __ATOMIC_RELAXED); }
template <class A> auto atomic_load_explicit(device A* p, memory_order) -> decltype(p->v) { return __atomic_load_n(&p->v, __ATOMIC_RELAXED); }
template <class A, class T> void atomic_store_explicit(device A* p, T v, memory_order) { __atomic_store_n(&p->v, v, __ATOMIC_RELAXED); }
#endif
ANYGPU_ATOMIC(atomic_fetch_add_explicit, __atomic_fetch_add)
ANYGPU_ATOMIC(atomic_fetch_sub_explicit, __atomic_fetch_sub)
ANYGPU_ATOMIC(atomic_fetch_and_explicit, __atomic_fetch_and)
ANYGPU_ATOMIC(atomic_fetch_or_explicit, __atomic_fetch_or)
ANYGPU_ATOMIC(atomic_fetch_xor_explicit, __atomic_fetch_xor)
ANYGPU_ATOMIC(atomic_exchange_explicit, __atomic_exchange_n)
#undef ANYGPU_ATOMIC
} // namespace metal
`

// boolLiteral matches C++'s bool literals.
var boolLiteral = regexp.MustCompile(`\b(true|false)\b`)

// threadgroupVar matches a threadgroup variable that is not an array
// ("threadgroup type_3 partial;": naga wraps arrays in structs).
var threadgroupVar = regexp.MustCompile(`(?m)^(\s+)threadgroup (\w+) (\w+);$`)

// forMSLCheck returns text as mslcheck can take it: shimPrelude after the
// #include <metal_stdlib>; the bool literals written bool(1) and bool(0),
// because mslcheck's reading of clang's AST expects every "value" to be a
// string and a bool literal's is a JSON bool; and threadgroup variables made
// static, as mslcheck.Execute makes threadgroup arrays (it recognises only
// "threadgroup T name[N];"), so the threads of a group share them. Both are
// limits of mslcheck, which this package does not own.
func forMSLCheck(t *testing.T, text string) string {
	t.Helper()
	const include = "#include <metal_stdlib>\n"
	require.Contains(t, text, include)
	text = boolLiteral.ReplaceAllStringFunc(text, func(b string) string {
		if b == "true" {
			return "bool(1)"
		}
		return "bool(0)"
	})
	text = threadgroupVar.ReplaceAllString(text, "${1}static threadgroup $2 $3;")
	return strings.Replace(text, include, include+shimPrelude, 1)
}

// mslKinds returns the test kernels' parameters as mslcheck names them.
func mslKinds() map[string][]mslcheck.Kind {
	out := map[string][]mslcheck.Kind{}
	for _, k := range mslKernels() {
		for _, p := range k.params {
			out[k.name] = append(out[k.name], p.String())
		}
	}
	return out
}

// TestMSLChecks parses the MSL with mslcheck and checks each kernel's
// argument bindings against the Metal ABI.
func TestMSLChecks(t *testing.T) {
	text, err := naga.MSL(mslModules())
	require.NoError(t, err)
	again, err := naga.MSL(mslModules())
	require.NoError(t, err)
	assert.Equal(t, text, again, "the MSL is not deterministic")
	if _, err := mslcheck.Clang(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, mslcheck.CheckABI(ctx, "kernels.metal", forMSLCheck(t, text), mslKinds()))
}

// TestMSLRuns runs every kernel's MSL on the CPU with mslcheck.Execute, with
// both blocks, against the Go reference: the block reaches the kernel
// through [[threads_per_threadgroup]].
func TestMSLRuns(t *testing.T) {
	text, err := naga.MSL(mslModules())
	require.NoError(t, err)
	if _, err := mslcheck.Clang(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	prog, err := mslcheck.Build(ctx, "kernels.metal", forMSLCheck(t, text))
	require.NoError(t, err)
	defer prog.Close()
	for _, k := range mslKernels() {
		for _, block := range k.blocks {
			t.Run(k.name+"/"+blockName(block), func(t *testing.T) {
				c := k.launch(block)
				l := mslcheck.Launch{Kernel: k.name, Grid: dims(c.grid.Norm()), Block: dims(block.Norm())}
				for _, words := range c.bufs {
					l.Buffers = append(l.Buffers, wordBytes(words))
				}
				if len(c.scalars) > 0 {
					l.Params = wordBytes(c.scalars)
				}
				require.NoError(t, prog.Run(ctx, []mslcheck.Launch{l}))
				got := make([][]uint32, len(l.Buffers))
				for i, b := range l.Buffers {
					got[i] = make([]uint32, len(b)/4)
					for j := range got[i] {
						got[i][j] = binary.LittleEndian.Uint32(b[4*j:])
					}
				}
				require.Empty(t, c.check(got))
			})
		}
	}
}

// TestMSLMergesKernels checks how kernels share one text: the includes once,
// naga's identical helpers once, a name two kernels define differently
// prefixed with the kernel's name in each.
func TestMSLMergesKernels(t *testing.T) {
	text, err := naga.MSL(mslModules())
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(text, "#include <metal_stdlib>"))
	assert.NotContains(t, text, "simd/simd.h")
	assert.NotContains(t, text, "_buffer_sizes")
	for _, k := range mslKernels() {
		assert.Equal(t, 1, strings.Count(text, "kernel void "+k.name+"("), k.name)
		// Every kernel with scalars declares a different struct Params.
		if len(k.params) > 1 {
			assert.Contains(t, text, "struct "+k.name+"_Params {")
		}
	}
	assert.NotContains(t, text, "struct Params {")
	assert.Equal(t, 1, strings.Count(text, "uint naga_mod(uint lhs, uint rhs)"), "naga_mod is defined once")
}

// mslModules returns the modules of mslKernels.
func mslModules() map[string]string {
	out := map[string]string{}
	for _, k := range mslKernels() {
		out[k.name] = k.wgsl
	}
	return out
}

func dims(d backend.Dim3) [3]int { return [3]int{d.X, d.Y, d.Z} }

func wordBytes(words []uint32) []byte {
	out := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out
}
