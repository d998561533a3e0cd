package gpu_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	_ "github.com/anygpu/gpu/backend/cpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
)

// FuzzStreamOps drives the public API on the CPU device with a sequence of
// operations the fuzzer's bytes choose (allocations, transfers, fills,
// launches of the built-in kernels, events, streams, closes and use after
// close, with offsets and sizes negative, huge or just out of range) and
// checks each call against fuzzModel, a host-side model of the buffers:
// every call returns within the deadline, succeeds exactly when the model
// says it should, fails with the category the model expects (never
// Internal), and every byte read back that the model knows equals it.
func FuzzStreamOps(f *testing.F) {
	for _, seed := range fuzzSeeds() {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			data = data[:4096] // bounds one run's time
		}
		done := make(chan string, 1)
		m := &fuzzModel{in: data}
		go func() {
			defer func() {
				if v := recover(); v != nil {
					done <- fmt.Sprintf("panic: %v\n%s\ntrace:\n%s", v, debug.Stack(), strings.Join(m.trace, "\n"))
				}
			}()
			done <- m.run()
		}()
		select {
		case msg := <-done:
			if msg != "" {
				t.Fatal(msg)
			}
		case <-time.After(5 * time.Second): // the fuzzing engine gives up on a worker after 10 s
			stacks := make([]byte, 1<<20)
			t.Fatalf("hang: the operations did not return within 5 s; trace:\n%s\n%s", strings.Join(m.trace, "\n"), stacks[:runtime.Stack(stacks, true)])
		}
	})
}

// fuzzSeeds are byte programs that together use every operation of
// fuzzModel, in and out of range, so that `go test` (seeds only) covers them.
func fuzzSeeds() [][]byte {
	var seeds [][]byte
	// Each operation on its own after two allocations and a write, then
	// with out-of-range choices.
	prologue := []byte{opAlloc, 3, opAlloc, 5, opWrite, 0, 0, 9, 9, 7}
	for op := range byte(numOps) {
		for _, arg := range [][]byte{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, {255, 254, 253, 252, 251, 250, 249, 248, 247, 246}} {
			seed := append(append(append([]byte{}, prologue...), op), arg...)
			seed = append(seed, opRead, 0, 0, 9, 9, opRead, 1, 0, 9, 9, opSync, 0)
			seeds = append(seeds, seed)
		}
	}
	// Checks the generic seeds miss: a fill of a size that is not a multiple
	// of 4 (of a 202-byte buffer, all of it), and a copy within one buffer
	// whose ranges overlap ([0, 16) to [4, 20)).
	seeds = append(seeds,
		[]byte{opAlloc, 202, opFill, 0, 0, 0, 8, 0, 5, 1, 2, 3, 4},
		[]byte{opAlloc, 10, opCopy, 0, 0, 0, 0, 0, 8, 1, 8, 0, 8, 4})
	// A mixed program: streams, events across them, launches, closes and use
	// after close.
	seeds = append(seeds, []byte{
		opAlloc, 9, opAlloc, 9, opNewStream, opFill, 0, 1, 0, 9, 3, 1, 2, 3, 4,
		opRecord, 1, opWait, 0, 0, opLaunch, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
		opLaunch, 1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
		opCopy, 0, 0, 1, 2, 3, 4, opRead, 0, 1, 9, 9, opSync, 1,
		opClose, 0, 0, opWrite, 0, 0, 1, 1, 1, opClose, 1, 1, opFill, 1, 0, 0, 1, 1, 1, 1, 1, 1,
		opClose, 2, 0, opLaunch, 0, 0, 0, 0, 0, 0, opClose, 3, 0, opClose, 4, 0, opAlloc, 1, opSync, 2,
	})
	return seeds
}

// The operations of fuzzModel, one byte each, followed by the bytes of their
// choices.
const (
	opAlloc = iota
	opWrite
	opRead
	opCopy
	opFill
	opLaunch
	opRecord
	opWait
	opSync
	opNewStream
	opClose
	opReadAt
	opWriteAt
	opReadFrom
	opWriteTo
	opCopyOther
	numOps
)

