package collective

import (
	"fmt"
	"math"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/dl"
	"github.com/anygpu/gpu/profiling"
)

// The collectives are one call path: each public method names its entry of
// the table below and hands its arguments to Comm.issue, which validates
// them, builds NCCL's argument list (every NCCL collective takes its
// arguments in the same order, see nativeArgs) and enqueues the call.

// bufferUse says how a collective uses one of its buffers.
type bufferUse int

const (
	// unused: the collective has no such buffer (Send has no receive
	// buffer, Recv no send buffer).
	unused bufferUse = iota
	// perRank: the buffer holds count elements on every rank.
	perRank
	// allRanks: the buffer holds Size()*count elements, one block per rank.
	allRanks
	// onRoot: the buffer holds count elements and is used on the root only;
	// other ranks may pass nil, and NCCL then gets the other buffer's
	// address, which it ignores there.
	onRoot
)

// collective describes one NCCL collective for Comm.issue.
type collective struct {
	name       string    // the operation named in errors ("all-reduce")
	fn         sym       // the NCCL function
	send, recv bufferUse // how it uses each buffer
	reduces    bool      // it takes an Op
	rank       string    // "root" or "peer" when it takes a rank, else ""
	// distinct, when not "", means send and recv must be different buffers;
	// it is the verb of the error that says so ("gather into another one").
	distinct string
}

var (
	allReduce     = collective{name: "all-reduce", fn: symAllReduce, send: perRank, recv: perRank, reduces: true}
	broadcast     = collective{name: "broadcast", fn: symBroadcast, send: onRoot, recv: perRank, rank: "root"}
	reduce        = collective{name: "reduce", fn: symReduce, send: perRank, recv: onRoot, reduces: true, rank: "root"}
	allGather     = collective{name: "all-gather", fn: symAllGather, send: perRank, recv: allRanks, distinct: "gather"}
	reduceScatter = collective{name: "reduce-scatter", fn: symReduceScatter, send: allRanks, recv: perRank, reduces: true, distinct: "scatter"}
	sendTo        = collective{name: "send", fn: symSend, send: perRank, rank: "peer"}
	recvFrom      = collective{name: "receive", fn: symRecv, recv: perRank, rank: "peer"}
)

// call is the arguments of one collective, as the public method got them;
// fields the collective does not use are zero.
type call struct {
	s          *gpu.Stream
	send, recv *gpu.Buffer
	count      int
	t          DataType
	op         Op
	rank       int // root or peer
}

// AllReduce reduces count elements of type t from every rank's send with op
// and leaves the result in every rank's recv (ncclAllReduce). send and recv
// may be the same buffer (in place).
func (c *Comm) AllReduce(s *gpu.Stream, send, recv *gpu.Buffer, count int, t DataType, op Op) error {
	return c.issue(&allReduce, call{s: s, send: send, recv: recv, count: count, t: t, op: op})
}

// Broadcast copies count elements of root's send into every rank's recv
// (ncclBroadcast). send is read on root only: other ranks may pass nil. On
// root, send and recv may be the same buffer.
func (c *Comm) Broadcast(s *gpu.Stream, send, recv *gpu.Buffer, count int, t DataType, root int) error {
	return c.issue(&broadcast, call{s: s, send: send, recv: recv, count: count, t: t, rank: root})
}

// Reduce reduces count elements from every rank's send with op into root's
// recv (ncclReduce). recv is written on root only: other ranks may pass nil.
func (c *Comm) Reduce(s *gpu.Stream, send, recv *gpu.Buffer, count int, t DataType, op Op, root int) error {
	return c.issue(&reduce, call{s: s, send: send, recv: recv, count: count, t: t, op: op, rank: root})
}

// AllGather gathers count elements from every rank's send into every rank's
// recv, rank r's at element r*count (ncclAllGather): recv holds
// Size()*count elements. send and recv must be different buffers.
func (c *Comm) AllGather(s *gpu.Stream, send, recv *gpu.Buffer, count int, t DataType) error {
	return c.issue(&allGather, call{s: s, send: send, recv: recv, count: count, t: t})
}

