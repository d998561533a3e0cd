package kernels

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReferences(t *testing.T) {
	x := []float32{1, -2, 3.5}
	y := []float32{10, 20, 30}
	xs, ys := slices.Clone(x), slices.Clone(y)

	assert.Equal(t, []float32{7, 7}, RefFill(2, 7))
	assert.Empty(t, RefFill(0, 7))
	assert.Equal(t, x, RefCopy(x))
	assert.Equal(t, []float32{2, -4, 7}, RefScale(x, 2))
	assert.Equal(t, []float32{12, 16, 37}, RefAxpy(y, x, 2))
	assert.Equal(t, []float32{11, 18, 33.5}, RefAdd(x, y))
	assert.Equal(t, []float32{10, -40, 105}, RefMul(x, y))
	assert.Equal(t, 2.5, RefReduceSum(x))
	assert.Equal(t, 10.0-40+105, RefDot(x, y))
	assert.Equal(t, xs, x, "inputs are not modified")
	assert.Equal(t, ys, y, "inputs are not modified")

	// float64 accumulation keeps what float32 would lose.
	assert.Equal(t, 1.0, RefReduceSum([]float32{1e8, 1, -1e8}))
	// Once-rounded axpy: a*x+y exactly, then one rounding.
	a, xv, yv := float32(1+1.0/(1<<12)), float32(1+1.0/(1<<12)), float32(-1)
	assert.Equal(t, float32(2.0/(1<<12)+1.0/(1<<24)), RefAxpy([]float32{yv}, []float32{xv}, a)[0])

	// 2×3 -> 3×2
	assert.Equal(t, []float32{1, 4, 2, 5, 3, 6}, RefTranspose([]float32{1, 2, 3, 4, 5, 6}, 2, 3))

	// [1 2; 3 4]·[5 6; 7 8] = [19 22; 43 50]
	A := []float32{1, 2, 3, 4}
	B := []float32{5, 6, 7, 8}
	C := []float32{1, 1, 1, 1}
	assert.Equal(t, []float32{19, 22, 43, 50}, RefSgemm(C, A, B, 2, 2, 2, 1, 0))
	assert.Equal(t, []float32{2*19 - 1, 2*22 - 1, 2*43 - 1, 2*50 - 1}, RefSgemm(C, A, B, 2, 2, 2, 2, -1))
	assert.Equal(t, []float32{1, 1, 1, 1}, C, "C is not modified")
	// 1×3 · 3×1
	assert.Equal(t, []float32{1*4 + 2*5 + 3*6}, RefSgemm([]float32{0}, []float32{1, 2, 3}, []float32{4, 5, 6}, 1, 1, 3, 1, 0))
	// k = 0: C = beta*C
	assert.Equal(t, []float32{3, 3}, RefSgemm([]float32{1, 1}, nil, nil, 1, 2, 0, 5, 3))
	// beta = 0: C is not read.
	nan := float32(math.NaN())
	assert.Equal(t, []float32{19, 22, 43, 50}, RefSgemm([]float32{nan, nan, nan, nan}, A, B, 2, 2, 2, 1, 0))

	require.Panics(t, func() { RefAxpy(x, y[:2], 1) })
	require.Panics(t, func() { RefTranspose(x, 2, 2) })
	require.Panics(t, func() { RefSgemm(C, A, B[:3], 2, 2, 2, 1, 0) })
}
