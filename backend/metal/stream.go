//go:build darwin

package metal

import (
	"context"
	"encoding/binary"
	"sync"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/metal/internal/objc"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/units"
)

// MTLCommandBufferStatus values.
const (
	statusCompleted = 4
	statusError     = 5
)

// opKind says what a command buffer does, for error messages; launches add
// the kernel's name.
type opKind uint8

const (
	opWrite opKind = iota
	opRead
	opCopy
	opFill
	opLaunch
	opRecord
	opWait
)

var opNames = [...]string{"write", "read", "copy", "fill", "launch", "record", "wait"}

// pending is a committed command buffer the stream has not yet collected.
type pending struct {
	cb   objc.ID // the command buffer, +1 (retained when created)
	keep objc.ID // an object the command buffer needs that the stream created for it (+1), or 0
	seq  uint64  // position in the stream: the value Record signals
	op   opKind
	name string // the kernel of a launch
}

// stream is an MTLCommandQueue. Every operation commits one command buffer;
// seq numbers them 1, 2, ... in commit order.
//
// Owns: queue (+1), timeline (the MTLSharedEvent Record signals, +1) and
// marker (a 4-byte private buffer Record fills, +1), released by destroy
// after the queued work completed; each pending.cb and pending.keep (+1),
// released when the stream collects the command buffer.
type stream struct {
	dev *device

	mu       sync.Mutex
	queue    objc.ID
	timeline objc.ID
	marker   objc.ID
	lastSeq  uint64    // seq of the last committed command buffer
	doneSeq  uint64    // every command buffer up to doneSeq has completed and been collected
	fifo     []pending // committed and not collected, ascending seq; fifo[head:] is live
	head     int
	err      error        // the first failure collected since the last Synchronize
	params   []byte       // scratch for a launch's packed scalars
	dims     [2]objc.Size // scratch for DispatchThreadgroups' arguments
}

var (
	_ backend.Stream       = (*stream)(nil)
	_ backend.HostCopier   = (*stream)(nil)
	_ backend.PeerCopier   = (*stream)(nil)
	_ backend.NativeHandle = (*stream)(nil)
)

// newStream creates the queue and the timeline event. The caller holds
// d.enter.
func newStream(d *device) (*stream, error) {
	p := objc.EnterPool()
	defer p.Exit()
	q := objc.ID(d.obj.Send1(objc.SelNewCommandQueueWithMaxCount, queueDepth))
	if q == 0 {
		return nil, errorf(errors.OutOfMemory, "new stream", "close streams you no longer use",
			"newCommandQueueWithMaxCommandBufferCount: returned nil")
	}
	ev := objc.ID(d.obj.Send(objc.SelNewSharedEvent))
	if ev == 0 {
		q.Release()
		return nil, errorf(errors.OutOfMemory, "new stream", "close streams you no longer use", "newSharedEvent returned nil")
	}
	marker := objc.ID(d.obj.Send2(objc.SelNewBufferWithLength, 4, resourceStoragePrivate))
	if marker == 0 {
		q.Release()
		ev.Release()
		return nil, errorf(errors.OutOfMemory, "new stream", "free buffers or close streams you no longer use", "newBufferWithLength:options: returned nil")
	}
	return &stream{dev: d, queue: q, timeline: ev, marker: marker, params: make([]byte, 0, 256)}, nil
}

// NativeHandle is the id<MTLCommandQueue> (0 after Close).
func (s *stream) NativeHandle() uintptr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return uintptr(s.queue)
}

// enqueue is the preamble every operation shares: it enters the device, so
// nothing is released under the operation, and runs encode through locked.
func (s *stream) enqueue(encode func() error) error {
	if err := s.dev.enter(); err != nil {
		return err
	}
	defer s.dev.leave()
	return s.locked(encode)
}

// locked runs f inside an autorelease pool with the stream locked and its
// finished work collected. The caller holds enter.
func (s *stream) locked(f func() error) error {
	p := objc.EnterPool()
	defer p.Exit()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.collect()
	return f()
}