// modelBuffer is a buffer and what the model knows of its contents.
type modelBuffer struct {
	b      *gpu.Buffer
	data   []byte
	known  []bool // contents of a fresh buffer, or what a launch computed, are not modelled
	closed bool
}

func (mb *modelBuffer) size() int64 { return int64(len(mb.data)) }

// set records that [off, off+len(p)) holds p.
func (mb *modelBuffer) set(off int64, p []byte) {
	copy(mb.data[off:], p)
	for i := range p {
		mb.known[off+int64(i)] = true
	}
}

// forget records that the contents are unknown.
func (mb *modelBuffer) forget() { clear(mb.known) }

// pendingRead is a Stream.Read whose destination holds the data once its
// stream has been synchronized.
type pendingRead struct {
	stream *gpu.Stream
	dst    []byte
	want   []byte
	known  []bool
	what   string
}

type modelEvent struct {
	e      *gpu.Event
	closed bool
}

type modelStream struct {
	s      *gpu.Stream
	closed bool
}

// fuzzModel runs one byte program against a CPU device.
type fuzzModel struct {
	in  []byte
	pos int

	ctx     context.Context
	dev     *gpu.Device
	other   *gpu.Device // a second device, for copies between devices
	devGone bool
	mod     *gpu.Module
	modGone bool
	bufs    []*modelBuffer
	streams []*modelStream
	events  []*modelEvent
	pending []pendingRead
	last    *gpu.Stream // the stream the last ordered operation used
	trace   []string
}

func (m *fuzzModel) byte() byte {
	if m.pos >= len(m.in) {
		return 0
	}
	m.pos++
	return m.in[m.pos-1]
}

// offset picks an offset or size for a buffer of size n: mostly in range,
// sometimes just outside it, negative or huge.
func (m *fuzzModel) offset(n int64) int64 {
	switch b := m.byte(); b % 16 {
	case 0:
		return -1
	case 1:
		return -4
	case 2:
		return math.MinInt64
	case 3:
		return math.MaxInt64
	case 4:
		return 1 << 62
	case 5:
		return n
	case 6:
		return n + 1
	case 7:
		return max(n-4, 0)
	default:
		return int64(m.byte()) * 4 % (n + 8)
	}
}

// length picks a slice length near a buffer of size n.
func (m *fuzzModel) length(n int64) int {
	return int(int64(m.byte())*4%(n+12)) + int(m.byte()%2)
}

func pick[T any](m *fuzzModel, list []T) (T, int) {
	var zero T
	if len(list) == 0 {
		return zero, -1
	}
	i := int(m.byte()) % len(list)
	return list[i], i
}

// buffer picks a buffer of the device, or nil.
func (m *fuzzModel) buffer() *modelBuffer {
	if b := m.byte(); b == 255 || len(m.bufs) == 0 {
		return nil
	}
	mb, i := pick(m, m.bufs)
	m.trace = append(m.trace, fmt.Sprintf("  buffer %d (%d bytes, closed %v)", i, mb.size(), mb.closed))
	return mb
}

func (mb *modelBuffer) handle() *gpu.Buffer {
	if mb == nil {
		return nil
	}
	return mb.b
}

// stream picks a stream and orders it after the last stream used, as a
// program must for the model to be deterministic: through an event or by
// synchronizing the last one.
func (m *fuzzModel) stream() *modelStream {
	ms, _ := pick(m, m.streams)
	m.trace = append(m.trace, fmt.Sprintf("  stream %d (closed %v, last %d)", ms.s.ID(), ms.closed, m.last.ID()))
	if ms.closed { // refuses everything: orders nothing
		return ms
	}
	if m.last == nil || m.last == ms.s {
		m.last = ms.s
		return ms
	}
	prev := m.last
	m.last = ms.s
	if m.byte()%2 == 0 {
		if e, err := prev.Record(); err == nil {
			if err := ms.s.Wait(e); err != nil {
				m.fail("wait to order streams: %v", err)
			}
			_ = e.Close()
			return ms
		}
	}
	m.syncStream(prev)
	return ms
}

