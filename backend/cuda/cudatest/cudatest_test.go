package cudatest_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/cuda"
	"github.com/anygpu/gpu/backend/cuda/cudatest"
	"github.com/stretchr/testify/require"
)

// TestInstall: after Install the CUDA backend opens the stand-in device,
// and its products compute, or leave C as it was, as math says.
func TestInstall(t *testing.T) {
	for _, tc := range []struct {
		name string
		math bool
		want float32 // C[0] after C = A·B with A = [1 2], B = [3 4]ᵀ
	}{
		{"math", true, 11},
		{"no math", false, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := cudatest.Install(t.TempDir(), t.Setenv, tc.math); err != nil {
				t.Skipf("no stand-in CUDA libraries: %v", err)
			}
			ctx := context.Background()
			dev, err := gpu.OpenDriver(ctx, cuda.Driver{}, 0)
			require.NoError(t, err)
			defer dev.Close()
			require.Contains(t, dev.Info().Name, "Fake")
			buf := func(v ...float32) *gpu.Buffer {
				b, err := dev.Alloc(int64(4 * len(v)))
				require.NoError(t, err)
				raw := make([]byte, 4*len(v))
				for i, x := range v {
					binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
				}
				_, err = b.WriteAt(raw, 0)
				require.NoError(t, err)
				t.Cleanup(func() { _ = b.Close() })
				return b
			}
			a, b, c := buf(1, 2), buf(3, 4), buf(-1)
			s := dev.DefaultStream()
			require.NoError(t, s.MatMul(gpu.MatMul{M: 1, N: 1, K: 2, A: a, B: b, C: c, In: gpu.MatMulFloat32}))
			require.NoError(t, s.Synchronize(ctx))
			raw := make([]byte, 4)
			_, err = c.ReadAt(raw, 0)
			require.NoError(t, err)
			require.Equal(t, tc.want, math.Float32frombits(binary.LittleEndian.Uint32(raw)))
		})
	}
}