// submit makes a command buffer, has encode fill it and commits it; the
// stream then owns keep (+1, or 0), an object the command buffer needs. On
// failure the command buffer and keep are released. Call inside locked.
func (s *stream) submit(kind opKind, name string, keep objc.ID, encode func(cb objc.ID) error) error {
	cb, err := s.newCommandBuffer(kind)
	if err == nil {
		if err = encode(cb); err != nil {
			cb.Release()
		}
	}
	if err != nil {
		keep.Release()
		return err
	}
	s.commit(cb, kind, name, keep)
	return nil
}

// idle reports whether every committed command buffer has completed, so a
// CPU copy now is in stream order. Call inside locked.
func (s *stream) idle() bool { return s.doneSeq == s.lastSeq }

// newCommandBuffer returns a command buffer of the queue, retained (+1).
// Call inside locked.
func (s *stream) newCommandBuffer(kind opKind) (objc.ID, error) {
	cb := objc.ID(s.queue.Send(objc.SelCommandBuffer)) // autoreleased
	if cb == 0 {
		return 0, errorf(errors.Internal, opNames[kind], "retry; if it repeats, report it with `gpu info --json`", "commandBuffer returned nil")
	}
	return cb.Retain(), nil
}

// commit commits cb and records it as pending; the stream now owns cb's and
// keep's references. Call inside locked.
func (s *stream) commit(cb objc.ID, op opKind, name string, keep objc.ID) {
	cb.Send(objc.SelCommit)
	s.lastSeq++
	if s.head > 0 && s.head >= len(s.fifo)/2 { // drop the collected prefix before growing
		n := copy(s.fifo, s.fifo[s.head:])
		clear(s.fifo[n:])
		s.fifo, s.head = s.fifo[:n], 0
	}
	s.fifo = append(s.fifo, pending{cb: cb, keep: keep, seq: s.lastSeq, op: op, name: name})
}

// collect releases the command buffers at the front of the queue that have
// finished, in order, noting the first failure. Call with s.mu held, inside
// a pool.
func (s *stream) collect() {
	for s.head < len(s.fifo) {
		p := s.fifo[s.head]
		st := p.cb.Send(objc.SelStatus)
		if st < statusCompleted {
			break
		}
		if st == statusError {
			s.fail(p)
		}
		p.cb.Release()
		p.keep.Release()
		s.fifo[s.head] = pending{}
		s.head++
		s.doneSeq = p.seq
	}
	if s.head == len(s.fifo) {
		s.fifo, s.head = s.fifo[:0], 0
		s.doneSeq = s.lastSeq
	}
}

// fail notes the failure of a command buffer. A failed Record may never
// signal its value, so the stream signals it from the CPU: other streams
// waiting for it must not wait forever.
func (s *stream) fail(p pending) {
	op := opNames[p.op]
	if p.op == opLaunch {
		op += " " + p.name
	}
	e := fromNSError(objc.ReadError(objc.ID(p.cb.Send(objc.SelError))), op, errors.Execution)
	if s.err == nil {
		s.err = e
	}
	if p.op == opRecord {
		s.signalThrough(p.seq)
	}
}

// signalThrough sets the timeline to seq unless it is there already.
func (s *stream) signalThrough(seq uint64) {
	if uint64(s.timeline.Send(objc.SelSignaledValue)) < seq {
		s.timeline.Send1(objc.SelSetSignaledValue, uintptr(seq))
	}
}

// position is the seq of the last committed command buffer.
func (s *stream) position() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastSeq
}

// completedThrough reports whether the work up to seq has completed,
// without waiting.
func (s *stream) completedThrough(seq uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := objc.EnterPool()
	s.collect()
	p.Exit()
	return s.doneSeq >= seq
}

// waitThrough waits until the work up to seq has completed and been
// collected, or ctx ends (a Timeout error wrapping ctx.Err()). It holds no
// lock while it waits.
func (s *stream) waitThrough(ctx context.Context, seq uint64, op string) error {
	for {
		s.mu.Lock()
		p := objc.EnterPool()
		s.collect()
		p.Exit()
		if s.doneSeq >= seq {
			s.mu.Unlock()
			return nil
		}
		// Wait for the newest command buffer at or before seq; the loop
		// then collects (and, were one older still running, waits for) the
		// others.
		var cb objc.ID
		for i := len(s.fifo) - 1; i >= s.head; i-- {
			if s.fifo[i].seq <= seq {
				cb = s.fifo[i].cb
				break
			}
		}
		if cb == 0 { // cannot happen: fifo holds every seq after doneSeq
			s.mu.Unlock()
			return nil
		}
		cb.Retain() // the wait's own reference: collect may release the stream's meanwhile
		s.mu.Unlock()
		if err := waitCommandBuffer(ctx, cb, op); err != nil {
			return err
		}
	}
}

