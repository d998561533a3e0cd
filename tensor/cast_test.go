package tensor

import (
	"context"
	"math"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/require"
)

// castValues are inputs at the edges of every dtype: ties of float16 and
// bfloat16 and fp8, subnormals, overflow, infinities, NaN, integer
// saturation and truncation.
var castValues = []float32{
	0, float32(math.Copysign(0, -1)), 1, -1, 0.5, 1.5, 2.5, -2.5, 3.9, -3.9,
	1 + 1.0/2048, 1 + 3.0/2048, 65504, 65519, 65520, 1e6, -1e6,
	float32(math.Ldexp(1, -24)), float32(math.Ldexp(1, -25)), float32(math.Ldexp(3, -26)), 6e-8,
	448, 464, 465, 500, -448, 57344, 61440, float32(math.Ldexp(1, -9)), float32(math.Ldexp(1, -16)),
	127, 128, -128, -129.7, 255, 255.9, 256, 300, -5, 3e9, -3e9, 16777217,
	math.Pi, -math.E, 1e-40, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
	1.0000001, 0.1, -0.3, 12345.678,
}

// TestCast converts every dtype to every other on the device and compares
// the bytes with the host's conversion of the same values (package fp's,
// tested against the formats' definitions): the device computes the same
// rounding bit for bit. The source is a strided view.
func TestCast(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		n := len(castValues)
		for _, src := range DTypes() {
			// The values as src, laid out transposed: a [2, n] tensor whose
			// row 0 holds them, viewed as [n, 2] and sliced to column 0.
			host := make([]float32, 2*n)
			copy(host, castValues)
			base, err := FromFloat32(ctx, dev, src, host, 2, n)
			require.NoError(t, err)
			tr, err := base.Transpose(0, 1)
			require.NoError(t, err)
			col, err := tr.Slice(1, 0, 1)
			require.NoError(t, err)
			srcVals := make([]float32, n)
			raw := make([]byte, n*src.Size())
			encodeFloat32s(raw, src, castValues)
			decodeFloat32s(srcVals, src, raw)
			for _, dst := range DTypes() {
				t.Run(src.String()+" to "+dst.String(), func(t *testing.T) {
					y, err := Cast(col, dst)
					require.NoError(t, err)
					defer y.Close()
					require.Equal(t, dst, y.DType())
					require.Equal(t, []int{n, 1}, y.Shape())
					got, err := y.Bytes(ctx)
					require.NoError(t, err)
					want := make([]byte, n*dst.Size())
					encodeFloat32s(want, dst, srcVals)
					if dst.IsFloat() {
						// NaNs may differ in payload: compare them as NaNs.
						gotF, wantF := make([]float32, n), make([]float32, n)
						decodeFloat32s(gotF, dst, got)
						decodeFloat32s(wantF, dst, want)
						for i := range gotF {
							if math.IsNaN(float64(wantF[i])) {
								require.True(t, math.IsNaN(float64(gotF[i])), "%v as %s: %v", srcVals[i], dst, gotF[i])
								wantF[i], gotF[i] = 0, 0
							}
						}
						require.Equal(t, wantF, gotF, "%s to %s", src, dst)
						for i := range wantF {
							require.Equal(t, math.Signbit(float64(wantF[i])), math.Signbit(float64(gotF[i])), "sign of %v as %s", srcVals[i], dst)
						}
						return
					}
					require.Equal(t, want, got, "%s to %s", src, dst)
				})
			}
			require.NoError(t, col.Close())
			require.NoError(t, tr.Close())
			require.NoError(t, base.Close())
		}
	})
}
