package kernel_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel"
)

// TestMatMulAddFromPlainGo checks a plain Go call of MatMulAddFrom (the
// code the CPU backend runs for it) against the definition, computed in
// float64 on the operands at their offsets and strides: elements of the
// buffers before the offsets and between the rows do not count, and C
// outside its tile is unchanged.
func TestMatMulAddFromPlainGo(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	fill := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(r.Float64()*2 - 1)
		}
		return s
	}
	tests := []struct {
		name                 string
		s                    kernel.MatMul
		aOff, lda, bOff, ldb uint32
	}{
		{"float32 at the start", kernel.MatMul{M: 16, N: 16, K: 16}, 0, 16, 0, 16},
		{"float32 offset, odd strides", kernel.MatMul{M: 32, N: 16, K: 48, LDC: 17}, 5, 53, 3, 21},
		{"bfloat16 transposed", kernel.MatMul{M: 16, N: 32, K: 64, TransposeB: true, Precision: kernel.PrecisionBFloat16}, 64, 100, 7, 65},
		{"float16 64x64x32", kernel.MatMul{M: 64, N: 64, K: 32, Precision: kernel.PrecisionFloat16}, 1, 33, 2, 64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s
			if s.LDC == 0 {
				s.LDC = s.N
			}
			a, b := fill(8192), fill(8192)
			var c [4096]float32
			copy(c[:], fill(4096))
			ref := s
			ref.LDA, ref.LDB = int(tt.lda), int(tt.ldb)
			want := matMulReference(c[:], a[tt.aOff:], b[tt.bOff:], ref)
			before := c
			kernel.MatMulAddFrom(&c, a, tt.aOff, tt.lda, b, tt.bOff, tt.ldb, tt.s)
			for i := range c {
				if i%s.LDC >= s.N || i/s.LDC >= s.M {
					require.Equal(t, before[i], c[i], "element %d outside the tile is unchanged", i)
					continue
				}
				require.InDelta(t, want[i], float64(c[i]), 1e-5*float64(s.K), "element %d", i)
			}
		})
	}
}

// TestMatMulAddFromPlainGoMisuse checks that a plain Go call the translator
// would reject, or one that reads outside a buffer, panics.
func TestMatMulAddFromPlainGoMisuse(t *testing.T) {
	var c [256]float32
	var ints [256]int32
	buf := make([]float32, 256)
	shape := kernel.MatMul{M: 16, N: 16, K: 16}
	tests := []struct {
		name string
		call func()
	}{
		{"a too short from its offset", func() { kernel.MatMulAddFrom(&c, buf, 1, 16, buf, 0, 16, shape) }},
		{"offset past the end", func() { kernel.MatMulAddFrom(&c, buf, 0, 16, buf, 300, 16, shape) }},
		{"stride below the row", func() { kernel.MatMulAddFrom(&c, buf, 0, 8, buf, 0, 16, shape) }},
		{"stride in the shape", func() { kernel.MatMulAddFrom(&c, buf, 0, 16, buf, 0, 16, kernel.MatMul{M: 16, N: 16, K: 16, LDA: 16}) }},
		{"c not float32", func() { kernel.MatMulAddFrom(&ints, buf, 0, 16, buf, 0, 16, shape) }},
		{"not a multiple of 16", func() { kernel.MatMulAddFrom(&c, buf, 0, 16, buf, 0, 16, kernel.MatMul{M: 16, N: 8, K: 16}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Panics(t, tt.call) })
	}
	assert.NotPanics(t, func() { kernel.MatMulAddFrom(&c, buf, 0, 16, buf, 0, 16, shape) }, "the same call within the buffers")
}
