package collective

import (
	"context"
	"slices"
	"strings"
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

// method calls one public collective with the arguments of a; the table
// lists all seven.
type method struct {
	name string
	call func(c *Comm, a call) error
}

var methods = []method{
	{"all-reduce", func(c *Comm, a call) error { return c.AllReduce(a.s, a.send, a.recv, a.count, a.t, a.op) }},
	{"broadcast", func(c *Comm, a call) error { return c.Broadcast(a.s, a.send, a.recv, a.count, a.t, a.rank) }},
	{"reduce", func(c *Comm, a call) error { return c.Reduce(a.s, a.send, a.recv, a.count, a.t, a.op, a.rank) }},
	{"all-gather", func(c *Comm, a call) error { return c.AllGather(a.s, a.send, a.recv, a.count, a.t) }},
	{"reduce-scatter", func(c *Comm, a call) error { return c.ReduceScatter(a.s, a.send, a.recv, a.count, a.t, a.op) }},
	{"send", func(c *Comm, a call) error { return c.Send(a.s, a.send, a.count, a.t, a.rank) }},
	{"receive", func(c *Comm, a call) error { return c.Recv(a.s, a.recv, a.count, a.t, a.rank) }},
}

// collectiveFixture is rank 0 of 2 on a CPU device, with a library that has
// no functions (nothing reaches native code), and buffers to pass.
type collectiveFixture struct {
	cpu, other             *gpu.Device
	c, old                 *Comm // old: an NCCL without fp8
	small, big, big2, away *gpu.Buffer
	// valid are arguments every collective accepts on rank 0: 4 float32s,
	// Sum, rank 1 as root or peer, two different large buffers.
	valid call
}

func newCollectiveFixture(t *testing.T) *collectiveFixture {
	f := &collectiveFixture{cpu: openCPU(t), other: openCPU(t)}
	buf := func(d *gpu.Device, n int64) *gpu.Buffer {
		b, err := d.Alloc(n)
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		return b
	}
	f.small, f.big, f.big2, f.away = buf(f.cpu, 16), buf(f.cpu, 1024), buf(f.cpu, 1024), buf(f.other, 1024)
	f.c = &Comm{lib: &library{version: 22807}, dev: f.cpu, rank: 0, size: 2}
	f.old = &Comm{lib: &library{version: 22300}, dev: f.cpu, rank: 0, size: 2}
	f.valid = call{s: f.cpu.DefaultStream(), send: f.big, recv: f.big2, count: 4, t: Float32, op: Sum, rank: 1}
	return f
}

// TestEveryCollectiveChecks runs the checks every collective shares over all
// seven: each argument that is wrong for all of them, and valid arguments,
// which get as far as the stream's native handle (none on the CPU).
func TestEveryCollectiveChecks(t *testing.T) {
	f := newCollectiveFixture(t)
	closed := &Comm{lib: f.c.lib, dev: f.cpu, rank: 0, size: 2}
	require.NoError(t, closed.Close())
	cases := []struct {
		name string
		comm *Comm
		edit func(a *call)
		cat  errors.Category
		msg  string
	}{
		{"valid arguments reach the stream handle", f.c, func(*call) {}, errors.NotSupported, ""},
		{"nil communicator", nil, func(*call) {}, errors.InvalidArgument, "nil communicator"},
		{"closed communicator", closed, func(*call) {}, errors.Closed, "communicator is closed"},
		{"nil stream", f.c, func(a *call) { a.s = nil }, errors.InvalidArgument, "nil stream"},
		{"stream of another device", f.c, func(a *call) { a.s = f.other.DefaultStream() }, errors.InvalidArgument, "the stream belongs to"},
		{"negative count", f.c, func(a *call) { a.count = -1 }, errors.InvalidArgument, "count -1 is negative"},
		{"unknown type", f.c, func(a *call) { a.t = DataType(42) }, errors.InvalidArgument, "unknown data type 42"},
		{"fp8 on an old NCCL", f.old, func(a *call) { a.t = Float8E4M3 }, errors.NotSupported, "float8e4m3 needs NCCL 2.24.0 or newer; this is 2.23.0"},
	}
	for _, m := range methods {
		for _, tc := range cases {
			t.Run(m.name+"/"+tc.name, func(t *testing.T) {
				a := f.valid
				tc.edit(&a)
				err := m.call(tc.comm, a)
				requireCat(t, err, tc.cat, tc.name)
				assert.Contains(t, err.Error(), tc.msg)
				var e *errors.Error
				require.True(t, errors.As(err, &e))
				assert.True(t, strings.HasPrefix(e.Op, m.name), "the error names the collective: %q", e.Op)
			})
		}
	}
}

// TestCollectiveArguments checks what differs between the collectives: the
// reduction, the root or peer, which buffers they use and how large, and
// which may be nil or the same.
func TestCollectiveArguments(t *testing.T) {
	f := newCollectiveFixture(t)
	const ok = errors.NotSupported // valid arguments stop at the stream handle
	cases := []struct {
		method string
		name   string
		edit   func(a *call)
		cat    errors.Category
		msg    string
	}{
		{"all-reduce", "nil send", func(a *call) { a.send = nil }, errors.InvalidArgument, "nil send buffer"},
		{"all-reduce", "nil receive", func(a *call) { a.recv = nil }, errors.InvalidArgument, "nil receive buffer"},
		{"all-reduce", "send checked first", func(a *call) { a.send, a.recv = nil, nil }, errors.InvalidArgument, "nil send buffer"},
		{"all-reduce", "send of another device", func(a *call) { a.send = f.away }, errors.InvalidArgument, "the send buffer belongs to cpu:"},
		{"all-reduce", "receive of another device", func(a *call) { a.recv = f.away }, errors.InvalidArgument, "the receive buffer belongs to cpu:"},
		{"all-reduce", "send too small", func(a *call) { a.send, a.count = f.small, 5 }, errors.InvalidArgument, "the send buffer holds 16 bytes, too few for 5 float32 elements"},
		{"all-reduce", "receive too small", func(a *call) { a.recv, a.count = f.small, 5 }, errors.InvalidArgument, "the receive buffer holds 16 bytes"},
		{"all-reduce", "overflowing count", func(a *call) { a.t, a.count = Float64, 1<<62 }, errors.InvalidArgument, "too few for 4611686018427387904 float64 elements"},
		{"all-reduce", "unknown reduction", func(a *call) { a.op = Op(7) }, errors.InvalidArgument, "unknown reduction 7"},
		{"all-reduce", "reduction checked before buffers", func(a *call) { a.op, a.send = Op(-1), nil }, errors.InvalidArgument, "unknown reduction -1"},
		{"all-reduce", "in place", func(a *call) { a.recv = a.send }, ok, ""},
		{"all-reduce", "exactly large enough", func(a *call) { a.send, a.recv = f.small, f.small }, ok, ""},
		{"all-reduce", "zero elements", func(a *call) { a.count = 0 }, ok, ""},
		{"all-reduce", "no root: rank ignored", func(a *call) { a.rank = -7 }, ok, ""},

		{"broadcast", "root out of range", func(a *call) { a.rank = 2 }, errors.InvalidArgument, "root 2 is outside 0..1"},
		{"broadcast", "root negative", func(a *call) { a.rank = -1 }, errors.InvalidArgument, "root -1 is outside 0..1"},
		{"broadcast", "root without send", func(a *call) { a.rank, a.send = 0, nil }, errors.InvalidArgument, "nil send buffer"},
		{"broadcast", "root with too small a send", func(a *call) { a.rank, a.send, a.count = 0, f.small, 5 }, errors.InvalidArgument, "the send buffer holds 16 bytes"},
		{"broadcast", "non-root without send", func(a *call) { a.send = nil }, ok, ""},
		{"broadcast", "non-root send checked when given", func(a *call) { a.send = f.away }, errors.InvalidArgument, "the send buffer belongs to"},
		{"broadcast", "receive checked before send", func(a *call) { a.rank, a.send, a.recv = 0, nil, nil }, errors.InvalidArgument, "nil receive buffer"},
		{"broadcast", "receive too small", func(a *call) { a.recv, a.count = f.small, 5 }, errors.InvalidArgument, "the receive buffer holds 16 bytes"},
		{"broadcast", "in place on root", func(a *call) { a.rank, a.send = 0, a.recv }, ok, ""},
		{"broadcast", "no reduction: op ignored", func(a *call) { a.op = Op(7) }, ok, ""},

		{"reduce", "unknown reduction", func(a *call) { a.op = Op(5) }, errors.InvalidArgument, "unknown reduction 5"},
		{"reduce", "root out of range", func(a *call) { a.rank = 2 }, errors.InvalidArgument, "root 2 is outside 0..1"},
		{"reduce", "root negative", func(a *call) { a.rank = -1 }, errors.InvalidArgument, "root -1 is outside 0..1"},
		{"reduce", "root without receive", func(a *call) { a.rank, a.recv = 0, nil }, errors.InvalidArgument, "nil receive buffer"},
		{"reduce", "non-root without receive", func(a *call) { a.recv = nil }, ok, ""},
		{"reduce", "non-root receive checked when given", func(a *call) { a.recv, a.count = f.small, 5 }, errors.InvalidArgument, "the receive buffer holds 16 bytes"},
		{"reduce", "send checked before receive", func(a *call) { a.rank, a.send, a.recv = 0, nil, nil }, errors.InvalidArgument, "nil send buffer"},
		{"reduce", "send of another device", func(a *call) { a.send = f.away }, errors.InvalidArgument, "the send buffer belongs to"},
		{"reduce", "in place", func(a *call) { a.rank, a.recv = 0, a.send }, ok, ""},

		{"all-gather", "same buffer", func(a *call) { a.recv = a.send }, errors.InvalidArgument, "send and receive are the same buffer: gather into another one"},
		{"all-gather", "same buffer before sizes", func(a *call) { a.send, a.recv, a.count = f.small, f.small, 400 }, errors.InvalidArgument, "gather into another one"},
		{"all-gather", "both nil", func(a *call) { a.send, a.recv = nil, nil }, errors.InvalidArgument, "nil send buffer"},
		{"all-gather", "nil receive", func(a *call) { a.recv = nil }, errors.InvalidArgument, "nil receive buffer"},
		{"all-gather", "2 ranks' blocks fit", func(a *call) { a.send = f.small }, ok, ""},
		{"all-gather", "receive holds one block only", func(a *call) { a.recv = f.small }, errors.InvalidArgument, "the receive buffer holds 16 bytes, too few for 8 float32 elements"},
		{"all-gather", "ranks times count overflows", func(a *call) { a.count = 1 << 62 }, errors.InvalidArgument, "2 ranks times 4611686018427387904 elements overflows"},
		{"all-gather", "no reduction: op ignored", func(a *call) { a.op = Op(7) }, ok, ""},
		{"all-gather", "no root: rank ignored", func(a *call) { a.rank = 9 }, ok, ""},

		{"reduce-scatter", "unknown reduction", func(a *call) { a.op = Op(9) }, errors.InvalidArgument, "unknown reduction 9"},
		{"reduce-scatter", "same buffer", func(a *call) { a.recv = a.send }, errors.InvalidArgument, "send and receive are the same buffer: scatter into another one"},
		{"reduce-scatter", "send holds one block only", func(a *call) { a.send = f.small }, errors.InvalidArgument, "the send buffer holds 16 bytes, too few for 8 float32 elements"},
		{"reduce-scatter", "receive holds one block", func(a *call) { a.recv, a.op = f.small, Avg }, ok, ""},
		{"reduce-scatter", "no root: rank ignored", func(a *call) { a.rank = 0 }, ok, ""},
		{"reduce-scatter", "ranks times count overflows", func(a *call) { a.count = 1 << 62 }, errors.InvalidArgument, "2 ranks times 4611686018427387904 elements overflows"},
		{"reduce-scatter", "overflow checked after the reduction", func(a *call) { a.count, a.op = 1<<62, Op(9) }, errors.InvalidArgument, "unknown reduction 9"},

		{"send", "to itself", func(a *call) { a.rank = 0 }, errors.InvalidArgument, "peer 0 is this rank"},
		{"send", "peer out of range", func(a *call) { a.rank = 3 }, errors.InvalidArgument, "peer 3 is outside 0..1"},
		{"send", "peer negative", func(a *call) { a.rank = -1 }, errors.InvalidArgument, "peer -1 is outside 0..1"},
		{"send", "nil buffer", func(a *call) { a.send = nil }, errors.InvalidArgument, "nil send buffer"},
		{"send", "buffer too small", func(a *call) { a.send, a.count = f.small, 5 }, errors.InvalidArgument, "the send buffer holds 16 bytes"},
		{"send", "buffer of another device", func(a *call) { a.send = f.away }, errors.InvalidArgument, "the send buffer belongs to"},
		{"send", "no reduction: op ignored", func(a *call) { a.op = Op(7) }, ok, ""},

		{"receive", "from itself", func(a *call) { a.rank = 0 }, errors.InvalidArgument, "peer 0 is this rank"},
		{"receive", "peer out of range", func(a *call) { a.rank = 3 }, errors.InvalidArgument, "peer 3 is outside 0..1"},
		{"receive", "nil buffer", func(a *call) { a.recv = nil }, errors.InvalidArgument, "nil receive buffer"},
		{"receive", "buffer too small", func(a *call) { a.recv, a.count = f.small, 5 }, errors.InvalidArgument, "the receive buffer holds 16 bytes"},
		{"receive", "buffer of another device", func(a *call) { a.recv = f.away }, errors.InvalidArgument, "the receive buffer belongs to"},
	}
	for _, tc := range cases {
		t.Run(tc.method+"/"+tc.name, func(t *testing.T) {
			i := slices.IndexFunc(methods, func(m method) bool { return m.name == tc.method })
			require.GreaterOrEqual(t, i, 0, "unknown method %q", tc.method)
			a := f.valid
			tc.edit(&a)
			err := methods[i].call(f.c, a)
			requireCat(t, err, tc.cat, tc.name)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

// TestNativeArguments checks each collective's argument list against the
// signature of its NCCL function (nccl.h).
func TestNativeArguments(t *testing.T) {
	const sp, rp, comm, stream = 0x5e0d, 0x2ecf, 0xc033, 0x5743
	a := call{count: 4, t: Float64, op: Max, rank: 1}
	cases := []struct {
		k    *collective
		want []uintptr
	}{
		// ncclAllReduce(sendbuff, recvbuff, count, datatype, op, comm, stream)
		{&allReduce, []uintptr{sp, rp, 4, uintptr(Float64), uintptr(Max), comm, stream}},
		// ncclBroadcast(sendbuff, recvbuff, count, datatype, root, comm, stream)
		{&broadcast, []uintptr{sp, rp, 4, uintptr(Float64), 1, comm, stream}},
		// ncclReduce(sendbuff, recvbuff, count, datatype, op, root, comm, stream)
		{&reduce, []uintptr{sp, rp, 4, uintptr(Float64), uintptr(Max), 1, comm, stream}},
		// ncclAllGather(sendbuff, recvbuff, sendcount, datatype, comm, stream)
		{&allGather, []uintptr{sp, rp, 4, uintptr(Float64), comm, stream}},
		// ncclReduceScatter(sendbuff, recvbuff, recvcount, datatype, op, comm, stream)
		{&reduceScatter, []uintptr{sp, rp, 4, uintptr(Float64), uintptr(Max), comm, stream}},
		// ncclSend(sendbuff, count, datatype, peer, comm, stream)
		{&sendTo, []uintptr{sp, 4, uintptr(Float64), 1, comm, stream}},
		// ncclRecv(recvbuff, count, datatype, peer, comm, stream)
		{&recvFrom, []uintptr{rp, 4, uintptr(Float64), 1, comm, stream}},
	}
	var args [8]uintptr
	for _, tc := range cases {
		t.Run(tc.k.name, func(t *testing.T) {
			got := tc.k.nativeArgs(args[:0], sp, rp, a, comm, stream)
			assert.Equal(t, tc.want, got)
			assert.Same(t, &args[0], &got[0], "the arguments go into the given array: no allocation")
		})
	}
	assert.Len(t, methods, len(cases), "every public collective has a table entry")
}

func TestCommLifecycle(t *testing.T) {
	f := newCollectiveFixture(t)
	c := f.c
	var nilComm *Comm
	requireCat(t, nilComm.Err(), errors.InvalidArgument, "nil communicator")
	assert.NoError(t, nilComm.Close())
	assert.NoError(t, nilComm.Abort())

	assert.Equal(t, "rank 0 of 2 on cpu:0", c.String())
	assert.NoError(t, c.Err())
	assert.NoError(t, c.Close())
	assert.NoError(t, c.Close(), "closing twice")
	assert.NoError(t, c.Abort(), "aborting a closed communicator")
	requireCat(t, c.AllReduce(f.valid.s, f.big, f.big, 4, Float32, Sum), errors.Closed, "closed communicator")
	assert.NoError(t, CloseAll([]*Comm{c, nil, f.old}))

	require.NoError(t, f.big.Close())
	requireCat(t, (&Comm{lib: c.lib, dev: f.cpu, size: 1}).AllReduce(f.valid.s, f.big, f.big, 4, Float32, Sum), errors.Closed, "closed buffer")
}
