package naga_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/stretchr/testify/require"
)

// runAll compiles src on dev and runs every test kernel with both its blocks,
// comparing what it writes with the Go reference.
func runAll(t *testing.T, dev *gpu.Device, src gpu.Source) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	src.Params = params()
	mod, err := dev.Compile(ctx, src)
	require.NoError(t, err)
	defer mod.Close()
	for _, k := range testKernels {
		for _, block := range k.blocks {
			t.Run(k.name+"/"+blockName(block), func(t *testing.T) {
				kern, err := mod.Kernel(k.name)
				require.NoError(t, err)
				c := k.launch(block)
				var args []gpu.Arg
				var bufs []*gpu.Buffer
				for _, words := range c.bufs {
					b, err := gpu.FromSlice(ctx, dev, words)
					require.NoError(t, err)
					defer b.Close()
					bufs = append(bufs, b)
					args = append(args, gpu.Buf(b))
				}
				si := 0
				for _, kind := range k.params {
					if kind == backend.ArgBuffer {
						continue
					}
					args = append(args, scalarArg(kind, c.scalars[si]))
					si++
				}
				s := dev.DefaultStream()
				require.NoError(t, s.Launch(kern, c.grid, block, args...))
				require.NoError(t, s.Synchronize(ctx))
				got := make([][]uint32, len(bufs))
				for i, b := range bufs {
					got[i], err = gpu.ToSlice[uint32](ctx, b)
					require.NoError(t, err)
					got[i] = got[i][:len(c.bufs[i])]
				}
				require.Empty(t, c.check(got))
			})
		}
	}
}

// scalarArg makes a launch argument of kind from its bits.
func scalarArg(kind backend.ArgKind, bits uint32) gpu.Arg {
	switch kind {
	case backend.ArgF32:
		return gpu.F32(math.Float32frombits(bits))
	case backend.ArgI32:
		return gpu.I32(int32(bits))
	}
	return gpu.U32(bits)
}

func blockName(b gpu.Dim3) string {
	n := b.Norm()
	return fmt.Sprintf("block%dx%dx%d", n.X, n.Y, n.Z)
}
