package collective

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/dl"
)

// Comm is one rank of an NCCL communicator: a device of this process that
// takes part in collectives with the other ranks (devices of this process,
// or of other processes and hosts). Its collectives enqueue on a Stream of
// that device and return at once; they complete in stream order, so
// Stream.Synchronize or an Event tells when the result is there.
//
// A Comm is safe for concurrent use (calls on one Comm are serialised, as
// NCCL requires), but the ranks of one communicator must issue the same
// collectives in the same order. When one goroutine drives several ranks of
// this process, it must issue their collectives inside Group.
type Comm struct {
	lib  *library
	dev  *gpu.Device
	h    uintptr // ncclComm_t
	rank int
	size int

	mu     sync.Mutex
	closed bool
	args   [8]uintptr // arguments of the call in progress (under mu): reused, so a collective allocates nothing for them
}

// Rank is this rank's number, 0 to Size()-1.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks in the communicator.
func (c *Comm) Size() int { return c.size }

// Device is the device of this rank.
func (c *Comm) Device() *gpu.Device { return c.dev }

// String is "rank r of n on device".
func (c *Comm) String() string {
	return fmt.Sprintf("rank %d of %d on %s", c.rank, c.size, c.dev.Name())
}

func invalid(op, format string, args ...any) error {
	return errors.E(errors.InvalidArgument, Backend, op, format, args...)
}

// checkDevice reports whether dev can be a rank: an open CUDA device.
func checkDevice(op string, dev *gpu.Device) error {
	if dev == nil {
		return invalid(op, "nil device")
	}
	if dev.Backend() != "cuda" || dev.Simulated() {
		kind := dev.Backend()
		if dev.Simulated() {
			kind = "simulated " + kind
		}
		return &errors.Error{Backend: Backend, Op: op, Category: errors.NotSupported,
			Msg:  fmt.Sprintf("collectives run on CUDA devices (NCCL); %s is a %s device", dev.Name(), kind),
			Hint: "open NVIDIA GPUs with gpu.OpenAll(ctx, gpu.WithBackends(\"cuda\")); on other devices copy through Stream.Copy and reduce with kernels"}
	}
	return nil
}

// NewLocal creates one communicator over devices of this process
// (ncclCommInitAll): comms[i] is rank i, on devs[i]. Each device may appear
// once. Collectives issued from one goroutine over several of these ranks go
// inside Group; CloseAll closes them together.
func NewLocal(ctx context.Context, devs []*gpu.Device) ([]*Comm, error) {
	const op = "new local communicator"
	if ctx == nil {
		return nil, invalid(op, "nil context")
	}
	if len(devs) == 0 {
		return nil, invalid(op, "no devices")
	}
	seen := map[int]bool{}
	list := make([]int32, len(devs))
	for i, d := range devs {
		if err := checkDevice(op, d); err != nil {
			return nil, err
		}
		o := d.Info().Ordinal
		if seen[o] {
			return nil, invalid(op, "%s appears twice: NCCL takes one rank per GPU", d.Name())
		}
		seen[o] = true
		list[i] = int32(o)
	}
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Backend, op)
	}
	l, err := load()
	if err != nil {
		return nil, err
	}
	handles := make([]uintptr, len(devs))
	var r uintptr
	err = devs[0].RunNative(func() error {
		r = dl.Call(l.fn[symCommInitAll], uintptr(unsafe.Pointer(&handles[0])), uintptr(len(devs)), uintptr(unsafe.Pointer(&list[0])))
		return nil
	})
	if err != nil {
		return nil, errors.Wrap(err, Backend, op)
	}
	if err := l.result(r, fmt.Sprintf("%s over %d devices", op, len(devs)), 0); err != nil {
		return nil, err
	}
	comms := make([]*Comm, len(devs))
	for i, d := range devs {
		comms[i] = &Comm{lib: l, dev: d, h: handles[i], rank: i, size: len(devs)}
	}
	return comms, nil
}

// NewUniqueID makes the id of a new communicator (ncclGetUniqueId), on the
// rank that will be rank 0. It opens rank 0's bootstrap listener, so make it
// in the process that calls NewComm with rank 0.
func NewUniqueID() (UniqueID, error) {
	var id UniqueID
	l, err := load()
	if err != nil {
		return id, err
	}
	p := new(UniqueID)
	r := dl.Call(l.fn[symGetUniqueID], uintptr(unsafe.Pointer(p)))
	if err := l.result(r, "new unique id", 0); err != nil {
		return id, err
	}
	return *p, nil
}

