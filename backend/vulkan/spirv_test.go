//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"encoding/binary"
	"testing"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBuiltinSPIRV reflects every built-in module: one GLCompute entry point
// "main" whose work-group size is specialization constants 0, 1, 2, the
// bindings Params declares, and a push-constant block as PackScalars packs.
func TestBuiltinSPIRV(t *testing.T) {
	src := kernels.Source()
	require.Len(t, src.SPIRVKernels, len(kernels.Ops()), "a module per op")
	for _, op := range kernels.Ops() {
		t.Run(op, func(t *testing.T) {
			blob := src.SPIRVKernels[op]
			require.NotEmpty(t, blob)
			m, err := parseSPIRV(blob)
			require.NoError(t, err)
			require.Len(t, m.entries, 1)
			e := m.entries[0]
			assert.Equal(t, "main", e.name)
			assert.True(t, e.specializable())
			assert.Equal(t, [3]int32{0, 1, 2}, e.specIDs)
			var bufs int
			for _, k := range kernels.Params[op] {
				if k == backend.ArgBuffer {
					bufs++
				}
			}
			// The buffers at 0..n-1, then the scalars' uniform block at n
			// (every built-in op has scalars); no push constants.
			require.Len(t, e.bindings, bufs+1)
			for i, b := range e.bindings {
				want := uint32(descriptorStorageBuffer)
				if i == bufs {
					want = descriptorUniformBuffer
				}
				assert.Equal(t, uint32(0), b.set)
				assert.Equal(t, uint32(i), b.binding)
				assert.Equal(t, want, b.descType, "binding %d", i)
			}
			assert.Zero(t, e.pushBytes)
		})
	}
}

func TestSPIRVRejects(t *testing.T) {
	good := kernels.Source().SPIRVKernels[kernels.OpFill]
	words := func(b []byte) []uint32 {
		w := make([]uint32, len(b)/4)
		for i := range w {
			w[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		return w
	}
	bytesOf := func(w []uint32) []byte {
		b := make([]byte, 4*len(w))
		for i, v := range w {
			binary.LittleEndian.PutUint32(b[4*i:], v)
		}
		return b
	}
	mutate := func(f func(w []uint32) []uint32) []byte { return bytesOf(f(words(good))) }
	for _, tc := range []struct {
		name, want string
		blob       []byte
	}{
		{"empty", "too short", nil},
		{"header only minus one", "too short", good[:19]},
		{"odd size", "whole number", good[:len(good)-2]},
		{"bad magic", "magic number", mutate(func(w []uint32) []uint32 { w[0] = 0xdeadbeef; return w })},
		{"version 2.0", "version", mutate(func(w []uint32) []uint32 { w[1] = 0x00020000; return w })},
		{"bound 0", "bound", mutate(func(w []uint32) []uint32 { w[3] = 0; return w })},
		{"instruction past the end", "past the end", mutate(func(w []uint32) []uint32 { w[5] |= 0xffff << 16; return w })},
		{"zero word count", "word count 0", mutate(func(w []uint32) []uint32 { w[5] &= 0xffff; return w })},
		{"header only", "no entry point", good[:20]},
		{"truncated", "", good[:len(good)-8]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseSPIRV(tc.blob)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	// A byte-swapped module is accepted.
	w := words(good)
	swapped := make([]byte, len(good))
	for i, v := range w {
		binary.BigEndian.PutUint32(swapped[4*i:], v)
	}
	m, err := parseSPIRV(swapped)
	require.NoError(t, err)
	assert.Equal(t, w, m.words)
}

func TestPackScalarsMatchesBackend(t *testing.T) {
	kinds := []backend.ArgKind{backend.ArgF32, backend.ArgF64, backend.ArgI32, backend.ArgU32, backend.ArgI64, backend.ArgU64, backend.ArgBuffer}
	for seed := 0; seed < 200; seed++ {
		var args []backend.Arg
		for i := 0; i < seed%9; i++ {
			k := kinds[(seed*7+i*3)%len(kinds)]
			args = append(args, backend.Arg{Kind: k, Bits: uint64(seed*1000003+i) * 0x9e3779b97f4a7c15})
		}
		for _, a16 := range []bool{false, true} {
			var buf [maxPushBytes]byte
			n, ok := packScalars(buf[:], args, a16)
			require.True(t, ok)
			want := backend.PackScalars(args, a16)
			assert.Equal(t, len(want), n)
			assert.Equal(t, string(want), string(buf[:n]), "args %v align16 %v", args, a16)
		}
	}
	var small [4]byte
	_, ok := packScalars(small[:], []backend.Arg{{Kind: backend.ArgU64}}, false)
	assert.False(t, ok)
}

func TestTypeRankOrder(t *testing.T) {
	// discrete > integrated > virtual > CPU > other
	order := []uint32{2, 1, 3, 4, 0}
	for i := 1; i < len(order); i++ {
		assert.Less(t, typeRank(order[i-1]), typeRank(order[i]))
	}
	assert.Equal(t, backend.TypeSoftware, deviceType(4))
	assert.Equal(t, backend.TypeDiscreteGPU, deviceType(2))
}

func TestWithKernelDefine(t *testing.T) {
	got := withKernelDefine("#version 450\nvoid main() {}\n", "fill")
	assert.Equal(t, "#version 450\n#define ANYGPU_KERNEL_fill 1\n#line 2\nvoid main() {}\n", got)
	assert.Equal(t, "#define ANYGPU_KERNEL_x 1\n#line 1\nvoid main() {}", withKernelDefine("void main() {}", "x"))
}