// waitCommandBuffer waits for cb to complete, or for ctx, and releases the
// reference the caller passed in either case: when ctx ends first, the
// waiting goroutine releases it once cb completes (Metal completes or fails
// every committed command buffer; the GPU watchdog ends one that hangs).
func waitCommandBuffer(ctx context.Context, cb objc.ID, op string) error {
	wait := func() {
		p := objc.EnterPool()
		cb.Send(objc.SelWaitUntilCompleted)
		p.Exit()
		cb.Release()
	}
	done := ctx.Done()
	if done == nil {
		wait()
		return nil
	}
	if err := ctx.Err(); err != nil {
		cb.Release()
		return errors.Wrap(err, Name, op)
	}
	finished := make(chan struct{})
	go func() {
		wait()
		close(finished)
	}()
	select {
	case <-finished:
		return nil
	case <-done:
		return errors.Wrap(ctx.Err(), Name, op)
	}
}

// bufferOf returns b, a buffer or host buffer, as a Metal buffer, or an
// error for another backend's (a type the root package does not vouch for).
func bufferOf(op string, b any) (*buffer, error) {
	if mb := asBuffer(b); mb != nil {
		return mb, nil
	}
	return nil, errorf(errors.InvalidArgument, op, "use buffers of this device", "buffer %T does not belong to the Metal backend", b)
}

// Write copies src to dst at off. On a shared buffer and an idle stream it is
// a memcpy; otherwise src is staged into a new shared buffer (so src may be
// reused at once) and blitted in stream order.
func (s *stream) Write(dst backend.Buffer, off int64, src []byte) error {
	const op = "write"
	b, err := bufferOf(op, dst)
	if err != nil {
		return err
	}
	n := int64(len(src))
	return s.enqueue(func() error {
		if !b.private && s.idle() {
			copy(b.mem[off:off+n], src)
			return nil
		}
		staging := objc.ID(s.dev.obj.SendBytes(objc.SelNewBufferWithBytes, src, resourceStorageShared))
		if staging == 0 {
			return errorf(errors.OutOfMemory, op, "free buffers or write in smaller pieces",
				"staging a %s write: newBufferWithBytes:length:options: returned nil", units.ByteSize(n))
		}
		return s.submit(opWrite, "", staging, func(cb objc.ID) error {
			return s.encodeCopy(cb, staging, 0, b.obj, off, n)
		})
	})
}

// Read copies from src at off into dst and returns when dst holds the data:
// a shared buffer is copied once the work queued before the Read has
// completed; a private one is blitted into a staging buffer first.
func (s *stream) Read(dst []byte, src backend.Buffer, off int64) error {
	const op = "read"
	b, err := bufferOf(op, src)
	if err != nil {
		return err
	}
	if err := s.dev.enter(); err != nil {
		return err
	}
	defer s.dev.leave()
	n := int64(len(dst))
	if !b.private {
		if err := s.waitThrough(context.Background(), s.position(), op); err != nil {
			return err
		}
		copy(dst, b.mem[off:off+n])
		return nil
	}
	staging, err := s.dev.newBuffer(op, n, resourceStorageShared)
	if err != nil {
		return err
	}
	defer staging.Release()
	var target uint64
	err = s.locked(func() error {
		target = s.lastSeq + 1
		return s.submit(opRead, "", staging.Retain(), func(cb objc.ID) error {
			return s.encodeCopy(cb, b.obj, off, staging, 0, n)
		})
	})
	if err != nil {
		return err
	}
	if err := s.waitThrough(context.Background(), target, op); err != nil {
		return err
	}
	copy(dst, objc.Bytes(staging.Send(objc.SelContents), n))
	return nil
}