// NewComm makes dev rank `rank` of a communicator of nranks ranks spanning
// processes and hosts (ncclCommInitRankScalable with one id), once every rank
// has the same id from rank 0. It blocks until every rank has joined. If ctx
// ends first NewComm returns an error of category Timeout; the join it
// abandons is aborted should it ever complete. It needs NCCL 2.23 or newer.
func NewComm(ctx context.Context, dev *gpu.Device, rank, nranks int, id UniqueID) (*Comm, error) {
	op := fmt.Sprintf("join as rank %d of %d", rank, nranks)
	if ctx == nil {
		return nil, invalid(op, "nil context")
	}
	if err := checkDevice(op, dev); err != nil {
		return nil, err
	}
	if nranks < 1 || nranks > math.MaxInt32 {
		return nil, invalid(op, "the communicator must have at least one rank, got %d", nranks)
	}
	if rank < 0 || rank >= nranks {
		return nil, invalid(op, "rank %d is outside 0..%d", rank, nranks-1)
	}
	if id == (UniqueID{}) {
		return nil, invalid(op, "the unique id is empty: rank 0 makes it with NewUniqueID and the others receive it (Join does both)")
	}
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Backend, op)
	}
	l, err := load()
	if err != nil {
		return nil, err
	}
	if !l.has(symCommInitRankScalable) {
		return nil, &errors.Error{Backend: Backend, Op: op, Category: errors.NotSupported,
			Msg: fmt.Sprintf("NCCL %s lacks ncclCommInitRankScalable, which passes the unique id by pointer "+
				"(ncclCommInitRank takes the 128-byte id by value, which purego cannot pass)", versionString(l.version)),
			Hint: "use NCCL 2.23 or newer (" + EnvLibrary + "), or create the ranks of one process with NewLocal"}
	}
	type joined struct {
		h   uintptr
		r   uintptr
		err error
	}
	done := make(chan joined, 1)
	go func() {
		var j joined
		idp, hp := new(UniqueID), new(uintptr)
		*idp = id
		j.err = dev.RunNative(func() error {
			j.r = dl.Call(l.fn[symCommInitRankScalable], uintptr(unsafe.Pointer(hp)), uintptr(nranks), uintptr(rank), 1,
				uintptr(unsafe.Pointer(idp)), 0)
			return nil
		})
		j.h = *hp
		done <- j
	}()
	var j joined
	select {
	case j = <-done:
	case <-ctx.Done():
		go func() {
			if j := <-done; j.err == nil && int32(j.r) == resSuccess && j.h != 0 {
				runLocked(func() { dl.Call(l.fn[symCommAbort], j.h) })
			}
		}()
		return nil, &errors.Error{Backend: Backend, Op: op, Category: errors.Timeout, Err: ctx.Err(),
			Msg:  "not every rank joined before the context ended: " + ctx.Err().Error(),
			Hint: "start every rank with the same id and communicator size, and check that they reach rank 0's address (NCCL_DEBUG=INFO shows it)"}
	}
	if j.err != nil {
		return nil, errors.Wrap(j.err, Backend, op)
	}
	if err := l.result(j.r, op, j.h); err != nil {
		return nil, err
	}
	c := &Comm{lib: l, dev: dev, h: j.h, rank: rank, size: nranks}
	// NCCL took the GPU from the thread's current context: check that it is
	// the one asked for.
	var cu int32
	if r := dl.Call(l.fn[symCommCuDevice], j.h, uintptr(unsafe.Pointer(&cu))); int32(r) == resSuccess && int(cu) != dev.Info().Ordinal {
		_ = c.Abort()
		return nil, errors.E(errors.Internal, Backend, op, "NCCL placed the rank on GPU %d instead of %s", cu, dev.Name())
	}
	return c, nil
}

// Join makes dev rank `rank` of a communicator of nranks ranks: rank 0 makes
// the id and publishes it through b, every other rank fetches it from b, then
// all join (NewComm). It blocks until every rank has joined or ctx ends. The
// same call works across processes and across hosts; the Bootstrap decides
// how the id travels (File, TCP, or the program's own).
func Join(ctx context.Context, dev *gpu.Device, rank, nranks int, b Bootstrap) (*Comm, error) {
	op := fmt.Sprintf("join as rank %d of %d", rank, nranks)
	if ctx == nil {
		return nil, invalid(op, "nil context")
	}
	if b == nil {
		return nil, invalid(op, "nil bootstrap")
	}
	if err := checkDevice(op, dev); err != nil {
		return nil, err
	}
	if nranks < 1 || rank < 0 || rank >= nranks {
		return nil, invalid(op, "rank %d of %d ranks is out of range", rank, nranks)
	}
	var id UniqueID
	if rank == 0 {
		var err error
		if id, err = NewUniqueID(); err != nil {
			return nil, err
		}
		if err := b.Publish(ctx, id); err != nil {
			return nil, errors.Wrap(err, Backend, op+": publish the unique id")
		}
	} else {
		var err error
		if id, err = b.Fetch(ctx); err != nil {
			return nil, errors.Wrap(err, Backend, op+": fetch the unique id")
		}
	}
	return NewComm(ctx, dev, rank, nranks, id)
}

