//go:build cgo

package wgsl

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
)

// blockKernels read the block size and do arithmetic on it that a constant
// evaluator would reject (a left shift out of 32 bits) or that the driver
// folds once the size is a constant (division, remainder).
const blockKernels = `package kernels

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func Sizes(out []uint32, d uint32) {
	if kernel.ThreadX()|kernel.ThreadY()|kernel.ThreadZ()|kernel.GroupX()|kernel.GroupY()|kernel.GroupZ() != 0 {
		return
	}
	b := kernel.GroupSizeX()
	out[0] = b
	out[1] = kernel.GroupSizeY()
	out[2] = kernel.GroupSizeZ()
	out[3] = b << 26
	out[4] = d / b
	out[5] = d % b
	out[6] = (b * kernel.GroupSizeY() * kernel.GroupSizeZ()) << 29
}
`

// TestE2EBlockSize checks that GroupSizeX/Y/Z are the launch's block, for
// the block the source declares and blocks compiled for the launch, and
// that the block's arithmetic wraps as Go's.
func TestE2EBlockSize(t *testing.T) {
	dev := openWebGPU(t)
	mod := compileAll(t, dev, loadGo(t, blockKernels))
	k := kernelOf(t, mod, "Sizes")
	const d = 1000003
	for _, block := range []gpu.Dim3{{X: 64, Y: 1, Z: 1}, {X: 48, Y: 1, Z: 1}, {X: 256, Y: 1, Z: 1}, {X: 8, Y: 4, Z: 2}, {X: 1, Y: 1, Z: 1}} {
		t.Run(fmt.Sprintf("%dx%dx%d", block.X, block.Y, block.Z), func(t *testing.T) {
			out := upload(t, dev, make([]uint32, 8))
			require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(2), block, gpu.Buf(out), gpu.U32(d)))
			b, threads := uint32(block.X), uint32(block.X*block.Y*block.Z)
			want := []uint32{b, uint32(block.Y), uint32(block.Z), b << 26, d / b, d % b, threads << 29, 0}
			assert.Equal(t, want, download[uint32](t, out))
		})
	}
}