// encodeCopy encodes a copy of n bytes: a blit where offsets and size are
// multiples of 4 (what the blit copy takes on macOS), else the internal
// byte-copy kernel. Call inside locked.
func (s *stream) encodeCopy(cb, src objc.ID, srcOff int64, dst objc.ID, dstOff, n int64) error {
	if srcOff%4 == 0 && dstOff%4 == 0 && n%4 == 0 {
		enc := objc.ID(cb.Send(objc.SelBlitCommandEncoder))
		if enc == 0 {
			return errorf(errors.Internal, "copy", "retry; if it repeats, report it", "blitCommandEncoder returned nil")
		}
		enc.Send5(objc.SelCopyFromBuffer, uintptr(src), uintptr(srcOff), uintptr(dst), uintptr(dstOff), uintptr(n))
		enc.Send(objc.SelEndEncoding)
		return nil
	}
	var params [4]byte
	return s.encodeInternal(cb, "copy", kernelCopy8, n, func(enc objc.ID, c [2]int64) {
		binary.LittleEndian.PutUint32(params[:], uint32(c[1]))
		enc.Send3(objc.SelSetBuffer, uintptr(dst), uintptr(dstOff+c[0]), 0)
		enc.Send3(objc.SelSetBuffer, uintptr(src), uintptr(srcOff+c[0]), 1)
		enc.SendBytes(objc.SelSetBytes, params[:], 2)
	})
}

// encodeInternal encodes the internal kernel name over n elements, in
// chunks of at most maxKernelChunk: bind sets the arguments of each chunk
// (its offset and length), then the chunk is dispatched. Call inside locked.
func (s *stream) encodeInternal(cb objc.ID, op, name string, n int64, bind func(enc objc.ID, chunk [2]int64)) error {
	k, err := s.dev.internalKernel(name)
	if err != nil {
		return err
	}
	enc := objc.ID(cb.Send(objc.SelComputeCommandEncoder))
	if enc == 0 {
		return errorf(errors.Internal, op, "retry; if it repeats, report it", "computeCommandEncoder returned nil")
	}
	enc.Send1(objc.SelSetComputePipelineState, uintptr(k.pso))
	tg := max(1, min(256, k.maxThreads))
	for _, c := range chunks(n, maxKernelChunk) {
		bind(enc, c)
		s.dims[0] = objc.Size{Width: uint64(internalGroups(c[1], tg)), Height: 1, Depth: 1}
		s.dims[1] = objc.Size{Width: uint64(tg), Height: 1, Depth: 1}
		objc.DispatchThreadgroups(enc, &s.dims)
	}
	enc.Send(objc.SelEndEncoding)
	return nil
}

// Copy copies between two buffers of the device: a blit, or the byte-copy
// kernel at offsets or sizes that are not multiples of 4.
func (s *stream) Copy(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	return s.copyBuffers("copy", opCopy, dst, dstOff, src, srcOff, n, false)
}

// WriteHost copies from a host buffer without staging: a memcpy on a shared
// buffer of an idle stream, else a blit in stream order (src must stay
// untouched until the stream passes it).
func (s *stream) WriteHost(dst backend.Buffer, off int64, src backend.HostBuffer, srcOff, n int64) error {
	return s.copyBuffers("write host", opWrite, dst, off, src, srcOff, n, true)
}

// ReadHost copies into a host buffer: a memcpy on a shared buffer of an idle
// stream, else a blit; dst holds the data once the stream passes it.
func (s *stream) ReadHost(dst backend.HostBuffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	return s.copyBuffers("read host", opRead, dst, dstOff, src, srcOff, n, true)
}

// copyBuffers copies n bytes between two buffers of one MTLDevice in stream
// order: with cpu, a memcpy when both are shared and the stream is idle;
// else a blit, or the byte-copy kernel (encodeCopy).
// dst and src are buffers or host buffers.
func (s *stream) copyBuffers(op string, kind opKind, dst any, dstOff int64, src any, srcOff, n int64, cpu bool) error {
	db, err := bufferOf(op, dst)
	if err != nil {
		return err
	}
	sb, err := bufferOf(op, src)
	if err != nil {
		return err
	}
	return s.enqueue(func() error {
		if cpu && !db.private && !sb.private && s.idle() {
			copy(db.mem[dstOff:dstOff+n], sb.mem[srcOff:srcOff+n])
			return nil
		}
		return s.submit(kind, "", 0, func(cb objc.ID) error {
			return s.encodeCopy(cb, sb.obj, srcOff, db.obj, dstOff, n)
		})
	})
}