// Group issues the collectives f enqueues as one NCCL group
// (ncclGroupStart ... ncclGroupEnd), on one locked OS thread. It is required
// when one goroutine drives several ranks of this process (NewLocal), and
// fuses several collectives of one rank into one launch. Group returns once
// the work is enqueued, not done. f's error is returned, joined with the
// group's; collectives f enqueued before failing are launched all the same.
// On a device with a profiler, the group's work on each stream is one record
// of kind profiling.KindCollective, named after its collectives ("group:
// all-reduce ×2"), timed on the device around the group's launch.
func Group(f func() error) error {
	const op = "group"
	if f == nil {
		return invalid(op, "nil function")
	}
	l, err := load()
	if err != nil {
		return err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	g, outer, done := beginGroup()
	defer done()
	if err := l.result(dl.Call(l.fn[symGroupStart]), "group start", 0); err != nil {
		return err
	}
	var ferr error
	func() {
		defer func() {
			if v := recover(); v != nil {
				_ = dl.Call(l.fn[symGroupEnd])
				panic(v)
			}
		}()
		ferr = f()
	}()
	end := func() error { return l.result(dl.Call(l.fn[symGroupEnd]), "group end", 0) }
	if !outer {
		return errors.Join(ferr, end()) // the outer Group launches and records the work
	}
	return errors.Join(ferr, g.run(end))
}

// runLocked runs f on the calling goroutine's OS thread, locked for the call.
func runLocked(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f()
}

// native runs f with the rank's device current, or on a plain locked thread
// when the device cannot bind (closed): NCCL sets the device itself where it
// needs one.
func (c *Comm) native(f func()) {
	if err := c.dev.RunNative(func() error { f(); return nil }); err != nil {
		runLocked(f)
	}
}

// Err reports an error NCCL met while running this rank's collectives
// (ncclCommGetAsyncError): nil while all is well. A communicator with an
// error is unusable: Abort it.
func (c *Comm) Err() error {
	const op = "async error"
	if c == nil {
		return invalid(op, "nil communicator")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	if !c.lib.has(symCommGetAsyncError) {
		return nil
	}
	v := new(int32)
	if err := c.lib.result(dl.Call(c.lib.fn[symCommGetAsyncError], c.h, uintptr(unsafe.Pointer(v))), op, c.h); err != nil {
		return err
	}
	return c.lib.result(uintptr(*v), fmt.Sprintf("rank %d", c.rank), c.h)
}

// Close waits for the rank's collectives and releases it (ncclCommFinalize
// where NCCL has it, then ncclCommDestroy). Closing twice is not an error.
// Ranks of one process created together are best closed with CloseAll.
func (c *Comm) Close() error {
	if c == nil || !c.markClosed() {
		return nil
	}
	if !c.lib.has(symCommDestroy) {
		return nil // a library stand-in of the tests
	}
	var errs []error
	c.native(func() {
		if c.lib.has(symCommFinalize) {
			errs = append(errs, c.lib.result(dl.Call(c.lib.fn[symCommFinalize], c.h), fmt.Sprintf("finalize rank %d", c.rank), c.h))
		}
		errs = append(errs, c.lib.result(dl.Call(c.lib.fn[symCommDestroy], c.h), fmt.Sprintf("destroy rank %d", c.rank), c.h))
	})
	return errors.Join(errs...)
}

// Abort releases the rank at once, abandoning its unfinished collectives
// (ncclCommAbort): the way out after an error or a hung peer. Aborting a
// closed communicator does nothing.
func (c *Comm) Abort() error {
	if c == nil || !c.markClosed() {
		return nil
	}
	if !c.lib.has(symCommAbort) {
		return nil
	}
	var r uintptr
	c.native(func() { r = dl.Call(c.lib.fn[symCommAbort], c.h) })
	return c.lib.result(r, fmt.Sprintf("abort rank %d", c.rank), 0)
}

// markClosed marks c closed; false if it was already.
func (c *Comm) markClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.closed = true
	return true
}

// CloseAll closes several ranks of this process together: their
// finalization as one group (which several ranks driven by one goroutine
// need), then each destroyed. nil and closed entries are skipped.
func CloseAll(comms []*Comm) error {
	var live []*Comm
	for _, c := range comms {
		if c != nil && c.markClosed() {
			live = append(live, c)
		}
	}
	if len(live) == 0 {
		return nil
	}
	l := live[0].lib
	if !l.has(symCommDestroy) {
		return nil
	}
	var errs []error
	if l.has(symCommFinalize) {
		errs = append(errs, Group(func() error {
			var ferrs []error
			for _, c := range live {
				c.native(func() {
					ferrs = append(ferrs, l.result(dl.Call(l.fn[symCommFinalize], c.h), fmt.Sprintf("finalize rank %d", c.rank), c.h))
				})
			}
			return errors.Join(ferrs...)
		}))
	}
	for _, c := range live {
		c.native(func() {
			errs = append(errs, l.result(dl.Call(l.fn[symCommDestroy], c.h), fmt.Sprintf("destroy rank %d", c.rank), c.h))
		})
	}
	return errors.Join(errs...)
}
