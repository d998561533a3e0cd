//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func blocksOf(a *allocator) (shared, used int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, b := range a.blocks {
		shared++
		if b.used > 0 {
			used++
		}
	}
	return shared, used
}

// TestSubAllocation: small buffers share one VkDeviceMemory block, each with
// its own VkBuffer at an aligned offset; frees coalesce and keep one empty
// block; large buffers get their own allocation.
func TestSubAllocation(t *testing.T) {
	d := openTestDevice(t)
	a := d.devMem
	before := a.total.Load()
	var bufs []backend.Buffer
	offsets := map[uint64]bool{}
	for i := 0; i < 200; i++ {
		b, err := d.Alloc(int64(1 + i*37))
		require.NoError(t, err)
		vb := b.(*buffer).vb
		assert.Zero(t, vb.off%16, "aligned")
		assert.False(t, offsets[vb.off], "distinct offsets")
		offsets[vb.off] = true
		bufs = append(bufs, b)
	}
	shared, _ := blocksOf(a)
	assert.Equal(t, 1, shared, "200 small buffers in one block")
	assert.Equal(t, a.blockSize, a.total.Load()-before)
	// Free every other buffer, then the rest: the block's free list
	// coalesces back to one span.
	for i := 0; i < len(bufs); i += 2 {
		require.NoError(t, bufs[i].Close())
	}
	for i := 1; i < len(bufs); i += 2 {
		require.NoError(t, bufs[i].Close())
	}
	a.mu.Lock()
	require.Len(t, a.blocks, 1)
	assert.Equal(t, []span{{0, a.blockSize}}, a.blocks[0].free)
	a.mu.Unlock()

	big, err := d.Alloc(int64(a.blockSize))
	require.NoError(t, err)
	assert.True(t, big.(*buffer).vb.block.dedicated)
	require.NoError(t, big.Close())
	a.trim()
	assert.Equal(t, before, a.total.Load(), "trim returns the empty block")

	h, err := d.AllocHost(1000)
	require.NoError(t, err)
	assert.Len(t, h.Bytes(), 1000)
	require.NoError(t, h.Close())
	assert.Nil(t, h.Bytes())
}

func TestOversizeAllocationIsClean(t *testing.T) {
	d := openTestDevice(t)
	for _, size := range []int64{int64(d.devMem.heapSize) + 1, 1 << 50} {
		_, err := d.Alloc(size)
		require.Error(t, err)
		assert.Equal(t, errors.OutOfMemory, errors.CategoryOf(err), "%v", err)
		assert.NotEmpty(t, errors.Hint(err))
	}
	assert.Empty(t, ValidationMessages(), "refused before any Vulkan call")
}

// TestPipelineCacheSaved: the VkPipelineCache is written under
// ANYGPU_CACHE_DIR when the device closes, and read back by the next one.
func TestPipelineCacheSaved(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvCacheDir, dir)
	d := openTestDevice(t)
	ctx := context.Background()
	mod, err := d.Compile(ctx, kernels.Source(), backend.CompileOptions{})
	require.NoError(t, err)
	k, err := mod.Kernel(kernels.OpFill)
	require.NoError(t, err)
	s, err := d.NewStream()
	require.NoError(t, err)
	y, err := d.Alloc(64)
	require.NoError(t, err)
	require.NoError(t, s.Launch(k, backend.Dim3{X: 1}, backend.Dim3{X: 16}, []backend.Arg{
		{Kind: backend.ArgBuffer, Buffer: y}, {Kind: backend.ArgU32, Bits: 16}, {Kind: backend.ArgF32, Bits: 0x3f800000}}))
	require.NoError(t, s.Synchronize(ctx))
	require.NoError(t, s.Close())
	require.NoError(t, mod.Close())
	require.NoError(t, d.Close())
	path := pipelineCachePath(d.pd)
	require.Equal(t, dir, filepath.Dir(filepath.Dir(path)))
	data, err := os.ReadFile(path)
	require.NoError(t, err, "the cache file")
	assert.GreaterOrEqual(t, len(data), 32, "at least the header (lavapipe caches nothing more)")
	assert.NotNil(t, loadPipelineCache(path, d.pd), "the header matches the device")
	other := *d.pd
	other.props.DeviceID++
	assert.Nil(t, loadPipelineCache(path, &other), "another device's cache is ignored")
	d2 := openTestDevice(t)
	assert.NotZero(t, d2.kern.cache)
}
