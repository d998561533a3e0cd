package gpu

import (
	"testing"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

type fakeBlock struct {
	size   int64
	closed *int
}

func (b *fakeBlock) Close() error { *b.closed++; return nil }

func fakeAlloc(allocs, closed *int, failAbove int64) func(int64) (closer, error) {
	return func(size int64) (closer, error) {
		if failAbove > 0 && size > failAbove {
			return nil, errors.E(errors.OutOfMemory, "fake", "alloc", "out of memory")
		}
		*allocs++
		return &fakeBlock{size: size, closed: closed}, nil
	}
}

func TestPoolSizeClasses(t *testing.T) {
	p := newPool(DefaultPool, nil)
	for _, tc := range []struct{ size, class int64 }{
		{1, 64 << 10}, {64 << 10, 64 << 10}, {64<<10 + 1, 128 << 10}, {1 << 20, 1 << 20},
		{1<<20 + 1, 2 << 20}, {64 << 20, 64 << 20}, {64<<20 + 1, 0}, {1 << 40, 0},
	} {
		require.Equal(t, tc.class, p.class(tc.size), "class of %d", tc.size)
	}
	require.Zero(t, newPool(NoPool, nil).class(100), "NoPool pools nothing")
	require.Zero(t, newPool(PoolConfig{MinBlock: 1, MaxBlock: 3000, MaxPoolBytes: 1 << 20}, nil).class(2500),
		"a class above a MaxBlock that is not a power of two bypasses")
}

func TestPoolHitsMissesReturnsDrops(t *testing.T) {
	var allocs, closed int
	p := newPool(PoolConfig{MinBlock: 1024, MaxBlock: 1 << 20, MaxPoolBytes: 4096}, fakeAlloc(&allocs, &closed, 0))
	a, ca, err := p.get(1000)
	require.NoError(t, err)
	require.Equal(t, int64(1024), ca)
	b, cb, err := p.get(3000)
	require.NoError(t, err)
	require.Equal(t, int64(4096), cb)
	require.NoError(t, p.put(a, ca))
	require.NoError(t, p.put(b, cb), "4096 more would exceed the cap: dropped")
	s := p.Stats()
	require.Equal(t, PoolStats{Available: 1024, InUse: 0, PoolBytes: 1024, Misses: 2, Returns: 1, Drops: 1}, s)
	require.Equal(t, 1, closed)

	c, cc, err := p.get(512)
	require.NoError(t, err)
	require.Same(t, a, c, "the freed block is reused")
	require.Equal(t, int64(1024), cc)
	require.Equal(t, int64(1), p.Stats().Hits)
	require.InDelta(t, 1.0/3, p.Stats().HitRate(), 1e-9)

	big, cbig, err := p.get(2 << 20)
	require.NoError(t, err)
	require.Zero(t, cbig, "too large for the pool")
	require.Equal(t, int64(1), p.Stats().Bypassed)
	require.NoError(t, p.put(big, cbig))
	require.Equal(t, 2, closed, "a bypassing block is freed on put")

	require.NoError(t, p.put(c, cc))
	p.Trim()
	require.Equal(t, 3, closed)
	require.Zero(t, p.Stats().Available)
	require.Equal(t, int64(1), p.Stats().Trims)
	require.Equal(t, 3, allocs)
}

func TestPoolPreallocate(t *testing.T) {
	var allocs, closed int
	cfg := PoolConfig{MinBlock: 1 << 20, MaxBlock: 8 << 20, MaxPoolBytes: 10 << 20, Preallocate: true}
	p := newPool(cfg, fakeAlloc(&allocs, &closed, 0))
	require.NoError(t, p.preallocate())
	// 1 + 2 + 4 MiB fit under 10 MiB; 8 more would not.
	require.Equal(t, 3, allocs)
	require.Equal(t, int64(7<<20), p.Stats().Available)
	_, _, err := p.get(3 << 20)
	require.NoError(t, err)
	require.Equal(t, int64(1), p.Stats().Hits, "a preallocated block serves the first request")
}

func TestPoolAllocFailure(t *testing.T) {
	var allocs, closed int
	p := newPool(DefaultPool, fakeAlloc(&allocs, &closed, 1<<20))
	_, _, err := p.get(2 << 20)
	require.ErrorIs(t, err, errors.OutOfMemory)
	require.Zero(t, p.Stats().InUse, "a failed allocation holds nothing")
}

func TestCheckRange(t *testing.T) {
	for _, tc := range []struct {
		off, n, size int64
		ok           bool
	}{
		{0, 0, 0, true}, {0, 10, 10, true}, {10, 0, 10, true}, {5, 5, 10, true},
		{-1, 1, 10, false}, {0, -1, 10, false}, {11, 0, 10, false}, {5, 6, 10, false},
		{1 << 62, 1 << 62, 10, false}, {1, 1<<63 - 1, 10, false},
	} {
		err := checkRange(tc.off, tc.n, tc.size)
		require.Equal(t, tc.ok, err == nil, "checkRange(%d, %d, %d): %v", tc.off, tc.n, tc.size, err)
	}
}

// TestDevicePool: a discrete GPU's default pool grows with its memory
// (capped), everything else keeps DefaultPool.
func TestDevicePool(t *testing.T) {
	for _, tc := range []struct {
		name string
		info DeviceInfo
		want PoolConfig
	}{
		{"H200", DeviceInfo{Type: backend.TypeDiscreteGPU, MemoryBytes: 141 << 30},
			PoolConfig{MinBlock: DefaultPool.MinBlock, MaxBlock: 1 << 30, MaxPoolBytes: 4 << 30}},
		{"8 GiB GPU", DeviceInfo{Type: backend.TypeDiscreteGPU, MemoryBytes: 8 << 30},
			PoolConfig{MinBlock: DefaultPool.MinBlock, MaxBlock: 64 << 20, MaxPoolBytes: 256 << 20}},
		{"24 GiB GPU", DeviceInfo{Type: backend.TypeDiscreteGPU, MemoryBytes: 24 << 30},
			PoolConfig{MinBlock: DefaultPool.MinBlock, MaxBlock: 192 << 20, MaxPoolBytes: 768 << 20}},
		{"software", DeviceInfo{Type: backend.TypeSoftware, MemoryBytes: 64 << 30}, DefaultPool},
		{"CPU", DeviceInfo{Type: backend.TypeCPU, MemoryBytes: 64 << 30}, DefaultPool},
		{"unknown memory", DeviceInfo{Type: backend.TypeDiscreteGPU}, DefaultPool},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, devicePool(tc.info)) })
	}
}