// ReduceScatter reduces Size()*count elements from every rank's send with op
// and leaves block r of count elements of the result in rank r's recv
// (ncclReduceScatter). send and recv must be different buffers.
func (c *Comm) ReduceScatter(s *gpu.Stream, send, recv *gpu.Buffer, count int, t DataType, op Op) error {
	return c.issue(&reduceScatter, call{s: s, send: send, recv: recv, count: count, t: t, op: op})
}

// Send sends count elements of buf to rank peer, which must Recv them
// (ncclSend). Pair sends and receives inside Group to avoid deadlock.
func (c *Comm) Send(s *gpu.Stream, buf *gpu.Buffer, count int, t DataType, peer int) error {
	return c.issue(&sendTo, call{s: s, send: buf, count: count, t: t, rank: peer})
}

// Recv receives count elements from rank peer into buf (ncclRecv).
func (c *Comm) Recv(s *gpu.Stream, buf *gpu.Buffer, count int, t DataType, peer int) error {
	return c.issue(&recvFrom, call{s: s, recv: buf, count: count, t: t, rank: peer})
}

// issue validates a's arguments for collective k, then enqueues k's NCCL
// call on a.s. The checks run in this order: an open communicator, the
// stream, count and data type; the reduction; the root or peer; send and
// recv distinct; the buffers used on every rank (send first), then the one
// used on the root only; the stream's native handle.
func (c *Comm) issue(k *collective, a call) error {
	if c == nil {
		return invalid(k.name, "nil communicator")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.begin(k.name, a.s, a.count, a.t); err != nil {
		return err
	}
	if k.reduces && !a.op.valid() {
		return invalid(k.name, "unknown reduction %d", int(a.op))
	}
	if k.rank != "" {
		if a.rank < 0 || a.rank >= c.size {
			return invalid(k.name, "%s %d is outside 0..%d", k.rank, a.rank, c.size-1)
		}
		if k.rank == "peer" && a.rank == c.rank {
			return invalid(k.name, "peer %d is this rank", a.rank)
		}
	}
	if k.send == allRanks || k.recv == allRanks {
		if a.count > 0 && c.size > math.MaxInt/a.count {
			return invalid(k.name, "%d ranks times %d elements overflows", c.size, a.count)
		}
	}
	if k.distinct != "" && a.send != nil && a.send == a.recv {
		return invalid(k.name, "send and receive are the same buffer: %s into another one", k.distinct)
	}
	sp, rp, err := c.buffers(k, a)
	if err != nil {
		return err
	}
	st, err := a.s.NativeHandle()
	if err != nil {
		return errors.Wrap(err, Backend, k.name)
	}
	args := k.nativeArgs(c.args[:0], sp, rp, a, c.h, st) // c.args has room for all 8
	if g := currentGroup(); g != nil {
		// NCCL launches it at ncclGroupEnd: the Group records it then
		// (group.go).
		if err := c.enqueue(k.name, k.fn, len(args)); err != nil {
			return err
		}
		g.add(a.s, k.name, k.bytes(a, c.size))
		return nil
	}
	return a.s.ProfileNative(profiling.KindCollective, k.name, k.bytes(a, c.size), func() error {
		return c.enqueue(k.name, k.fn, len(args))
	})
}

// bytes is what a call of k moves on this rank, for the profiler: count
// elements, times the ranks for a buffer that holds every rank's block.
func (k *collective) bytes(a call, ranks int) int64 {
	n := int64(a.count) * int64(a.t.Size())
	if k.send == allRanks || k.recv == allRanks {
		n *= int64(ranks)
	}
	return n
}

// nativeArgs appends the arguments of k's NCCL function to dst, in NCCL's
// order: send, recv, count, datatype, op, root or peer, comm, stream, each
// where k has it.
func (k *collective) nativeArgs(dst []uintptr, sp, rp uintptr, a call, comm, stream uintptr) []uintptr {
	if k.send != unused {
		dst = append(dst, sp)
	}
	if k.recv != unused {
		dst = append(dst, rp)
	}
	dst = append(dst, uintptr(a.count), uintptr(a.t))
	if k.reduces {
		dst = append(dst, uintptr(a.op))
	}
	if k.rank != "" {
		dst = append(dst, uintptr(a.rank))
	}
	return append(dst, comm, stream)
}

// buffers checks a's send and recv as k uses them and returns their device
// addresses (0 for an unused one). The buffers used on every rank are checked
// first, send before recv; a buffer used on the root only is checked on the
// root and wherever it is given, and elsewhere the other buffer's address
// stands in for it.
func (c *Comm) buffers(k *collective, a call) (sp, rp uintptr, err error) {
	if k.send != unused && k.send != onRoot {
		if sp, err = c.buffer(k.name, "send", a.send, c.elements(k.send, a.count), a.t); err != nil {
			return 0, 0, err
		}
	}
	if k.recv != unused && k.recv != onRoot {
		if rp, err = c.buffer(k.name, "receive", a.recv, c.elements(k.recv, a.count), a.t); err != nil {
			return 0, 0, err
		}
	}
	root := c.rank == a.rank
	switch {
	case k.send == onRoot:
		sp = rp
		if root || a.send != nil {
			sp, err = c.buffer(k.name, "send", a.send, a.count, a.t)
		}
	case k.recv == onRoot:
		rp = sp
		if root || a.recv != nil {
			rp, err = c.buffer(k.name, "receive", a.recv, a.count, a.t)
		}
	}
	if err != nil {
		return 0, 0, err
	}
	return sp, rp, nil
}

// elements is how many elements a buffer used as u holds: count, or
// Size()*count for one block per rank (issue checked that it does not
// overflow).
func (c *Comm) elements(u bufferUse, count int) int {
	if u == allRanks {
		return c.size * count
	}
	return count
}

// begin checks what every collective needs, with c.mu held: an open
// communicator, a stream of its device, a known type, a count >= 0.
func (c *Comm) begin(op string, s *gpu.Stream, count int, t DataType) error {
	if c.closed {
		return &errors.Error{Backend: Backend, Op: op, Category: errors.Closed, Msg: "communicator is closed", Hint: "create a new communicator"}
	}
	if s == nil {
		return invalid(op, "nil stream")
	}
	if s.Device() != c.dev {
		return invalid(op, "the stream belongs to %s, rank %d to %s", s.Device().Name(), c.rank, c.dev.Name())
	}
	if count < 0 {
		return invalid(op, "count %d is negative", count)
	}
	if !t.valid() {
		return invalid(op, "unknown data type %d", int(t))
	}
	if v := minTypeVersion(t); c.lib.version < v {
		return &errors.Error{Backend: Backend, Op: op, Category: errors.NotSupported,
			Msg:  fmt.Sprintf("%s needs NCCL %s or newer; this is %s", t, versionString(v), versionString(c.lib.version)),
			Hint: "use a newer NCCL (" + EnvLibrary + ") or another data type"}
	}
	return nil
}

// buffer checks that b is a buffer of the rank's device holding count
// elements of t, and returns its device address.
func (c *Comm) buffer(op, role string, b *gpu.Buffer, count int, t DataType) (uintptr, error) {
	if b == nil {
		return 0, invalid(op, "nil %s buffer", role)
	}
	if b.Device() != c.dev {
		return 0, invalid(op, "the %s buffer belongs to %s, rank %d to %s", role, b.Device().Name(), c.rank, c.dev.Name())
	}
	size := int64(t.Size())
	if int64(count) > math.MaxInt64/size || int64(count)*size > b.Size() {
		return 0, invalid(op, "the %s buffer holds %d bytes, too few for %d %s elements", role, b.Size(), count, t)
	}
	h, err := b.NativeHandle()
	if err != nil {
		return 0, errors.Wrap(err, Backend, op)
	}
	return h, nil
}

// enqueue calls fn with the first n of c.args, c.mu held, the device
// current: the hot path of every collective.
func (c *Comm) enqueue(op string, s sym, n int) error {
	fn := c.lib.fn[s]
	if fn == 0 {
		return &errors.Error{Backend: Backend, Op: op, Category: errors.NotSupported,
			Msg:  fmt.Sprintf("NCCL %s lacks %s", versionString(c.lib.version), symNames[s]),
			Hint: "use a newer NCCL (" + EnvLibrary + ")"}
	}
	var r uintptr
	err := c.dev.RunNative(func() error {
		r = dl.CallArgs(fn, c.args[:n])
		return nil
	})
	if err != nil {
		return errors.Wrap(err, Backend, op)
	}
	if int32(r) == resSuccess {
		return nil
	}
	return c.lib.result(r, fmt.Sprintf("%s on rank %d", op, c.rank), c.h)
}
