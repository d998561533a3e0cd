//go:build cgo

package webgpu_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
)

// blockWGSL declares the block constants: sized runs with the launch's
// block as its work-group size and has no scalars (its uniform is the launch
// geometry alone); fixed keeps its literal size of 32.
const blockWGSL = `
const anygpu_block_x: u32 = 64u;
const anygpu_block_y: u32 = 1u;
const anygpu_block_z: u32 = 1u;

struct Launch { grid: vec4<u32>, block: vec4<u32> }
struct P { launch: Launch }
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<uniform> p: P;

// sized writes, at each of its threads, the work-group size it was compiled
// with (which must be the launched block) and the block from the geometry.
@compute @workgroup_size(anygpu_block_x, anygpu_block_y, anygpu_block_z)
fn sized(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
	let g = wg.x + p.launch.grid.x * (wg.y + p.launch.grid.y * wg.z);
	let size = anygpu_block_x * anygpu_block_y * anygpu_block_z;
	let b = p.launch.block;
	out[g * size + li] = size * 65536u + b.x * b.y * b.z;
}

@group(0) @binding(0) var<storage, read_write> fout: array<u32>;

@compute @workgroup_size(32)
fn fixed(@builtin(global_invocation_id) gid: vec3<u32>) {
	fout[gid.x] = 1u;
}
`

// TestBlockConstants launches a kernel sized by the block constants with
// more blocks than the backend keeps compiled (the least recently used are
// dropped and compiled again when launched again): every thread of every
// group runs, with the launch's block as the work-group size. The source's
// entry point of a literal size still refuses other blocks.
func TestBlockConstants(t *testing.T) {
	dev := openDev(t)
	ctx := context.Background()
	src := gpu.Source{Name: "blocks", WGSL: blockWGSL, Params: map[string][]gpu.ArgKind{"sized": {gpu.KindBuffer}, "fixed": {gpu.KindBuffer}}}
	sized := literalKernel(t, dev, src, "sized")
	fixed := literalKernel(t, dev, src, "fixed")
	st := dev.DefaultStream()
	var blocks []gpu.Dim3
	for _, x := range []int{64, 128, 256, 32, 1, 7, 96, 200, 160, 48, 64} {
		blocks = append(blocks, gpu.D1(x))
	}
	blocks = append(blocks, gpu.D2(16, 4), gpu.Dim3{X: 4, Y: 4, Z: 4}, gpu.D1(128), gpu.D1(7))
	const grid = 5
	for _, block := range blocks {
		t.Run(fmt.Sprint(block), func(t *testing.T) {
			size := block.X * block.Y * block.Z
			out, err := gpu.FromSlice(ctx, dev, make([]uint32, grid*size+8))
			require.NoError(t, err)
			defer out.Close()
			require.NoError(t, st.Launch(sized, gpu.D1(grid), block, gpu.Buf(out)))
			got, err := gpu.ToSlice[uint32](ctx, out)
			require.NoError(t, err)
			for i := range grid * size {
				require.Equal(t, uint32(size*65536+size), got[i], "thread %d", i)
			}
			assert.Equal(t, make([]uint32, 8), got[grid*size:], "past the grid: untouched")
		})
	}
	out, err := gpu.FromSlice(ctx, dev, make([]uint32, 256))
	require.NoError(t, err)
	defer out.Close()
	err = st.Launch(fixed, gpu.D1(4), gpu.D1(64), gpu.Buf(out))
	require.Error(t, err)
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
	require.NoError(t, st.Launch(fixed, gpu.D1(8), gpu.D1(32), gpu.Buf(out)))
	got, err := gpu.ToSlice[uint32](ctx, out)
	require.NoError(t, err)
	for i, v := range got {
		require.Equal(t, uint32(1), v, "element %d", i)
	}
}
