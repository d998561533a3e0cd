package kernel_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/anygpu/gpu/kernel"
)

// TestLoadMatricesRunAsGo checks the plain Go forms: LoadMatrices panics
// (it needs its unit), CopyAsync copies.
func TestLoadMatricesRunAsGo(t *testing.T) {
	var f4 [4]uint32
	var f2 [2]uint32
	tile := new([64]uint32)
	assert.PanicsWithValue(t, "kernel.LoadMatrices4: a matrix unit's operation needs the 32 threads of its unit; it runs only in a translated kernel",
		func() { kernel.LoadMatrices4(&f4, tile, 0, false) })
	assert.Panics(t, func() { kernel.LoadMatrices2(&f2, tile, 0, true) })
	src := []float32{1, 2, 3, 4, 5, -6, 7.5, 8}
	kernel.CopyAsync(tile, 3, src, 1)
	kernel.CopyAsyncCommit()
	kernel.CopyAsyncWait(0)
	for i := range 4 {
		assert.Equal(t, math.Float32bits(src[4+i]), tile[12+i])
	}
	words := []uint32{9, 8, 7, 6}
	kernel.CopyAsync(tile, 0, words, 0)
	assert.Equal(t, words, tile[:4])
	assert.Panics(t, func() { kernel.CopyAsync(tile, 16, words, 0) }, "out of range")
	assert.Panics(t, func() { kernel.CopyAsync(new([8]float32), 0, words, 0) }, "not uint32")
}
