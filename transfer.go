package gpu

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu/errors"
)

// ReadFromChunk is the size of the pinned chunks ReadFrom stages data through.
const ReadFromChunk = 4 << 20

// readFromWorkers bounds the goroutines that fill pinned chunks in parallel
// when ReadFrom's reader allows reads at any offset.
var readFromWorkers = max(1, min(12, runtime.GOMAXPROCS(0)))

// ReadFrom fills the buffer from r, starting at offset 0, until r returns
// io.EOF. Data moves through pinned host chunks, the copy of one chunk to the
// device overlapping the reading of the next:
//
//   - a reader that is an io.ReaderAt and an io.Seeker (bytes.Reader,
//     strings.Reader, io.SectionReader, a regular *os.File) is read by
//     several goroutines at once, each with ReadAt into chunks of its own,
//     from the reader's current offset; the offset is left after what was
//     read, as a sequential read would leave it;
//   - an io.WriterTo (bytes.Buffer) hands its data over in writes; a large
//     write is read in parallel the same way, small ones are gathered into
//     a ring of chunks;
//   - any other reader is read sequentially into a ring of chunks.
//
// A reader with more data than the buffer holds is an InvalidArgument error
// (after the buffer is full), and so is a reader that breaks io.Reader's
// contract: a count below zero or beyond what was asked, or no data and no
// error 100 times in a row (io.ErrNoProgress, as bufio gives up).
func (b *Buffer) ReadFrom(r io.Reader) (int64, error) {
	return b.ReadFromContext(context.Background(), r, nil)
}

// Progress receives the bytes copied so far and the total expected (the
// buffer's size); it is called after each chunk, on the goroutine that called
// ReadFromContext or WriteToContext, with done never decreasing.
type Progress func(done, total int64)

// maxEmptyReads is how many reads in a row may return no data and no error
// before ReadFrom gives up with io.ErrNoProgress, as bufio does.
const maxEmptyReads = 100

// ReadFromContext is ReadFrom with cancellation and an optional progress
// callback. ctx and the device are looked at before every read of a plain
// reader, every chunk of an io.ReaderAt and every write of an io.WriterTo, so
// that a slow reader is given up within one read of ctx's end or of the
// device's Close; nothing it started runs after it returns.
func (b *Buffer) ReadFromContext(ctx context.Context, r io.Reader, progress Progress) (int64, error) {
	const op = "read from"
	if err := b.usable(op); err != nil {
		return 0, err
	}
	if r == nil {
		return 0, b.dev.errorf(errors.InvalidArgument, op, "nil reader")
	}
	if ctx == nil {
		return 0, b.dev.errorf(errors.InvalidArgument, op, "nil context")
	}
	if progress == nil {
		progress = func(int64, int64) {}
	}
	if ra, ok := r.(io.ReaderAt); ok {
		if sk, ok := r.(io.Seeker); ok {
			if n, ok, err := b.readFromAt(ctx, ra, sk, progress); ok {
				return n, err
			}
		}
	}
	if wt, ok := r.(io.WriterTo); ok {
		if _, isFile := r.(*os.File); !isFile { // a pipe's WriteTo makes 32 KiB writes: read it directly
			return b.readFromWriterTo(ctx, wt, progress)
		}
	}
	return b.readFromStream(ctx, r, progress)
}

// tooMuch is the error of a reader with more data than the buffer holds.
func (b *Buffer) tooMuch(op string) error {
	return b.dev.errorf(errors.InvalidArgument, op, "the reader holds more than the buffer's %d bytes", b.size)
}

// badCount is the error of a reader or writer whose call (Read, ReadAt,
// Write) returned a count n outside [0, asked].
func (b *Buffer) badCount(op, call string, n int, asked int64) error {
	return b.dev.record(&errors.Error{
		Backend: b.dev.backend, Op: op, Category: errors.InvalidArgument,
		Msg:  fmt.Sprintf("%s of %d bytes returned a count of %d", call, asked, n),
		Hint: "the io." + map[string]string{"Read": "Reader", "ReadAt": "ReaderAt", "Write": "Writer"}[call] + " breaks its contract: a count is between 0 and len(p)",
	})
}