// CopyPeer copies from a buffer of another Metal device: a blit when both
// devices are the same MTLDevice (two Devices opened on one GPU), else
// through the host, synchronously.
func (s *stream) CopyPeer(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	const op = "copy peer"
	sb, err := bufferOf(op, src)
	if err != nil {
		return err
	}
	if sb.dev.obj == s.dev.obj {
		return s.Copy(dst, dstOff, src, srcOff, n)
	}
	data := make([]byte, n)
	if err := sb.dev.readFor(sb, srcOff, data); err != nil {
		return errors.Wrap(err, Name, op)
	}
	return s.Write(dst, dstOff, data)
}

// readFor reads a buffer of d for another device: after all of d's queued
// work, through d's utility stream.
func (d *device) readFor(b *buffer, off int64, dst []byte) error {
	if err := d.enter(); err != nil {
		return err
	}
	streams := d.streams()
	util, err := d.utilStream()
	d.leave()
	if err != nil {
		return err
	}
	for _, st := range streams {
		if err := st.waitThrough(context.Background(), st.position(), "copy peer"); err != nil {
			return err
		}
	}
	return util.Read(dst, b, off)
}

// Fill sets n bytes at off to the repeated 32-bit v: a CPU fill on a shared
// buffer of an idle stream, else a blit fillBuffer:range:value: when v's four
// bytes are equal, else the internal fill kernel.
func (s *stream) Fill(dst backend.Buffer, off, n int64, v uint32) error {
	const op = "fill"
	b, err := bufferOf(op, dst)
	if err != nil {
		return err
	}
	return s.enqueue(func() error {
		if !b.private && s.idle() {
			fillPattern(b.mem[off:off+n], v)
			return nil
		}
		return s.submit(opFill, "", 0, func(cb objc.ID) error { return s.encodeFill(cb, b.obj, off, n, v) })
	})
}

// encodeFill encodes a fill of n bytes at off: a blit when v is one byte
// repeated, else the internal fill kernel. Call inside locked.
func (s *stream) encodeFill(cb, buf objc.ID, off, n int64, v uint32) error {
	if byteV, ok := uniformByte(v); ok {
		enc := objc.ID(cb.Send(objc.SelBlitCommandEncoder))
		if enc == 0 {
			return errorf(errors.Internal, "fill", "retry; if it repeats, report it", "blitCommandEncoder returned nil")
		}
		objc.FillBuffer(enc, buf, uint64(off), uint64(n), byteV)
		enc.Send(objc.SelEndEncoding)
		return nil
	}
	var params [8]byte
	binary.LittleEndian.PutUint32(params[4:], v)
	return s.encodeInternal(cb, "fill", kernelFill32, n/4, func(enc objc.ID, c [2]int64) {
		binary.LittleEndian.PutUint32(params[:4], uint32(c[1]))
		enc.Send3(objc.SelSetBuffer, uintptr(buf), uintptr(off+4*c[0]), 0)
		enc.SendBytes(objc.SelSetBytes, params[:], 1)
	})
}

// Launch encodes k over grid threadgroups of block threads: buffers at
// [[buffer(0..b-1)]], the packed scalars at [[buffer(b)]] (setBytes, or a
// buffer of their own past 4 KiB).
func (s *stream) Launch(k backend.Kernel, grid, block backend.Dim3, args []backend.Arg) error {
	kern, ok := k.(*kernel)
	if !ok {
		return errorf(errors.InvalidArgument, "launch", "launch kernels compiled by this device", "kernel %T does not belong to the Metal backend", k)
	}
	grid, block = grid.Norm(), block.Norm()
	if err := kern.checkLaunch(grid, block, args); err != nil {
		return err
	}
	return s.enqueue(func() error { return s.encodeLaunch(kern, grid, block, args, 0) })
}

