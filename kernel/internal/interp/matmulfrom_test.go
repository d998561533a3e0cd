package interp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernel/internal/front"
)

// matMulFromSrc multiplies a 16×k A (rows lda apart, from row r0) by a k×16
// B (rows 16 apart) into c, a group's tile, with MatMulAddFrom: the offset
// of A comes from a local the group computes.
const matMulFromSrc = `package k

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func From(c, a, b []float32, r0, lda uint32) {
	cs := kernel.Shared[[256]float32]()
	t, nt := kernel.ThreadIndex(), kernel.GroupSizeX()
	for e := t; e < 256; e += nt {
		cs[e] = c[e]
	}
	off := r0 * lda
	kernel.MatMulAddFrom(cs, a, off, lda, b, 0, 16, kernel.MatMul{M: 16, N: 16, K: 16})
	for e := t; e < 256; e += nt {
		c[e] = cs[e]
	}
}
`

// TestMatMulAddFrom runs MatMulAddFrom in the interpreter: c (not zero) +=
// A·B with A read from its offset and stride, every element of the tile
// against a float64 reference; an A that ends one float past its buffer fails the
// launch as an index out of range does.
func TestMatMulAddFrom(t *testing.T) {
	m, err := front.Load([]front.File{{Name: "k.go", Src: matMulFromSrc}})
	require.NoError(t, err)
	ks, err := Compile(m)
	require.NoError(t, err)
	k := ks["From"]
	const r0, lda = 3, 19
	a, b, c := make([]float32, (r0+16)*lda), make([]float32, 256), make([]float32, 256)
	for i := range a {
		a[i] = float32(i%11) - 5
	}
	for i := range b {
		b[i] = float32(i%7)*0.5 - 1
	}
	for i := range c {
		c[i] = float32(i)
	}
	want := make([]float32, 256)
	for i := range 16 {
		for j := range 16 {
			s := float64(c[i*16+j])
			for p := range 16 {
				s += float64(a[(r0+i)*lda+p]) * float64(b[p*16+j])
			}
			want[i*16+j] = float32(s)
		}
	}
	require.NoError(t, launch(k, backend.Dim3{X: 1}, backend.Dim3{X: 64}, buf(c), buf(a), buf(b), argU32(r0), argU32(lda)))
	assert.InDeltaSlice(t, want, c, 1e-3)

	err = launch(k, backend.Dim3{X: 1}, backend.Dim3{X: 64}, buf(c), buf(a[:(r0+15)*lda+15]), buf(b), argU32(r0), argU32(lda))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "kernel.MatMulAddFrom")
	err = launch(k, backend.Dim3{X: 1}, backend.Dim3{X: 64}, buf(c), buf(a), buf(b), argU32(100), argU32(lda))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "out of range")
}