// readFull reads r into p until p is full or r ends (eof). Before each read
// it checks that ctx has not ended and that the device is usable. Its errors
// are final (attributed and recorded): one of r, a count r must not return,
// io.ErrNoProgress after maxEmptyReads empty reads, ctx's or the device's.
func (b *Buffer) readFull(ctx context.Context, r io.Reader, p []byte) (n int, eof bool, err error) {
	const op = "read from"
	for empty := 0; n < len(p); {
		if err := ctx.Err(); err != nil {
			return n, false, b.dev.wrap(err, op)
		}
		if err := b.usable(op); err != nil {
			return n, false, err
		}
		m, rerr := r.Read(p[n:])
		if m < 0 || m > len(p)-n {
			return n, false, b.badCount(op, "Read", m, int64(len(p)-n))
		}
		n += m
		switch {
		case rerr == io.EOF:
			return n, true, nil
		case rerr != nil:
			return n, false, b.dev.wrap(fmt.Errorf("reading: %w", rerr), op)
		case m > 0:
			empty = 0
		default:
			if empty++; empty == maxEmptyReads {
				return n, false, b.dev.record(&errors.Error{
					Backend: b.dev.backend, Op: op, Category: errors.InvalidArgument, Err: io.ErrNoProgress,
					Msg:  fmt.Sprintf("the reader returned no data and no error %d times in a row", maxEmptyReads),
					Hint: "the io.Reader breaks its contract: a Read blocks until it has data, or returns an error",
				})
			}
		}
	}
	return n, false, nil
}

// stagingRing is pinned chunks, each with the event recorded after the last
// copy that used it.
type stagingRing struct {
	dev   *Device
	slots []*HostBuffer
	evs   []*Event
}

// slot returns the memory of chunk i of the ring (allocated on first use)
// once its last copy has completed.
func (rg *stagingRing) slot(ctx context.Context, i int, size int64) ([]byte, error) {
	if rg.evs[i] != nil {
		err := rg.evs[i].Synchronize(ctx)
		_ = rg.evs[i].Close()
		rg.evs[i] = nil
		if err != nil {
			return nil, err
		}
	}
	if rg.slots[i] == nil {
		hb, err := rg.dev.AllocHost(size)
		if err != nil {
			return nil, err
		}
		rg.slots[i] = hb
	}
	p := rg.slots[i].Bytes()
	if p == nil { // the device closed
		return nil, rg.dev.usable("staging")
	}
	return p, nil
}

// send copies n bytes of chunk i to dst at off on s and records the chunk's event.
func (rg *stagingRing) send(s *Stream, dst *Buffer, off int64, i int, n int64) error {
	return rg.recordAfter(s, i, s.WriteHost(dst, off, rg.slots[i], 0, n))
}

// receive copies n bytes of src at off into chunk i on s and records the
// chunk's event.
func (rg *stagingRing) receive(s *Stream, src *Buffer, off int64, i int, n int64) error {
	return rg.recordAfter(s, i, s.ReadHost(rg.slots[i], 0, src, off, n))
}

// recordAfter records chunk i's event on s after a copy that was enqueued
// with the error enqueued returned (nothing when it failed).
func (rg *stagingRing) recordAfter(s *Stream, i int, enqueued error) error {
	if enqueued != nil {
		return enqueued
	}
	ev, err := s.Record()
	if err != nil {
		return err
	}
	rg.evs[i] = ev
	return nil
}

// close waits for the chunks' copies and returns them to the host pool.
func (rg *stagingRing) close() {
	for i := range rg.slots {
		if rg.evs[i] != nil {
			_ = rg.evs[i].Synchronize(context.Background())
			_ = rg.evs[i].Close()
		}
		_ = rg.slots[i].Close()
	}
}