// syncStream synchronizes s and checks the reads it completed.
func (m *fuzzModel) syncStream(s *gpu.Stream) {
	err := s.Synchronize(m.ctx)
	m.expect("synchronize", err, m.streamClosedCat(s))
	if err == nil {
		m.checkReads(func(p pendingRead) bool { return p.stream == s })
	}
}

func (m *fuzzModel) streamClosedCat(s *gpu.Stream) errors.Category {
	for _, ms := range m.streams {
		if ms.s == s && (ms.closed || m.devGone) {
			return errors.Closed
		}
	}
	return errors.None
}

// checkReads compares the pending reads done selects with the model and
// drops them.
func (m *fuzzModel) checkReads(done func(pendingRead) bool) {
	kept := m.pending[:0]
	for _, p := range m.pending {
		if !done(p) {
			kept = append(kept, p)
			continue
		}
		for i := range p.dst {
			if p.known[i] && p.dst[i] != p.want[i] {
				m.fail("%s: byte %d read back %#x, the model says %#x", p.what, i, p.dst[i], p.want[i])
				break
			}
		}
	}
	m.pending = kept
}

type fuzzFailure string

func (m *fuzzModel) fail(format string, args ...any) {
	panic(fuzzFailure(fmt.Sprintf(format, args...)))
}

// expect checks err against the category the model expects (None for
// success). Every error must carry a category, never Internal.
func (m *fuzzModel) expect(what string, err error, want errors.Category, alsoOK ...errors.Category) {
	m.trace = append(m.trace, fmt.Sprintf("  -> %s: %v", what, err))
	if err == nil {
		if want != errors.None {
			m.fail("%s succeeded; the model expects an error of category %s", what, want)
		}
		return
	}
	got := errors.CategoryOf(err)
	if got == errors.Internal || got == errors.None {
		m.fail("%s: error of category %q: %v", what, got, err)
	}
	if want == errors.None {
		m.fail("%s failed; the model expects success: %v", what, err)
	}
	if !errors.Is(err, want) {
		for _, c := range alsoOK {
			if errors.Is(err, c) {
				return
			}
		}
		m.fail("%s: want category %s, got %s: %v", what, want, got, err)
	}
}

// rangeCat is the category of a transfer of n bytes at off of mb: the
// stream, then a nil or closed buffer, then the range.
func (m *fuzzModel) rangeCat(ms *modelStream, mb *modelBuffer, off, n int64) errors.Category {
	if c := m.streamCat(ms); c != errors.None {
		return c
	}
	if c := bufferCat(mb); c != errors.None {
		return c
	}
	return outside(mb, off, n)
}

// bufferCat is the category of using mb: nil or closed.
func bufferCat(mb *modelBuffer) errors.Category {
	switch {
	case mb == nil:
		return errors.InvalidArgument
	case mb.closed:
		return errors.Closed
	}
	return errors.None
}

// outside is InvalidArgument when [off, off+n) is not within mb, which is
// open.
func outside(mb *modelBuffer, off, n int64) errors.Category {
	if off < 0 || n < 0 || off > mb.size() || n > mb.size()-off {
		return errors.InvalidArgument
	}
	return errors.None
}

func (m *fuzzModel) streamCat(ms *modelStream) errors.Category {
	if m.devGone || ms.closed {
		return errors.Closed
	}
	return errors.None
}

