//go:build darwin

package metal

import (
	"context"
	"github.com/anygpu/gpu/internal/units"
	"sync"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
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
	cb   id     // the command buffer, +1 (retained when created)
	keep id     // an object the command buffer needs that the stream created for it (+1), or 0
	seq  uint64 // position in the stream: the value Record signals
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

	mu        sync.Mutex
	queue     id
	timeline  id
	marker    id
	destroyed bool
	lastSeq   uint64    // seq of the last committed command buffer
	doneSeq   uint64    // every command buffer up to doneSeq has completed and been collected
	fifo      []pending // committed and not collected, ascending seq; fifo[head:] is live
	head      int
	err       error      // the first failure collected since the last Synchronize
	params    []byte     // scratch for a launch's packed scalars
	dims      [2]mtlSize // scratch for dispatchThreadgroups' arguments
}

var (
	_ backend.Stream       = (*stream)(nil)
	_ backend.HostCopier   = (*stream)(nil)
	_ backend.PeerCopier   = (*stream)(nil)
	_ backend.NativeHandle = (*stream)(nil)
)

var errStreamClosed = errorf(errors.Closed, "stream", "do not use a stream after Close", "stream is closed")

// newStream creates the queue and the timeline event. The caller holds
// d.enter.
func newStream(d *device) (*stream, error) {
	p := enterPool()
	defer p.exit()
	q := id(send1(d.obj, selNewCommandQueueWithMaxCount, queueDepth))
	if q == 0 {
		return nil, errorf(errors.OutOfMemory, "new stream", "close streams you no longer use",
			"newCommandQueueWithMaxCommandBufferCount: returned nil")
	}
	ev := id(send(d.obj, selNewSharedEvent))
	if ev == 0 {
		release(q)
		return nil, errorf(errors.OutOfMemory, "new stream", "close streams you no longer use", "newSharedEvent returned nil")
	}
	marker := id(send2(d.obj, selNewBufferWithLength, 4, resourceStoragePrivate))
	if marker == 0 {
		release(q)
		release(ev)
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

// begin locks the stream for an operation and collects finished work. On
// success the caller holds s.mu and unlocks it. Call inside a pool.
func (s *stream) begin() error {
	s.mu.Lock()
	if s.destroyed {
		s.mu.Unlock()
		return errStreamClosed
	}
	s.collect()
	return nil
}

// idle reports whether every committed command buffer has completed, so a
// CPU copy now is in stream order. Call with s.mu held, after collect.
func (s *stream) idle() bool { return s.doneSeq == s.lastSeq }

// newCommandBuffer returns a command buffer of the queue, retained (+1).
// Call with s.mu held, inside a pool.
func (s *stream) newCommandBuffer(kind opKind) (id, error) {
	cb := id(send(s.queue, selCommandBuffer)) // autoreleased
	if cb == 0 {
		return 0, errorf(errors.Internal, opNames[kind], "retry; if it repeats, report it with `gpu info --json`", "commandBuffer returned nil")
	}
	return retain(cb), nil
}

// commit commits cb and records it as pending; the stream now owns cb's and
// keep's references. Call with s.mu held, inside a pool.
func (s *stream) commit(cb id, op opKind, name string, keep id) {
	send(cb, selCommit)
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
		st := send(p.cb, selStatus)
		if st < statusCompleted {
			break
		}
		if st == statusError {
			s.fail(p)
		}
		release(p.cb)
		release(p.keep)
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
	e := fromNSError(readNSError(id(send(p.cb, selError))), op, errors.Execution)
	if s.err == nil {
		s.err = e
	}
	if p.op == opRecord && uint64(send(s.timeline, selSignaledValue)) < p.seq {
		send1(s.timeline, selSetSignaledValue, uintptr(p.seq))
	}
}

// completedThrough reports whether the work up to seq has completed,
// without waiting.
func (s *stream) completedThrough(seq uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.destroyed {
		return true // destroy waited for everything
	}
	p := enterPool()
	s.collect()
	p.exit()
	return s.doneSeq >= seq
}

// waitThrough waits until the work up to seq has completed and been
// collected, or ctx ends (a Timeout error wrapping ctx.Err()). It holds no
// lock while it waits.
func (s *stream) waitThrough(ctx context.Context, seq uint64, op string) error {
	for {
		s.mu.Lock()
		if s.destroyed {
			s.mu.Unlock()
			return nil
		}
		p := enterPool()
		s.collect()
		p.exit()
		if s.doneSeq >= seq {
			s.mu.Unlock()
			return nil
		}
		// Wait for the newest command buffer at or before seq; the loop
		// then collects (and, were one older still running, waits for) the
		// others.
		var cb id
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
		retain(cb) // the wait's own reference: collect may release the stream's meanwhile
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
func waitCommandBuffer(ctx context.Context, cb id, op string) error {
	wait := func() {
		p := enterPool()
		send(cb, selWaitUntilCompleted)
		p.exit()
		release(cb)
	}
	done := ctx.Done()
	if done == nil {
		wait()
		return nil
	}
	if err := ctx.Err(); err != nil {
		release(cb)
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

// inRange checks a byte range of a buffer. The root package checks every
// range before it reaches a backend; this keeps a direct caller of the SPI
// from slicing out of bounds (a panic) or handing Metal a bad range.
func inRange(op string, b *buffer, off, n int64) error {
	if off < 0 || n < 0 || off > b.size || n > b.size-off {
		return errorf(errors.InvalidArgument, op, "check offsets and sizes against the buffer",
			"range [%d, %d+%d) is outside the buffer's %d bytes", off, off, n, b.size)
	}
	return nil
}

// asBuffer returns the Metal buffer behind a backend.Buffer (a device
// buffer, or a host buffer used as one), or nil.
func asBuffer(b backend.Buffer) *buffer {
	switch v := b.(type) {
	case *buffer:
		return v
	case *hostBuffer:
		return &v.buffer
	}
	return nil
}

// own returns b as a buffer of this stream's device.
func (s *stream) own(b backend.Buffer, op string) (*buffer, error) {
	mb := asBuffer(b)
	if mb == nil {
		return nil, errorf(errors.InvalidArgument, op, "use buffers of this device", "buffer %T does not belong to the Metal backend", b)
	}
	if mb.dev != s.dev {
		return nil, errorf(errors.InvalidArgument, op, "use buffers of the stream's device", "buffer belongs to another Metal device")
	}
	return mb, nil
}

// bufLocks read-locks the distinct buffers of one operation, in address
// order, so that two operations locking the same buffers in different
// argument orders cannot deadlock against a waiting destroy.
type bufLocks struct {
	b [maxBufferBindings + 1]*buffer
	n int
}

// add notes b once; it reports false when there is no room left.
func (l *bufLocks) add(b *buffer) bool {
	for _, x := range l.b[:l.n] {
		if x == b {
			return true
		}
	}
	if l.n == len(l.b) {
		return false
	}
	l.b[l.n] = b
	l.n++
	return true
}

// lock read-locks the buffers, or unlocks what it locked and reports the
// first closed one.
func (l *bufLocks) lock() error {
	bs := l.b[:l.n]
	for i := 1; i < len(bs); i++ { // insertion sort by address: at most 32 buffers
		for j := i; j > 0 && uintptr(unsafe.Pointer(bs[j])) < uintptr(unsafe.Pointer(bs[j-1])); j-- {
			bs[j], bs[j-1] = bs[j-1], bs[j]
		}
	}
	for i, b := range bs {
		if err := b.use(); err != nil {
			for _, u := range bs[:i] {
				u.mu.RUnlock()
			}
			l.n = 0
			return err
		}
	}
	return nil
}

func (l *bufLocks) unlock() {
	for _, b := range l.b[:l.n] {
		b.mu.RUnlock()
	}
	l.n = 0
}

// Write copies src to dst at off. On a shared buffer and an idle stream it is
// a memcpy; otherwise src is staged into a new shared buffer (so src may be
// reused at once) and blitted in stream order.
func (s *stream) Write(dst backend.Buffer, off int64, src []byte) error {
	const op = "write"
	if err := s.dev.enter(); err != nil {
		return err
	}
	defer s.dev.leave()
	b, err := s.own(dst, op)
	if err != nil {
		return err
	}
	if err := inRange(op, b, off, int64(len(src))); err != nil || len(src) == 0 {
		return err
	}
	if err := b.use(); err != nil {
		return err
	}
	defer b.mu.RUnlock()
	p := enterPool()
	defer p.exit()
	if err := s.begin(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if !b.private && s.idle() {
		copy(b.mem[off:off+int64(len(src))], src)
		return nil
	}
	staging := id(send3(s.dev.obj, selNewBufferWithBytes, uintptr(unsafe.Pointer(&src[0])), uintptr(len(src)), resourceStorageShared))
	if staging == 0 {
		return errorf(errors.OutOfMemory, op, "free buffers or write in smaller pieces", "staging a %s write: newBufferWithBytes:length:options: returned nil", units.ByteSize(int64(len(src))))
	}
	cb, err := s.newCommandBuffer(opWrite)
	if err != nil {
		release(staging)
		return err
	}
	if err := s.encodeCopy(cb, staging, 0, b.obj, off, int64(len(src))); err != nil {
		release(cb)
		release(staging)
		return err
	}
	s.commit(cb, opWrite, "", staging)
	return nil
}

// Read copies from src at off into dst and returns when dst holds the data:
// a shared buffer is copied once the work queued before the Read has
// completed; a private one is blitted into a staging buffer first.
func (s *stream) Read(dst []byte, src backend.Buffer, off int64) error {
	const op = "read"
	if err := s.dev.enter(); err != nil {
		return err
	}
	defer s.dev.leave()
	b, err := s.own(src, op)
	if err != nil {
		return err
	}
	if err := inRange(op, b, off, int64(len(dst))); err != nil || len(dst) == 0 {
		return err
	}
	if err := b.use(); err != nil {
		return err
	}
	defer b.mu.RUnlock()
	n := int64(len(dst))
	if !b.private {
		target, err := s.position()
		if err != nil {
			return err
		}
		if err := s.waitThrough(context.Background(), target, op); err != nil {
			return err
		}
		copy(dst, b.mem[off:off+n])
		return nil
	}
	staging, err := s.dev.newBuffer(op, n, resourceStorageShared)
	if err != nil {
		return err
	}
	defer release(staging)
	target, err := s.blitOut(b, off, staging, n)
	if err != nil {
		return err
	}
	if err := s.waitThrough(context.Background(), target, op); err != nil {
		return err
	}
	copy(dst, bytesAt(send(staging, selContents), n))
	return nil
}

// position is the seq of the last committed command buffer.
func (s *stream) position() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.destroyed {
		return 0, errStreamClosed
	}
	return s.lastSeq, nil
}

// blitOut commits a copy of n bytes of b at off into staging and returns its
// seq.
func (s *stream) blitOut(b *buffer, off int64, staging id, n int64) (uint64, error) {
	p := enterPool()
	defer p.exit()
	if err := s.begin(); err != nil {
		return 0, err
	}
	defer s.mu.Unlock()
	cb, err := s.newCommandBuffer(opRead)
	if err != nil {
		return 0, err
	}
	if err := s.encodeCopy(cb, b.obj, off, staging, 0, n); err != nil {
		release(cb)
		return 0, err
	}
	s.commit(cb, opRead, "", retain(staging))
	return s.lastSeq, nil
}

// encodeCopy encodes a copy of n bytes: a blit where offsets and size are
// multiples of 4 (what the blit copy takes on macOS), else the internal
// byte-copy kernel. Call with s.mu held, inside a pool.
func (s *stream) encodeCopy(cb, src id, srcOff int64, dst id, dstOff, n int64) error {
	if srcOff%4 == 0 && dstOff%4 == 0 && n%4 == 0 {
		enc := id(send(cb, selBlitCommandEncoder))
		if enc == 0 {
			return errorf(errors.Internal, "copy", "retry; if it repeats, report it", "blitCommandEncoder returned nil")
		}
		send5(enc, selCopyFromBuffer, uintptr(src), uintptr(srcOff), uintptr(dst), uintptr(dstOff), uintptr(n))
		send(enc, selEndEncoding)
		return nil
	}
	k, err := s.dev.internalKernel(kernelCopy8)
	if err != nil {
		return err
	}
	enc := id(send(cb, selComputeCommandEncoder))
	if enc == 0 {
		return errorf(errors.Internal, "copy", "retry; if it repeats, report it", "computeCommandEncoder returned nil")
	}
	send1(enc, selSetComputePipelineState, uintptr(k.pso))
	tg := max(1, min(256, k.maxThreads))
	for _, c := range chunks(n, maxKernelChunk) {
		count := uint32(c[1])
		send3(enc, selSetBuffer, uintptr(dst), uintptr(dstOff+c[0]), 0)
		send3(enc, selSetBuffer, uintptr(src), uintptr(srcOff+c[0]), 1)
		send3(enc, selSetBytes, uintptr(unsafe.Pointer(&count)), 4, 2)
		s.dispatch(enc, internalGroups(c[1], tg), tg)
	}
	send(enc, selEndEncoding)
	return nil
}

// dispatch encodes a one-dimensional dispatchThreadgroups of groups groups of
// tg threads. Call with s.mu held (it uses s.dims).
func (s *stream) dispatch(enc id, groups, tg int) {
	s.dims[0] = mtlSize{uint64(groups), 1, 1}
	s.dims[1] = mtlSize{uint64(tg), 1, 1}
	dispatchThreadgroups(enc, &s.dims[0], &s.dims[1])
}

// Copy copies between two buffers of the device: a blit, or the byte-copy
// kernel at offsets or sizes that are not multiples of 4.
func (s *stream) Copy(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	const op = "copy"
	if err := s.dev.enter(); err != nil {
		return err
	}
	defer s.dev.leave()
	db, err := s.own(dst, op)
	if err != nil {
		return err
	}
	sb, err := s.own(src, op)
	if err != nil {
		return err
	}
	return s.copyBuffers(db, dstOff, sb, srcOff, n, opCopy)
}

// copyBuffers commits a copy between two buffers of the same MTLDevice.
func (s *stream) copyBuffers(db *buffer, dstOff int64, sb *buffer, srcOff, n int64, kind opKind) error {
	if err := inRange(opNames[kind], db, dstOff, n); err != nil {
		return err
	}
	if err := inRange(opNames[kind], sb, srcOff, n); err != nil || n == 0 {
		return err
	}
	var locks bufLocks
	locks.add(db)
	locks.add(sb) // once if sb is db: read-locking one RWMutex twice can deadlock
	if err := locks.lock(); err != nil {
		return err
	}
	defer locks.unlock()
	p := enterPool()
	defer p.exit()
	if err := s.begin(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	cb, err := s.newCommandBuffer(kind)
	if err != nil {
		return err
	}
	if err := s.encodeCopy(cb, sb.obj, srcOff, db.obj, dstOff, n); err != nil {
		release(cb)
		return err
	}
	s.commit(cb, kind, "", 0)
	return nil
}

// CopyPeer copies from a buffer of another Metal device: a blit when both
// devices are the same MTLDevice (two Devices opened on one GPU), else
// through the host, synchronously.
func (s *stream) CopyPeer(dst backend.Buffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	const op = "copy peer"
	var sb *buffer
	switch v := src.(type) {
	case *buffer:
		sb = v
	case *hostBuffer:
		sb = &v.buffer
	default:
		return errorf(errors.InvalidArgument, op, "copy between buffers of the same backend", "source buffer %T does not belong to the Metal backend", src)
	}
	if sb.dev == s.dev {
		return s.Copy(dst, dstOff, src, srcOff, n)
	}
	if err := s.dev.enter(); err != nil {
		return err
	}
	db, err := s.own(dst, op)
	if err != nil {
		s.dev.leave()
		return err
	}
	if s.dev.obj == sb.dev.obj {
		err := s.copyBuffers(db, dstOff, sb, srcOff, n, opCopy)
		s.dev.leave()
		return err
	}
	s.dev.leave()
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
		target, err := st.position()
		if err != nil {
			continue // closed meanwhile: its work is done
		}
		if err := st.waitThrough(context.Background(), target, "copy peer"); err != nil {
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
	if err := s.dev.enter(); err != nil {
		return err
	}
	defer s.dev.leave()
	b, err := s.own(dst, op)
	if err != nil {
		return err
	}
	if err := inRange(op, b, off, n); err != nil || n == 0 {
		return err
	}
	if off%4 != 0 || n%4 != 0 {
		return errorf(errors.InvalidArgument, op, "fill whole 32-bit words", "offset %d and size %d must be multiples of 4", off, n)
	}
	if err := b.use(); err != nil {
		return err
	}
	defer b.mu.RUnlock()
	p := enterPool()
	defer p.exit()
	if err := s.begin(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if !b.private && s.idle() {
		fillPattern(b.mem[off:off+n], v)
		return nil
	}
	cb, err := s.newCommandBuffer(opFill)
	if err != nil {
		return err
	}
	if byteV, ok := uniformByte(v); ok {
		enc := id(send(cb, selBlitCommandEncoder))
		if enc == 0 {
			release(cb)
			return errorf(errors.Internal, op, "retry; if it repeats, report it", "blitCommandEncoder returned nil")
		}
		a := fillArgs(uintptr(enc), uintptr(selFillBuffer), uintptr(b.obj), uint64(off), uint64(n), byteV)
		purego.SyscallN(rt.msgSend, a[:]...)
		send(enc, selEndEncoding)
		s.commit(cb, opFill, "", 0)
		return nil
	}
	k, err := s.dev.internalKernel(kernelFill32)
	if err != nil {
		release(cb)
		return err
	}
	enc := id(send(cb, selComputeCommandEncoder))
	if enc == 0 {
		release(cb)
		return errorf(errors.Internal, op, "retry; if it repeats, report it", "computeCommandEncoder returned nil")
	}
	send1(enc, selSetComputePipelineState, uintptr(k.pso))
	tg := max(1, min(256, k.maxThreads))
	words := n / 4
	for _, c := range chunks(words, maxKernelChunk) {
		params := [2]uint32{uint32(c[1]), v}
		send3(enc, selSetBuffer, uintptr(b.obj), uintptr(off+4*c[0]), 0)
		send3(enc, selSetBytes, uintptr(unsafe.Pointer(&params[0])), 8, 1)
		s.dispatch(enc, internalGroups(c[1], tg), tg)
	}
	send(enc, selEndEncoding)
	s.commit(cb, opFill, "", 0)
	return nil
}

// WriteHost copies from a host buffer without staging: a memcpy on a shared
// buffer of an idle stream, else a blit in stream order (src must stay
// untouched until the stream passes it).
func (s *stream) WriteHost(dst backend.Buffer, off int64, src backend.HostBuffer, srcOff, n int64) error {
	return s.hostCopy("write host", dst, off, src, srcOff, n, true)
}

// ReadHost copies into a host buffer: a memcpy on a shared buffer of an idle
// stream, else a blit; dst holds the data once the stream passes it.
func (s *stream) ReadHost(dst backend.HostBuffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	return s.hostCopy("read host", src, srcOff, dst, dstOff, n, false)
}

func (s *stream) hostCopy(op string, dev backend.Buffer, devOff int64, host backend.HostBuffer, hostOff, n int64, toDevice bool) error {
	if err := s.dev.enter(); err != nil {
		return err
	}
	defer s.dev.leave()
	b, err := s.own(dev, op)
	if err != nil {
		return err
	}
	hb, ok := host.(*hostBuffer)
	if !ok || hb.dev != s.dev {
		return errorf(errors.InvalidArgument, op, "use host buffers of the stream's device", "host buffer %T does not belong to this Metal device", host)
	}
	kind := opRead
	if toDevice {
		kind = opWrite
	}
	if err := inRange(op, b, devOff, n); err != nil {
		return err
	}
	if err := inRange(op, &hb.buffer, hostOff, n); err != nil || n == 0 {
		return err
	}
	var locks bufLocks
	locks.add(b)
	locks.add(&hb.buffer)
	if err := locks.lock(); err != nil {
		return err
	}
	defer locks.unlock()
	p := enterPool()
	defer p.exit()
	if err := s.begin(); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if !b.private && s.idle() {
		if toDevice {
			copy(b.mem[devOff:devOff+n], hb.mem[hostOff:hostOff+n])
		} else {
			copy(hb.mem[hostOff:hostOff+n], b.mem[devOff:devOff+n])
		}
		return nil
	}
	cb, err := s.newCommandBuffer(kind)
	if err != nil {
		return err
	}
	if toDevice {
		err = s.encodeCopy(cb, hb.obj, hostOff, b.obj, devOff, n)
	} else {
		err = s.encodeCopy(cb, b.obj, devOff, hb.obj, hostOff, n)
	}
	if err != nil {
		release(cb)
		return err
	}
	s.commit(cb, kind, "", 0)
	return nil
}

// Launch encodes k over grid threadgroups of block threads: buffers at
// [[buffer(0..b-1)]], the packed scalars at [[buffer(b)]] (setBytes, or a
// buffer of their own past 4 KiB).
func (s *stream) Launch(k backend.Kernel, grid, block backend.Dim3, args []backend.Arg) error {
	kern, ok := k.(*kernel)
	if !ok {
		return errorf(errors.InvalidArgument, "launch", "launch kernels compiled by this device", "kernel %T does not belong to the Metal backend", k)
	}
	if err := s.dev.enter(); err != nil {
		return err
	}
	defer s.dev.leave()
	if kern.mod.dev != s.dev {
		return errorf(errors.InvalidArgument, "launch "+kern.name, "launch kernels on the device that compiled them", "kernel was compiled for another Metal device")
	}
	grid, block = grid.Norm(), block.Norm()
	if err := checkDispatch(kern.name, grid, block, kern.maxThreads); err != nil {
		return err
	}
	// Read-lock each distinct buffer argument until the command buffer holds
	// its own references (rule 5).
	var locks bufLocks
	var objs [maxBufferBindings]*buffer
	nbuf := 0
	for i, a := range args {
		if a.Kind != backend.ArgBuffer {
			continue
		}
		b := asBuffer(a.Buffer)
		if b == nil || b.dev != s.dev {
			return errorf(errors.InvalidArgument, "launch "+kern.name, "pass buffers of the stream's device",
				"argument %d is not a buffer of this Metal device", i)
		}
		if nbuf == maxBufferBindings {
			nbuf++ // layoutArgs reports too many buffers
			break
		}
		locks.add(b)
		objs[nbuf] = b
		nbuf++
	}
	if err := locks.lock(); err != nil {
		return err
	}
	defer locks.unlock()
	pso, err := kern.retainPipeline()
	if err != nil {
		return err
	}
	p := enterPool()
	defer p.exit()
	if err := s.begin(); err != nil {
		release(pso)
		return err
	}
	defer s.mu.Unlock()
	layout, err := layoutArgs(args, s.params)
	if err != nil {
		release(pso)
		return err
	}
	if layout.params != nil {
		s.params = layout.params[:0] // keep the grown scratch
	}
	// A params block past setBytes' 4 KiB goes into a buffer of its own,
	// made before any encoder exists (an encoder must be ended, never
	// abandoned).
	var paramsBuf id
	if n := len(layout.params); n > maxInlineParams {
		paramsBuf = id(send3(s.dev.obj, selNewBufferWithBytes, uintptr(unsafe.Pointer(&layout.params[0])), uintptr(n), resourceStorageShared))
		if paramsBuf == 0 {
			release(pso)
			return errorf(errors.OutOfMemory, "launch "+kern.name, "pass fewer scalars", "newBufferWithBytes:length:options: returned nil for a %d-byte params block", n)
		}
		defer release(paramsBuf) // after commit the command buffer holds its own reference (rule 5)
	}
	cb, err := s.newCommandBuffer(opLaunch)
	if err != nil {
		release(pso)
		return err
	}
	enc := id(send(cb, selComputeCommandEncoder))
	if enc == 0 {
		release(cb)
		release(pso)
		return errorf(errors.Internal, "launch "+kern.name, "retry; if it repeats, report it", "computeCommandEncoder returned nil")
	}
	send1(enc, selSetComputePipelineState, uintptr(pso))
	for i := 0; i < layout.buffers; i++ {
		send3(enc, selSetBuffer, uintptr(objs[i].obj), 0, uintptr(i))
	}
	switch {
	case paramsBuf != 0:
		send3(enc, selSetBuffer, uintptr(paramsBuf), 0, uintptr(layout.paramsIndex()))
	case len(layout.params) > 0:
		send3(enc, selSetBytes, uintptr(unsafe.Pointer(&layout.params[0])), uintptr(len(layout.params)), uintptr(layout.paramsIndex()))
	}
	s.dims[0] = mtlSize{uint64(grid.X), uint64(grid.Y), uint64(grid.Z)}
	s.dims[1] = mtlSize{uint64(block.X), uint64(block.Y), uint64(block.Z)}
	dispatchThreadgroups(enc, &s.dims[0], &s.dims[1])
	send(enc, selEndEncoding)
	s.commit(cb, opLaunch, kern.name, pso)
	return nil
}

// Record commits a command buffer that signals the stream's timeline with
// its seq; the event completes when the stream's work up to it has, and
// carries that command buffer's GPU timestamp. The command buffer also fills
// the stream's 4-byte marker buffer: real GPU work, so that Metal has
// timestamps to report for it (an otherwise empty command buffer might not
// run on the GPU at all), and a buffer of its own per stream, so markers of
// different streams share no resource Metal could order them by.
func (s *stream) Record() (backend.Event, error) {
	if err := s.dev.enter(); err != nil {
		return nil, err
	}
	defer s.dev.leave()
	p := enterPool()
	defer p.exit()
	if err := s.begin(); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	cb, err := s.newCommandBuffer(opRecord)
	if err != nil {
		return nil, err
	}
	if enc := id(send(cb, selBlitCommandEncoder)); enc != 0 {
		a := fillArgs(uintptr(enc), uintptr(selFillBuffer), uintptr(s.marker), 0, 4, 0)
		purego.SyscallN(rt.msgSend, a[:]...)
		send(enc, selEndEncoding)
	}
	send2(cb, selEncodeSignalEvent, uintptr(s.timeline), uintptr(s.lastSeq+1))
	s.commit(cb, opRecord, "", 0)
	e := &event{stream: s, seq: s.lastSeq, cb: retain(cb), timeline: retain(s.timeline)}
	s.dev.adopt(e)
	return e, nil
}

// Wait makes the stream's later work wait on the GPU for e's stream to reach
// e (encodeWaitForEvent:value:). An event of this stream, or one already
// complete, needs no wait.
func (s *stream) Wait(ev backend.Event) error {
	const op = "wait"
	e, ok := ev.(*event)
	if !ok {
		return errorf(errors.InvalidArgument, op, "wait for events of this backend", "event %T does not belong to the Metal backend", ev)
	}
	if err := s.dev.enter(); err != nil {
		return err
	}
	defer s.dev.leave()
	if e.stream.dev != s.dev {
		return errorf(errors.InvalidArgument, op, "synchronize the event on the host instead", "event of another Metal device")
	}
	if e.stream == s || e.stream.completedThrough(e.seq) {
		return nil
	}
	timeline, err := e.retainTimeline()
	if err != nil {
		return err
	}
	p := enterPool()
	defer p.exit()
	if err := s.begin(); err != nil {
		release(timeline)
		return err
	}
	defer s.mu.Unlock()
	cb, err := s.newCommandBuffer(opWait)
	if err != nil {
		release(timeline)
		return err
	}
	send2(cb, selEncodeWaitForEvent, uintptr(timeline), uintptr(e.seq))
	s.commit(cb, opWait, "", timeline)
	return nil
}

// Synchronize waits for everything committed so far, or for ctx, and returns
// the first failure collected since the last Synchronize.
func (s *stream) Synchronize(ctx context.Context) error {
	if err := s.dev.enter(); err != nil {
		return err
	}
	defer s.dev.leave()
	target, err := s.position()
	if err != nil {
		return err
	}
	if err := s.waitThrough(ctx, target, "synchronize"); err != nil {
		return err
	}
	s.mu.Lock()
	err = s.err
	s.err = nil
	s.mu.Unlock()
	return err
}

// Close waits for the queued work and releases the queue and its timeline.
func (s *stream) Close() error {
	s.destroy()
	s.dev.forget(s)
	return nil
}

// destroy waits for the stream's work (again if more was committed during
// the wait), then marks it destroyed and releases what it owns, under the
// lock, so no operation starts after.
func (s *stream) destroy() {
	for {
		target, err := s.position()
		if err != nil {
			return // already destroyed
		}
		_ = s.waitThrough(context.Background(), target, "close")
		s.mu.Lock()
		if s.destroyed {
			s.mu.Unlock()
			return
		}
		p := enterPool()
		s.collect()
		if s.head < len(s.fifo) { // work committed while we waited: drain again
			p.exit()
			s.mu.Unlock()
			continue
		}
		s.destroyed = true
		// Signal the timeline up to the last Record, so no other stream waits
		// forever on a value a failed command buffer never signalled.
		if uint64(send(s.timeline, selSignaledValue)) < s.lastSeq {
			send1(s.timeline, selSetSignaledValue, uintptr(s.lastSeq))
		}
		release(s.queue)
		release(s.timeline)
		release(s.marker)
		s.queue, s.timeline, s.marker = 0, 0, 0
		p.exit()
		s.mu.Unlock()
		return
	}
}

// event is a point in a stream: the command buffer of seq, which signals the
// stream's timeline.
//
// Owns: cb (the Record's command buffer, +1, for its GPU timestamps) and
// timeline (the stream's MTLSharedEvent, +1, for other streams' waits, so it
// outlives the stream if need be), released by destroy.
type event struct {
	stream *stream
	seq    uint64

	mu       sync.RWMutex
	cb       id
	timeline id
	released bool
}

var _ backend.Event = (*event)(nil)

var errEventClosed = errorf(errors.Closed, "event", "do not use an event after Close", "event is closed")

func (e *event) retainTimeline() (id, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.released {
		return 0, errEventClosed
	}
	return retain(e.timeline), nil
}

// Synchronize waits until the stream's work up to the event has completed,
// or ctx ends.
func (e *event) Synchronize(ctx context.Context) error {
	if err := e.stream.dev.enter(); err != nil {
		return err
	}
	defer e.stream.dev.leave()
	return e.stream.waitThrough(ctx, e.seq, "event synchronize")
}

// Done reports, without waiting, whether the stream's work up to the event
// has completed.
func (e *event) Done() (bool, error) {
	if err := e.stream.dev.enter(); err != nil {
		return false, err
	}
	defer e.stream.dev.leave()
	return e.stream.completedThrough(e.seq), nil
}

// Elapsed is the GPU time from start to e: the difference of the GPU end
// times of their command buffers (host mach time, common to all streams).
func (e *event) Elapsed(start backend.Event) (time.Duration, error) {
	const op = "elapsed"
	st, ok := start.(*event)
	if !ok {
		return 0, errorf(errors.InvalidArgument, op, "time events of this backend", "event %T does not belong to the Metal backend", start)
	}
	if err := e.stream.dev.enter(); err != nil {
		return 0, err
	}
	defer e.stream.dev.leave()
	if st.stream.dev != e.stream.dev {
		return 0, errorf(errors.InvalidArgument, op, "time events of one device", "events of different Metal devices")
	}
	var t [2]float64
	for i, x := range []*event{st, e} {
		if !x.stream.completedThrough(x.seq) {
			return 0, errorf(errors.InvalidArgument, op, "synchronize both events first", "event has not completed yet")
		}
		v, err := x.gpuTime()
		if err != nil {
			return 0, err
		}
		t[i] = v
	}
	return time.Duration((t[1] - t[0]) * 1e9), nil
}

// gpuTime is when the GPU finished the event's command buffer, in seconds of
// host mach time: GPUEndTime, or GPUStartTime should the end be unset.
func (e *event) gpuTime() (float64, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.released {
		return 0, errEventClosed
	}
	if t := rt.sendF64(e.cb, selGPUEndTime); t > 0 {
		return t, nil
	}
	if t := rt.sendF64(e.cb, selGPUStartTime); t > 0 {
		return t, nil
	}
	return 0, errorf(errors.NotSupported, "elapsed", "time the work on the host instead",
		"Metal reported no GPU timestamps for the event's command buffer")
}

func (e *event) destroy() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.released {
		return
	}
	e.released = true
	release(e.cb)
	release(e.timeline)
	e.cb, e.timeline = 0, 0
}

// Close releases the event's command buffer and timeline reference.
func (e *event) Close() error {
	e.destroy()
	e.stream.dev.forget(e)
	return nil
}