func newStagingRing(d *Device, n int) *stagingRing {
	return &stagingRing{dev: d, slots: make([]*HostBuffer, n), evs: make([]*Event, n)}
}

// readFromStream reads r sequentially into a ring of four chunks.
func (b *Buffer) readFromStream(ctx context.Context, r io.Reader, progress Progress) (int64, error) {
	const op = "read from"
	s := b.dev.def
	chunk := min(int64(ReadFromChunk), b.size)
	rg := newStagingRing(b.dev, 4)
	defer rg.close()
	var total int64
	for i := 0; ; i = (i + 1) % len(rg.slots) {
		want := min(chunk, b.size-total)
		if want == 0 { // full: one more byte is too much
			var probe [1]byte
			n, eof, err := b.readFull(ctx, r, probe[:])
			if n > 0 {
				return total, b.tooMuch(op)
			}
			if eof {
				break
			}
			return total, err
		}
		p, err := rg.slot(ctx, i, chunk)
		if err != nil {
			return total, err
		}
		n, eof, rerr := b.readFull(ctx, r, p[:want])
		if n > 0 {
			if err := rg.send(s, b, total, i, int64(n)); err != nil {
				return total, err
			}
			total += int64(n)
			progress(total, b.size)
		}
		if rerr != nil {
			return total, rerr
		}
		if eof {
			break
		}
	}
	return total, s.Synchronize(ctx)
}

// readFromAt reads a ReaderAt from the Seeker's current offset with several
// goroutines (fillParallel). ok is false when the reader cannot tell its
// size (Seek fails): then nothing was read and the caller reads it
// sequentially.
func (b *Buffer) readFromAt(ctx context.Context, ra io.ReaderAt, sk io.Seeker, progress Progress) (total int64, ok bool, err error) {
	const op = "read from"
	cur, err := sk.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, false, nil
	}
	end, err := sk.Seek(0, io.SeekEnd)
	if err != nil {
		_, _ = sk.Seek(cur, io.SeekStart)
		return 0, false, nil
	}
	avail := max(end-cur, 0)
	want := min(avail, b.size)
	total, err = b.fillParallel(ctx, ra, cur, 0, want, func(done int64) { progress(done, b.size) })
	if err != nil {
		_ = b.dev.def.Synchronize(context.Background())
		return total, true, err
	}
	if err := b.dev.def.Synchronize(ctx); err != nil {
		return total, true, err
	}
	if avail > b.size && total == b.size { // as a sequential read: the probe byte is consumed
		_, _ = sk.Seek(cur+total+1, io.SeekStart)
		return total, true, b.tooMuch(op)
	}
	if _, err := sk.Seek(cur+total, io.SeekStart); err != nil {
		return total, true, b.dev.wrap(err, op)
	}
	return total, true, nil
}