func (m *fuzzModel) run() (msg string) {
	defer func() {
		if v := recover(); v != nil {
			f, ok := v.(fuzzFailure)
			if !ok {
				panic(v)
			}
			msg = string(f) + "\ntrace:\n" + strings.Join(m.trace, "\n")
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	m.ctx = ctx
	dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	if err != nil {
		m.fail("open: %v", err)
	}
	m.dev = dev
	defer func() {
		_ = m.dev.Close()
		if m.other != nil {
			_ = m.other.Close()
		}
	}()
	m.streams = []*modelStream{{s: dev.DefaultStream()}}
	if m.mod, err = dev.Compile(ctx, kernels.Source()); err != nil {
		m.fail("compile: %v", err)
	}
	for steps := 0; m.pos < len(m.in) && steps < 200; steps++ {
		op := m.byte() % numOps
		m.trace = append(m.trace, fmt.Sprintf("op %d at byte %d", op, m.pos-1))
		m.step(op)
	}
	// Close synchronizes every stream: every read has its data then.
	m.expect("device close", m.dev.Close(), errors.None)
	m.checkReads(func(pendingRead) bool { return true })
	return ""
}

func (m *fuzzModel) step(op byte) {
	dev := m.dev
	devCat := errors.None
	if m.devGone {
		devCat = errors.Closed
	}
	switch op {
	case opAlloc:
		var size int64
		switch b := m.byte(); {
		case b < 200:
			size = int64(b%64) * 4
		case b < 220:
			size = int64(b) // not a multiple of 4
		default:
			size = m.offset(0) // 0, negative or huge
		}
		b, err := dev.Alloc(size)
		want := devCat
		if want == errors.None && size <= 0 {
			want = errors.InvalidArgument
		} else if want == errors.None && size > 1<<40 {
			want = errors.OutOfMemory
		}
		m.expect(fmt.Sprintf("alloc %d", size), err, want)
		if err == nil {
			m.bufs = append(m.bufs, &modelBuffer{b: b, data: make([]byte, size), known: make([]bool, size)})
		}
	case opWrite:
		ms, mb := m.stream(), m.buffer()
		off, n := m.offset(mb.sizeOr()), m.length(mb.sizeOr())
		src := make([]byte, n)
		for i := range src {
			src[i] = m.byte()
		}
		err := ms.s.Write(mb.handle(), off, src)
		want := m.rangeCat(ms, mb, off, int64(n))
		m.expect(fmt.Sprintf("write %d at %d", n, off), err, want)
		if err == nil && want == errors.None {
			mb.set(off, src)
			clear(src) // Write's source may be reused at once
		}
	case opRead:
		ms, mb := m.stream(), m.buffer()
		off, n := m.offset(mb.sizeOr()), m.length(mb.sizeOr())
		dst := make([]byte, n)
		err := ms.s.Read(dst, mb.handle(), off)
		want := m.rangeCat(ms, mb, off, int64(n))
		m.expect(fmt.Sprintf("read %d at %d", n, off), err, want)
		if err == nil && want == errors.None {
			m.pending = append(m.pending, pendingRead{stream: ms.s, dst: dst,
				want: bytes.Clone(mb.data[off : off+int64(n)]), known: append([]bool(nil), mb.known[off:off+int64(n)]...),
				what: fmt.Sprintf("read %d at %d", n, off)})
		}
	case opCopy:
		ms, dst, src := m.stream(), m.buffer(), m.buffer()
		dOff, sOff, n := m.offset(dst.sizeOr()), m.offset(src.sizeOr()), m.offset(min(dst.sizeOr(), src.sizeOr()))
		err := ms.s.Copy(dst.handle(), dOff, src.handle(), sOff, n)
		// The root checks the stream, the destination, the source, then
		// each range.
		want := errors.None
		for _, c := range []func() errors.Category{
			func() errors.Category { return m.streamCat(ms) },
			func() errors.Category { return bufferCat(dst) }, func() errors.Category { return bufferCat(src) },
			func() errors.Category { return outside(dst, dOff, n) }, func() errors.Category { return outside(src, sOff, n) },
		} {
			if want = c(); want != errors.None {
				break
			}
		}
		if want == errors.None && dst == src && n > 0 && sOff < dOff+n && dOff < sOff+n {
			want = errors.InvalidArgument // overlap
		}
		m.expect(fmt.Sprintf("copy %d from %d to %d", n, sOff, dOff), err, want)
		if err == nil && want == errors.None {
			data, known := bytes.Clone(src.data[sOff:sOff+n]), append([]bool(nil), src.known[sOff:sOff+n]...)
			copy(dst.data[dOff:], data)
			copy(dst.known[dOff:], known)
		}
	case opFill:
		ms, mb := m.stream(), m.buffer()
		off, n := m.offset(mb.sizeOr()), m.offset(mb.sizeOr())
		v := binary.LittleEndian.Uint32([]byte{m.byte(), m.byte(), m.byte(), m.byte()})
		err := ms.s.Fill(mb.handle(), off, n, v)
		want := m.rangeCat(ms, mb, off, n)
		if want == errors.None && (off%4 != 0 || n%4 != 0) {
			want = errors.InvalidArgument
		}
		m.expect(fmt.Sprintf("fill %d at %d", n, off), err, want)
		if err == nil && want == errors.None {
			m.fill(mb, off, n, v)
		}
	case opLaunch:
		m.launch()
	case opRecord:
		ms := m.stream()
		e, err := ms.s.Record()
		m.expect("record", err, m.streamCat(ms))
		if err == nil {
			m.events = append(m.events, &modelEvent{e: e})
		}
	case opWait:
		ms := m.stream()
		me, _ := pick(m, m.events)
		var e *gpu.Event
		want := m.streamCat(ms)
		if me != nil {
			e = me.e
			if want == errors.None && me.closed {
				want = errors.Closed
			}
		} else if want == errors.None {
			want = errors.InvalidArgument
		}
		m.expect("wait", ms.s.Wait(e), want)
	case opSync:
		switch m.byte() % 3 {
		case 0:
			ms, _ := pick(m, m.streams)
			m.syncStream(ms.s)
		case 1:
			err := dev.Synchronize(m.ctx)
			m.expect("device synchronize", err, devCat)
			m.checkReads(func(pendingRead) bool { return true })
		default:
			if me, _ := pick(m, m.events); me != nil {
				want := devCat
				if me.closed {
					want = errors.Closed
				}
				m.expect("event synchronize", me.e.Synchronize(m.ctx), want)
			}
		}
	case opNewStream:
		s, err := dev.NewStream()
		m.expect("new stream", err, devCat)
		if err == nil {
			m.streams = append(m.streams, &modelStream{s: s})
		}
	case opClose:
		m.close()
	case opReadAt, opWriteAt:
		m.readWriteAt(op)
	case opReadFrom, opWriteTo:
		m.readFromWriteTo(op)
	case opCopyOther:
		m.copyOther()
	}
}

func (mb *modelBuffer) sizeOr() int64 {
	if mb == nil {
		return 16
	}
	return mb.size()
}

// fill records a fill of n bytes at off with the 32-bit value v.
func (m *fuzzModel) fill(mb *modelBuffer, off, n int64, v uint32) {
	var word [4]byte
	binary.LittleEndian.PutUint32(word[:], v)
	for i := off; i < off+n; i += 4 {
		mb.set(i, word[:])
	}
}

// fuzzDims are the grid and block dimensions a launch picks from: valid,
// zero, negative and beyond the CPU device's limits (block 1024 threads,
// 1024×1024×64; grid 2³¹-1×65535×65535).
var fuzzDims = []gpu.Dim3{
	{X: 1}, {X: 2}, {X: 3}, {X: 64}, {X: 1, Y: 2}, {X: 4, Y: 4, Z: 2}, {X: 1024},
	{X: 0}, {X: -1}, {X: 1, Y: -2}, {X: 1025}, {X: 32, Y: 64}, {X: 1, Y: 1, Z: 65},
	{X: 1, Y: 65536}, {X: 1 << 31},
}

// launch launches a built-in kernel with fuzzed geometry and arguments.
func (m *fuzzModel) launch() {
	ms := m.stream()
	op, _ := pick(m, kernels.Ops())
	k, kerr := m.mod.Kernel(op)
	grid, _ := pick(m, fuzzDims)
	block, _ := pick(m, fuzzDims)
	params := kernels.Params[op]
	nargs := len(params)
	if b := m.byte(); b >= 240 {
		nargs = int(b % 8) // a wrong count, sometimes
	}
	args := make([]gpu.Arg, nargs)
	argBufs := make([]*modelBuffer, nargs)
	var scalars []uint32
	badKind := false
	for i := range args {
		kind := gpu.KindBuffer
		if i < len(params) {
			kind = params[i]
		}
		if b := m.byte(); b >= 250 {
			kind = gpu.ArgKind(b % 9) // a wrong kind, or none
		}
		if i >= len(params) || kind != params[i] {
			badKind = true
		}
		switch kind {
		case gpu.KindBuffer:
			argBufs[i] = m.buffer()
			args[i] = gpu.Buf(argBufs[i].handle())
		case gpu.KindU32:
			n := uint32(m.byte()) // an element count, mostly
			if n >= 250 {
				n = math.MaxUint32 - uint32(n%4)
			}
			args[i] = gpu.U32(n)
			scalars = append(scalars, n)
		case gpu.KindF32:
			v := binary.LittleEndian.Uint32([]byte{m.byte(), m.byte(), m.byte(), m.byte()})
			args[i] = gpu.F32(math.Float32frombits(v))
			scalars = append(scalars, v)
		case gpu.KindI32:
			args[i] = gpu.I32(int32(m.byte()))
		case gpu.KindF64:
			args[i] = gpu.F64(float64(m.byte()))
		case gpu.KindU64:
			args[i] = gpu.U64(uint64(m.byte()))
		case gpu.KindI64:
			args[i] = gpu.I64(int64(m.byte()))
		}
	}
	if kerr != nil { // the module is closed
		m.expect("kernel", kerr, errors.Closed)
	}
	err := ms.s.Launch(k, grid, block, args...)
	what := fmt.Sprintf("launch %s grid %v block %v, %d args, scalars %#x", op, grid, block, nargs, scalars)
	// The root's checks, in its order: the stream, the kernel, the
	// geometry, the device's limits, the arguments.
	want, alsoOK := m.streamCat(ms), []errors.Category(nil)
	g, b := grid.Norm(), block.Norm()
	switch {
	case want != errors.None:
	case k == nil: // Kernel failed: the module is closed
		want = errors.InvalidArgument
	case g.X <= 0 || g.Y <= 0 || g.Z <= 0 || b.X <= 0 || b.Y <= 0 || b.Z <= 0:
		want = errors.InvalidArgument
	case b.Count() > 1024 || b.X > 1024 || b.Y > 1024 || b.Z > 64 || g.X > 1<<31-1 || g.Y > 65535 || g.Z > 65535:
		want = errors.Launch
	case badKind || nargs != len(params):
		want, alsoOK = errors.InvalidArgument, []errors.Category{errors.Closed}
	default:
		for i, ab := range argBufs {
			if params[i] != gpu.KindBuffer {
				continue
			}
			if ab == nil && want == errors.None {
				want = errors.InvalidArgument
			} else if ab != nil && ab.closed && want == errors.None {
				want = errors.Closed
			}
		}
	}
	m.expect(what, err, want, alsoOK...)
	if err != nil || want != errors.None {
		return
	}
	// The model: fill and copy exactly; any other op may change its first
	// buffer (its output), which the model then no longer knows. A kernel
	// whose sizes exceed a buffer may write nothing or run on into the
	// slack of the buffer's pool size class (it sees the class's size), so
	// the model forgets that buffer.
	switch op {
	case kernels.OpFill:
		n := int64(scalars[0]) * 4
		if n <= argBufs[0].size() {
			m.fill(argBufs[0], 0, n, scalars[1])
		} else {
			argBufs[0].forget()
		}
	case kernels.OpCopy:
		n := int64(scalars[0]) * 4
		y, x := argBufs[0], argBufs[1]
		if n <= y.size() && n <= x.size() {
			data, known := bytes.Clone(x.data[:n]), append([]bool(nil), x.known[:n]...)
			copy(y.data, data)
			copy(y.known, known)
		} else {
			y.forget()
		}
	default:
		argBufs[0].forget()
	}
}

// close closes a buffer, stream, event, the module or the device. A buffer
// is closed after the device is synchronized (work queued on a stream must
// not use a buffer that is closed).
func (m *fuzzModel) close() {
	switch m.byte() % 5 {
	case 0:
		mb := m.buffer()
		if mb == nil {
			return
		}
		_ = m.dev.Synchronize(m.ctx)
		m.checkReads(func(pendingRead) bool { return true })
		m.expect("buffer close", mb.b.Close(), errors.None)
		mb.closed = true
	case 1:
		ms, _ := pick(m, m.streams)
		m.expect("stream close", ms.s.Close(), errors.None)
		if ms.s != m.dev.DefaultStream() { // closing the default stream does nothing
			m.checkReads(func(p pendingRead) bool { return p.stream == ms.s })
			ms.closed = true
		}
	case 2:
		if me, _ := pick(m, m.events); me != nil {
			m.expect("event close", me.e.Close(), errors.None)
			me.closed = true
		}
	case 3:
		m.expect("module close", m.mod.Close(), errors.None)
		m.modGone = true
	default:
		if m.byte()%4 != 0 {
			return // rarely: the device ends most of what follows
		}
		m.expect("device close", m.dev.Close(), errors.None)
		m.checkReads(func(pendingRead) bool { return true })
		m.devGone = true
		for _, mb := range m.bufs {
			mb.closed = true
		}
		for _, ms := range m.streams {
			ms.closed = true
		}
		for _, me := range m.events {
			me.closed = true
		}
		m.modGone = true
	}
}

// readWriteAt is Buffer.ReadAt or WriteAt: synchronous, on the default
// stream.
func (m *fuzzModel) readWriteAt(op byte) {
	m.orderDefault()
	mb := m.buffer()
	off, n := m.offset(mb.sizeOr()), m.length(mb.sizeOr())
	p := make([]byte, n)
	want := m.useCat(mb)
	if want == errors.None && off < 0 {
		want = errors.InvalidArgument
	}
	if op == opWriteAt {
		for i := range p {
			p[i] = m.byte()
		}
		got, err := mb.handle().WriteAt(p, off)
		if want == errors.None && (off > mb.size() || int64(n) > mb.size()-off) {
			want = errors.InvalidArgument
		}
		m.expect(fmt.Sprintf("write at %d, %d bytes", off, n), err, want)
		if err == nil {
			if got != n {
				m.fail("write at returned %d, want %d", got, n)
			}
			mb.set(off, p)
		}
		return
	}
	got, err := mb.handle().ReadAt(p, off)
	what := fmt.Sprintf("read at %d, %d bytes", off, n)
	if want != errors.None {
		m.expect(what, err, want)
		return
	}
	if off > mb.size() || (off == mb.size() && n > 0) {
		if got != 0 || err != io.EOF {
			m.fail("%s of a %d-byte buffer: want 0, io.EOF, got %d, %v", what, mb.size(), got, err)
		}
		return
	}
	if err != io.EOF {
		m.expect(what, err, errors.None)
	}
	wantN := min(int64(n), mb.size()-off)
	if int64(got) != wantN || (wantN < int64(n)) != (err == io.EOF) {
		m.fail("%s of a %d-byte buffer: got %d, %v", what, mb.size(), got, err)
	}
	m.compare("read at", p[:got], mb, off)
}

// useCat is the category of a Buffer method's call on mb: nil first (a nil
// buffer knows no device), then a closed device or buffer.
func (m *fuzzModel) useCat(mb *modelBuffer) errors.Category {
	switch {
	case mb == nil:
		return errors.InvalidArgument
	case m.devGone || mb.closed:
		return errors.Closed
	}
	return errors.None
}

// compare checks that p equals what the model knows of mb at off.
func (m *fuzzModel) compare(what string, p []byte, mb *modelBuffer, off int64) {
	for i := range p {
		if j := off + int64(i); mb.known[j] && p[i] != mb.data[j] {
			m.fail("%s: byte %d read back %#x, the model says %#x", what, j, p[i], mb.data[j])
		}
	}
}

// orderDefault orders the default stream after the last stream used, for
// the operations that use it implicitly.
func (m *fuzzModel) orderDefault() {
	if m.last != nil && m.last != m.dev.DefaultStream() && !m.devGone {
		m.syncStream(m.last)
	}
	m.last = m.dev.DefaultStream()
}

// readFromWriteTo is Buffer.ReadFrom from a bytes.Reader or WriteTo into a
// bytes.Buffer.
func (m *fuzzModel) readFromWriteTo(op byte) {
	m.orderDefault()
	mb := m.buffer()
	want := m.useCat(mb)
	if op == opWriteTo {
		var out bytes.Buffer
		n, err := mb.handle().WriteTo(&out)
		m.expect("write to", err, want)
		if err == nil {
			if n != mb.size() || int64(out.Len()) != n {
				m.fail("write to: %d bytes (%d written), want %d", n, out.Len(), mb.size())
			}
			m.compare("write to", out.Bytes(), mb, 0)
		}
		return
	}
	src := make([]byte, m.length(mb.sizeOr()))
	for i := range src {
		src[i] = m.byte()
	}
	n, err := mb.handle().ReadFrom(bytes.NewReader(src))
	if want == errors.None && int64(len(src)) > mb.size() {
		want = errors.InvalidArgument // more than the buffer holds
	}
	m.expect(fmt.Sprintf("read from %d bytes", len(src)), err, want)
	if want == errors.None || (want == errors.InvalidArgument && mb != nil && !mb.closed && !m.devGone) {
		w := min(int64(len(src)), mb.size())
		if n != w {
			m.fail("read from %d bytes into %d: %d, want %d", len(src), mb.size(), n, w)
		}
		mb.set(0, src[:w])
	}
}

// copyOther copies from a buffer of a second CPU device (staged through the
// host) into one of this device.
func (m *fuzzModel) copyOther() {
	if m.other == nil {
		other, err := gpu.Open(m.ctx, gpu.WithBackends("cpu"))
		if err != nil {
			m.fail("open a second device: %v", err)
		}
		m.other = other
	}
	size := int64(m.byte()%16+1) * 4
	src, err := m.other.Alloc(size)
	if err != nil {
		m.fail("alloc on the second device: %v", err)
	}
	defer src.Close()
	data := make([]byte, size)
	for i := range data {
		data[i] = m.byte()
	}
	if _, err := src.WriteAt(data, 0); err != nil {
		m.fail("write on the second device: %v", err)
	}
	ms, dst := m.stream(), m.buffer()
	dOff, sOff, n := m.offset(dst.sizeOr()), m.offset(size), m.offset(min(dst.sizeOr(), size))
	err = ms.s.Copy(dst.handle(), dOff, src, sOff, n)
	want := m.rangeCat(ms, dst, dOff, n)
	if want == errors.None && (sOff < 0 || n < 0 || sOff > size || n > size-sOff) {
		want = errors.InvalidArgument
	}
	m.expect(fmt.Sprintf("copy %d from the other device at %d to %d", n, sOff, dOff), err, want)
	if err == nil && want == errors.None {
		dst.set(dOff, data[sOff:sOff+n])
	}
	// The source is closed when this returns: the staged copy has read it.
}
