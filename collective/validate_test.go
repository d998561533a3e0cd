package collective

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func openCPU(t *testing.T) *gpu.Device {
	t.Helper()
	d, err := gpu.Open(context.Background(), gpu.WithBackends("cpu"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	return d
}

func requireCat(t *testing.T, err error, cat errors.Category, msg string) {
	t.Helper()
	require.Error(t, err, msg)
	assert.True(t, errors.Is(err, cat), "%s: want %s, got %v", msg, cat, err)
	var e *errors.Error
	if assert.True(t, errors.As(err, &e), "%s: an *errors.Error", msg) && cat == errors.InvalidArgument {
		assert.Equal(t, Backend, e.Backend, "%s: %v", msg, err)
	}
}

func TestCreationArguments(t *testing.T) {
	ctx := context.Background()
	cpu := openCPU(t)
	//lint:ignore SA1012 a nil context is what is tested
	_, err := NewLocal(nil, []*gpu.Device{cpu}) //nolint:staticcheck
	requireCat(t, err, errors.InvalidArgument, "nil context")
	_, err = NewLocal(ctx, nil)
	requireCat(t, err, errors.InvalidArgument, "no devices")
	_, err = NewLocal(ctx, []*gpu.Device{nil})
	requireCat(t, err, errors.InvalidArgument, "nil device")
	_, err = NewLocal(ctx, []*gpu.Device{cpu})
	requireCat(t, err, errors.NotSupported, "a CPU device")
	assert.Contains(t, errors.Hint(err), "OpenAll")

	var id UniqueID
	id[0] = 1
	_, err = NewComm(ctx, cpu, 0, 2, id)
	requireCat(t, err, errors.NotSupported, "a CPU device")
	_, err = NewComm(ctx, nil, 0, 2, id)
	requireCat(t, err, errors.InvalidArgument, "nil device")

	_, err = Join(ctx, cpu, 0, 2, nil)
	requireCat(t, err, errors.InvalidArgument, "nil bootstrap")
	_, err = Join(ctx, cpu, 0, 2, File{Path: "x"})
	requireCat(t, err, errors.NotSupported, "a CPU device")
}

func TestCollectiveArguments(t *testing.T) {
	cpu, other := openCPU(t), openCPU(t)
	fake := &library{version: 22807} // no functions: nothing reaches native code
	c := &Comm{lib: fake, dev: cpu, rank: 0, size: 2}
	s := cpu.DefaultStream()
	buf := func(d *gpu.Device, n int64) *gpu.Buffer {
		b, err := d.Alloc(n)
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		return b
	}
	small, big, foreign := buf(cpu, 16), buf(cpu, 1024), buf(other, 1024)

	requireCat(t, c.AllReduce(nil, big, big, 4, Float32, Sum), errors.InvalidArgument, "nil stream")
	requireCat(t, c.AllReduce(other.DefaultStream(), big, big, 4, Float32, Sum), errors.InvalidArgument, "stream of another device")
	requireCat(t, c.AllReduce(s, nil, big, 4, Float32, Sum), errors.InvalidArgument, "nil send")
	requireCat(t, c.AllReduce(s, big, nil, 4, Float32, Sum), errors.InvalidArgument, "nil receive")
	requireCat(t, c.AllReduce(s, foreign, big, 4, Float32, Sum), errors.InvalidArgument, "buffer of another device")
	requireCat(t, c.AllReduce(s, small, big, 5, Float32, Sum), errors.InvalidArgument, "buffer too small")
	requireCat(t, c.AllReduce(s, big, big, -1, Float32, Sum), errors.InvalidArgument, "negative count")
	requireCat(t, c.AllReduce(s, big, big, 1<<62, Float64, Sum), errors.InvalidArgument, "overflowing count")
	requireCat(t, c.AllReduce(s, big, big, 4, DataType(42), Sum), errors.InvalidArgument, "unknown type")
	requireCat(t, c.AllReduce(s, big, big, 4, Float32, Op(7)), errors.InvalidArgument, "unknown op")
	requireCat(t, c.AllReduce(s, big, big, 4, Float32, Sum), errors.NotSupported, "valid arguments reach the stream handle (none on the CPU)")

	requireCat(t, c.Broadcast(s, big, big, 4, Float32, 2), errors.InvalidArgument, "root out of range")
	requireCat(t, c.Broadcast(s, nil, big, 4, Float32, 0), errors.InvalidArgument, "root without send")
	requireCat(t, c.Broadcast(s, nil, big, 4, Float32, 1), errors.NotSupported, "non-root without send is fine")
	requireCat(t, c.Reduce(s, big, nil, 4, Float32, Max, 0), errors.InvalidArgument, "root without receive")
	requireCat(t, c.Reduce(s, big, big, 4, Float32, Max, -1), errors.InvalidArgument, "root negative")
	requireCat(t, c.AllGather(s, big, big, 4, Float32), errors.InvalidArgument, "gather in the same buffer")
	requireCat(t, c.AllGather(s, small, small, 4, Float32), errors.InvalidArgument, "gather in the same buffer")
	requireCat(t, c.AllGather(s, small, big, 4, Float32), errors.NotSupported, "4 floats gathered from 2 ranks fit")
	requireCat(t, c.AllGather(s, big, small, 4, Float32), errors.InvalidArgument, "gather into too small a buffer")
	requireCat(t, c.ReduceScatter(s, small, big, 4, Float32, Sum), errors.InvalidArgument, "scatter from too small a buffer")
	requireCat(t, c.ReduceScatter(s, big, small, 4, Float32, Avg), errors.NotSupported, "scatter that fits")
	requireCat(t, c.Send(s, big, 4, Float32, 0), errors.InvalidArgument, "send to self")
	requireCat(t, c.Recv(s, big, 4, Float32, 3), errors.InvalidArgument, "receive from a rank out of range")

	old := &Comm{lib: &library{version: 22300}, dev: cpu, rank: 0, size: 2}
	requireCat(t, old.AllReduce(s, big, big, 4, Float8E4M3, Sum), errors.NotSupported, "fp8 on an old NCCL")

	var nilComm *Comm
	requireCat(t, nilComm.AllReduce(s, big, big, 4, Float32, Sum), errors.InvalidArgument, "nil communicator")
	requireCat(t, nilComm.Err(), errors.InvalidArgument, "nil communicator")
	assert.NoError(t, nilComm.Close())
	assert.NoError(t, nilComm.Abort())

	assert.Equal(t, "rank 0 of 2 on cpu:0", c.String())
	assert.NoError(t, c.Err())
	assert.NoError(t, c.Close())
	assert.NoError(t, c.Close(), "closing twice")
	assert.NoError(t, c.Abort(), "aborting a closed communicator")
	requireCat(t, c.AllReduce(s, big, big, 4, Float32, Sum), errors.Closed, "closed communicator")
	assert.NoError(t, CloseAll([]*Comm{c, nil, old}))

	require.NoError(t, big.Close())
	requireCat(t, (&Comm{lib: fake, dev: cpu, size: 1}).AllReduce(s, big, big, 4, Float32, Sum), errors.Closed, "closed buffer")
}