// fillParallel copies want bytes of ra, from offset base, to the buffer at
// dstOff on the default stream: readFromWorkers goroutines take ReadFromChunk
// chunks in order from a shared counter, each reading its chunk with ReadAt
// into one of its two pinned chunks and copying that to the device while it
// reads the next into the other. progress gets the bytes done so far (from
// this goroutine). It returns the bytes delivered: want, or less when the
// reader ended early (the prefix up to the first short chunk). The copies
// may still be in flight when it returns.
func (b *Buffer) fillParallel(ctx context.Context, ra io.ReaderAt, base, dstOff, want int64, progress func(done int64)) (int64, error) {
	const op = "read from"
	chunk := min(int64(ReadFromChunk), max(want, 1))
	chunks := (want + chunk - 1) / chunk
	workers := min(int64(readFromWorkers), chunks)
	s := b.dev.def

	type result struct {
		c   int64 // chunk index
		n   int64 // bytes read and sent
		err error // a read or copy error; io.EOF for a short chunk
		dev bool  // err is the device's, already recorded
	}
	results := make(chan result, chunks)
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rg := newStagingRing(b.dev, 2)
			defer rg.close()
			for k := 0; !stop.Load(); k++ {
				c := next.Add(1) - 1
				if c >= chunks {
					return
				}
				if err := ctx.Err(); err != nil {
					results <- result{c: c, err: b.dev.wrap(err, op), dev: true}
					return
				}
				off := c * chunk
				m := min(chunk, want-off)
				p, err := rg.slot(ctx, k&1, chunk)
				if err != nil {
					results <- result{c: c, err: err, dev: true}
					return
				}
				n, rerr := ra.ReadAt(p[:m], base+off)
				if n < 0 || int64(n) > m {
					results <- result{c: c, err: b.badCount(op, "ReadAt", n, m), dev: true}
					return
				}
				if n > 0 {
					if err := rg.send(s, b, dstOff+off, k&1, int64(n)); err != nil {
						results <- result{c: c, err: err, dev: true}
						return
					}
				}
				switch {
				case int64(n) == m:
					results <- result{c: c, n: m}
				case rerr == nil || rerr == io.EOF: // the reader ended early (a file that shrank)
					results <- result{c: c, n: int64(n), err: io.EOF}
					return
				default:
					results <- result{c: c, n: int64(n), err: fmt.Errorf("reading: %w", rerr)}
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	short := chunks // the first chunk that came back short
	var shortN int64
	var firstErr error
	var done int64
	for res := range results {
		if res.err == nil || res.err == io.EOF {
			done += res.n
			if res.err == io.EOF && res.c < short {
				short, shortN = res.c, res.n
			}
			if firstErr == nil && ctx.Err() != nil {
				firstErr = b.dev.wrap(ctx.Err(), op)
				stop.Store(true)
			}
			if firstErr == nil {
				progress(min(done, want))
			}
			continue
		}
		if firstErr == nil {
			firstErr = res.err
			if !res.dev {
				firstErr = b.dev.wrap(res.err, op)
			}
			stop.Store(true)
		}
	}
	if firstErr != nil {
		return 0, firstErr
	}
	if short < chunks {
		return short*chunk + shortN, nil
	}
	return want, nil
}

// readFromWriterTo lets wt write its data to the buffer: large writes are
// read in parallel into pinned chunks (fillParallel), small ones gathered in
// a ring of pinned chunks.
func (b *Buffer) readFromWriterTo(ctx context.Context, wt io.WriterTo, progress Progress) (int64, error) {
	const op = "read from"
	w := &deviceWriter{ctx: ctx, b: b, s: b.dev.def, progress: progress, rg: newStagingRing(b.dev, 4)}
	defer w.rg.close()
	_, err := wt.WriteTo(w)
	if err == nil {
		err = w.flush()
	}
	if err != nil {
		if w.full {
			return w.total, errors.Join(w.s.Synchronize(ctx), b.tooMuch(op))
		}
		_ = w.s.Synchronize(context.Background())
		if err != w.devErr {
			err = b.dev.wrap(err, op)
		}
		return w.total, err
	}
	return w.total, w.s.Synchronize(ctx)
}

// deviceWriter is the io.Writer readFromWriterTo gives the reader.
type deviceWriter struct {
	ctx      context.Context
	b        *Buffer
	s        *Stream
	progress Progress
	rg       *stagingRing
	slot     int   // the ring chunk being gathered
	fill     int64 // bytes gathered in it
	total    int64 // bytes sent to the device (the offset of the next)
	full     bool  // the reader held more than the buffer
	devErr   error // the device's error, already recorded
}

func (w *deviceWriter) Write(p []byte) (int, error) {
	// Looked at even for an empty write, so that a reader writing nothing
	// over and over is stopped.
	if err := w.b.usable("read from"); err != nil {
		w.devErr = err
		return 0, err
	}
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	written := 0
	for len(p) > 0 {
		if err := w.ctx.Err(); err != nil {
			return written, err
		}
		room := w.b.size - w.total - w.fill
		if room == 0 {
			w.full = true
			return written, io.ErrShortWrite
		}
		if w.fill == 0 && len(p) >= 2*ReadFromChunk {
			// A large write: read it in parallel into pinned chunks, as a
			// ReaderAt would be.
			n := min(int64(len(p)), room)
			base := w.total
			got, err := w.b.fillParallel(w.ctx, bytes.NewReader(p[:n]), 0, base, n, func(done int64) { w.progress(base+done, w.b.size) })
			if err != nil {
				w.devErr = err
				return written, err
			}
			w.total += got
			p, written = p[got:], written+int(got)
			continue
		}
		chunk, err := w.rg.slot(w.ctx, w.slot, ReadFromChunk)
		if err != nil {
			w.devErr = err
			return written, err
		}
		n := copy(chunk[w.fill:min(int64(ReadFromChunk), w.fill+room)], p)
		w.fill += int64(n)
		p, written = p[n:], written+n
		if w.fill == ReadFromChunk || w.total+w.fill == w.b.size {
			if err := w.flush(); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

// flush sends the gathered chunk to the device.
func (w *deviceWriter) flush() error {
	if w.fill == 0 {
		return nil
	}
	if err := w.rg.send(w.s, w.b, w.total, w.slot, w.fill); err != nil {
		w.devErr = err
		return err
	}
	w.total += w.fill
	w.fill = 0
	w.slot = (w.slot + 1) % len(w.rg.slots)
	w.progress(w.total, w.b.size)
	return nil
}

// WriteTo writes the buffer's contents, all Size bytes from offset 0, to w.
// Data moves through two pinned host chunks of ReadFromChunk bytes, the copy
// of the next chunk from the device overlapping the writing of one to w. A
// writer that breaks io.Writer's contract (a count below zero or beyond len(p))
// is an InvalidArgument error; a short write without an error is
// io.ErrShortWrite.
func (b *Buffer) WriteTo(w io.Writer) (int64, error) {
	return b.WriteToContext(context.Background(), w, nil)
}

// WriteToContext is WriteTo with cancellation, looked at before every write,
// and an optional progress callback.
func (b *Buffer) WriteToContext(ctx context.Context, w io.Writer, progress Progress) (int64, error) {
	const op = "write to"
	if err := b.usable(op); err != nil {
		return 0, err
	}
	if w == nil {
		return 0, b.dev.errorf(errors.InvalidArgument, op, "nil writer")
	}
	if ctx == nil {
		return 0, b.dev.errorf(errors.InvalidArgument, op, "nil context")
	}
	if progress == nil {
		progress = func(int64, int64) {}
	}
	s := b.dev.def
	chunk := min(int64(ReadFromChunk), b.size)
	chunks := (b.size + chunk - 1) / chunk
	rg := newStagingRing(b.dev, 2)
	defer rg.close()
	// fetch enqueues the copy of chunk c from the device into its slot.
	fetch := func(c int64) error {
		i := int(c % 2)
		if _, err := rg.slot(ctx, i, chunk); err != nil {
			return err
		}
		off := c * chunk
		return rg.receive(s, b, off, i, min(chunk, b.size-off))
	}
	if err := fetch(0); err != nil {
		return 0, err
	}
	var total int64
	for c := range chunks {
		// The stream's Synchronize, not an event: it also reports a copy
		// that failed, before its chunk reaches w.
		if err := s.Synchronize(ctx); err != nil {
			return total, err
		}
		if c+1 < chunks {
			if err := fetch(c + 1); err != nil {
				return total, err
			}
		}
		if err := ctx.Err(); err != nil {
			return total, b.dev.wrap(err, op)
		}
		p := rg.slots[c%2].Bytes()
		if p == nil { // the device closed
			return total, b.usable(op)
		}
		m := min(chunk, b.size-c*chunk)
		n, err := w.Write(p[:m])
		if n < 0 || int64(n) > m {
			return total, b.badCount(op, "Write", n, m)
		}
		total += int64(n)
		if err == nil && int64(n) < m {
			err = io.ErrShortWrite
		}
		if err != nil {
			return total, b.dev.wrap(fmt.Errorf("writing: %w", err), op)
		}
		progress(total, b.size)
	}
	return total, nil
}