// encodeLaunch commits the command buffer of a launch, which holds its own
// reference to the pipeline state (ownership rule 5 in doc.go). Call inside
// locked.
// smem is the dynamic threadgroup memory, at [[threadgroup(0)]] (0: none).
func (s *stream) encodeLaunch(kern *kernel, grid, block backend.Dim3, args []backend.Arg, smem int) error {
	op := "launch " + kern.name
	layout, err := layoutArgs(args, s.params)
	if err != nil {
		return err
	}
	if layout.params != nil {
		s.params = layout.params[:0] // keep the grown scratch
	}
	// A params block past setBytes' 4 KiB goes into a buffer of its own,
	// made before any encoder exists (an encoder must be ended, never
	// abandoned).
	var paramsBuf objc.ID
	if n := len(layout.params); n > maxInlineParams {
		paramsBuf = objc.ID(s.dev.obj.SendBytes(objc.SelNewBufferWithBytes, layout.params, resourceStorageShared))
		if paramsBuf == 0 {
			return errorf(errors.OutOfMemory, op, "pass fewer scalars", "newBufferWithBytes:length:options: returned nil for a %d-byte params block", n)
		}
		defer paramsBuf.Release() // after commit the command buffer holds its own reference
	}
	return s.submit(opLaunch, kern.name, kern.pso.Retain(), func(cb objc.ID) error {
		enc := objc.ID(cb.Send(objc.SelComputeCommandEncoder))
		if enc == 0 {
			return errorf(errors.Internal, op, "retry; if it repeats, report it", "computeCommandEncoder returned nil")
		}
		enc.Send1(objc.SelSetComputePipelineState, uintptr(kern.pso))
		slot := 0
		for _, a := range args {
			if a.Kind == backend.ArgBuffer {
				enc.Send3(objc.SelSetBuffer, uintptr(asBuffer(a.Buffer).obj), 0, uintptr(slot))
				slot++
			}
		}
		switch {
		case paramsBuf != 0:
			enc.Send3(objc.SelSetBuffer, uintptr(paramsBuf), 0, uintptr(layout.paramsIndex()))
		case len(layout.params) > 0:
			enc.SendBytes(objc.SelSetBytes, layout.params, uintptr(layout.paramsIndex()))
		}
		if smem > 0 {
			enc.Send2(objc.SelSetThreadgroupMemoryLength, uintptr(smem), 0)
		}
		s.dims[0] = objc.Size{Width: uint64(grid.X), Height: uint64(grid.Y), Depth: uint64(grid.Z)}
		s.dims[1] = objc.Size{Width: uint64(block.X), Height: uint64(block.Y), Depth: uint64(block.Z)}
		objc.DispatchThreadgroups(enc, &s.dims)
		enc.Send(objc.SelEndEncoding)
		return nil
	})
}

// Synchronize waits for everything committed so far, or for ctx, and returns
// the first failure collected since the last Synchronize.
func (s *stream) Synchronize(ctx context.Context) error {
	if err := s.dev.enter(); err != nil {
		return err
	}
	defer s.dev.leave()
	if err := s.waitThrough(ctx, s.position(), "synchronize"); err != nil {
		return err
	}
	s.mu.Lock()
	err := s.err
	s.err = nil
	s.mu.Unlock()
	return err
}

// Close waits for the queued work and releases the queue and its timeline.
func (s *stream) Close() error { return s.dev.closeChild(s) }

// destroy waits for the stream's work (again if more was committed during
// the wait), then releases what it owns, under the lock.
func (s *stream) destroy() {
	for {
		_ = s.waitThrough(context.Background(), s.position(), "close")
		s.mu.Lock()
		p := objc.EnterPool()
		s.collect()
		drained := s.head == len(s.fifo)
		if drained {
			// Signal the timeline up to the last Record, so no other
			// stream waits forever on a value a failed command buffer
			// never signalled.
			s.signalThrough(s.lastSeq)
			s.queue.Release()
			s.timeline.Release()
			s.marker.Release()
			s.queue, s.timeline, s.marker = 0, 0, 0
		}
		p.Exit()
		s.mu.Unlock()
		if drained {
			return
		}
	}
}

// checkLaunch refuses a dispatch the pipeline cannot take and arguments that
// are not this backend's buffers.
func (kern *kernel) checkLaunch(grid, block backend.Dim3, args []backend.Arg) error {
	if err := checkDispatch(kern.name, grid, block, kern.maxThreads); err != nil {
		return err
	}
	for i, a := range args {
		if a.Kind == backend.ArgBuffer && asBuffer(a.Buffer) == nil {
			return errorf(errors.InvalidArgument, "launch "+kern.name, "pass buffers of the stream's device",
				"argument %d is not a buffer of the Metal backend", i)
		}
	}
	return nil
}
