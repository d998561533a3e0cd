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

// mslKinds returns the test kernels' parameters as mslcheck names them.
func mslKinds() map[string][]mslcheck.Kind {
	out := map[string][]mslcheck.Kind{}
	for _, k := range testKernels {
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
	require.NoError(t, mslcheck.CheckABI(ctx, "kernels.metal", text, mslKinds()))
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
	prog, err := mslcheck.Build(ctx, "kernels.metal", text)
	require.NoError(t, err)
	defer prog.Close()
	for _, k := range testKernels {
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
	for _, k := range testKernels {
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
	for _, k := range testKernels {
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

// casModule is a kernel that compare-exchanges an atomic of type elem
// ("u32" or "i32") in a storage buffer.
func casModule(name, elem string) string {
	return header(64, 1) + `
@group(0) @binding(0) var<storage, read_write> c: array<atomic<` + elem + `>>;
` + entry + `fn ` + name + `(` + ids + `) {
	let r = atomicCompareExchangeWeak(&c[lid.x], ` + elem + `(0), ` + elem + `(1));
	if (r.exchanged) { atomicAdd(&c[0], ` + elem + `(1)); }
}
`
}

// TestMSLMergesAtomicHelpers merges kernels that all need naga's
// compare-exchange helper (one overload per address space): as one kernel's
// helper differs (another atomic type), every kernel that defines the name
// gets its own, prefixed with the kernel's name, so nothing is defined twice,
// and the text parses (mslcheck's shim, where the address spaces vanish,
// keeps one overload of each pair).
func TestMSLMergesAtomicHelpers(t *testing.T) {
	mods := map[string]string{
		"CasA": casModule("CasA", "u32"),
		"CasB": casModule("CasB", "u32"),
		"CasI": casModule("CasI", "i32"),
	}
	text, err := naga.MSL(mods)
	require.NoError(t, err)
	helper := regexp.MustCompile(`(?m)^_atomic_compare_exchange_result_\w+ (\w*naga_atomic_compare_exchange_weak_explicit)\(\n    (device|threadgroup) `)
	defs := map[string]int{}
	for _, m := range helper.FindAllStringSubmatch(text, -1) {
		defs[m[1]+" "+m[2]]++
	}
	assert.Equal(t, map[string]int{
		"CasA_naga_atomic_compare_exchange_weak_explicit device": 1, "CasA_naga_atomic_compare_exchange_weak_explicit threadgroup": 1,
		"CasB_naga_atomic_compare_exchange_weak_explicit device": 1, "CasB_naga_atomic_compare_exchange_weak_explicit threadgroup": 1,
		"CasI_naga_atomic_compare_exchange_weak_explicit device": 1, "CasI_naga_atomic_compare_exchange_weak_explicit threadgroup": 1,
	}, defs, text)
	if _, err := mslcheck.Clang(); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, mslcheck.CheckABI(ctx, "cas.metal", text, map[string][]mslcheck.Kind{
		"CasA": {"buffer"}, "CasB": {"buffer"}, "CasI": {"buffer"},
	}))
}
