package gpu

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cpu"
	"github.com/anygpu/gpu/errors"
)

// TestStreamsReuse: streams from Streams hand their native streams back on
// Close, and the next Streams call reuses them; they work like any stream;
// bad counts and a closed device are refused.
func TestStreamsReuse(t *testing.T) {
	ctx := context.Background()
	dev, err := OpenDriver(ctx, cpu.Driver{}, 0)
	require.NoError(t, err)
	first, err := dev.Streams(3)
	require.NoError(t, err)
	require.Len(t, first, 3)
	impls := map[backend.Stream]bool{}
	ids := map[int]bool{}
	for _, s := range first {
		impls[s.impl] = true
		ids[s.ID()] = true
	}
	require.Len(t, impls, 3, "three native streams")
	buf, err := dev.Alloc(64)
	require.NoError(t, err)
	defer buf.Close()
	for _, s := range first {
		require.NoError(t, s.Fill(buf, 0, 64, 7))
		require.NoError(t, s.Close())
	}
	again, err := dev.Streams(4)
	require.NoError(t, err)
	reused := 0
	for _, s := range again {
		if impls[s.impl] {
			reused++
		}
		require.False(t, ids[s.ID()], "a new Stream, with a new id")
		require.NoError(t, s.Synchronize(ctx))
	}
	require.Equal(t, 3, reused, "the three closed streams' native streams are reused, one is new")
	plain, err := dev.NewStream()
	require.NoError(t, err)
	require.NoError(t, plain.Close())
	require.Len(t, dev.idle, 0, "NewStream's streams are not kept for reuse")

	for _, n := range []int{0, -1, maxStreamsAtOnce + 1} {
		_, err := dev.Streams(n)
		require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "n=%d", n)
	}
	require.NoError(t, again[0].Close())
	require.Len(t, dev.idle, 1)
	require.NoError(t, dev.Close(), "closes idle and live native streams")
	require.Nil(t, dev.idle)
	_, err = dev.Streams(1)
	require.Equal(t, errors.Closed, errors.CategoryOf(err))
	require.NoError(t, again[1].Close(), "closing a stream after its device is not an error")
}
