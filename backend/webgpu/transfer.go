//go:build cgo

package webgpu

import (
	"sync/atomic"

	"github.com/anygpu/gpu/errors"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// Large transfers are cut into chunks of transferChunk bytes, each its own
// submission, so that the host's copy of one chunk overlaps the device's
// copy of another:
//
//   - A write fills a mapped upload buffer (MAP_WRITE | COPY_SRC, from a
//     pool) with several goroutines, unmaps it, copies it into the
//     destination with the queue's copy command and submits; the buffer is
//     mapped again for its next use once that copy has run. The queue's own
//     buffer write would create a staging buffer as large as the data on
//     every call and fill it on one core.
//   - A read copies each chunk into a mappable staging buffer (pooled) and
//     submits it at once, so the chunks map one after another while the
//     device goes on; each is copied out, by several goroutines, as soon as
//     its mapping arrives.
const (
	transferChunk = 8 << 20
	// stagedWriteMin is the smallest write that goes through the upload
	// buffers, with a submission per chunk; smaller ones use the queue's
	// buffer write, which joins the pending batch.
	stagedWriteMin = 1 << 20
	// uploadPoolCap is how many bytes of upload buffers are kept.
	uploadPoolCap = 64 << 20
)

// upload is a mappable upload buffer of transferChunk bytes.
type upload struct {
	buf    *wgpu.Buffer
	mem    []byte        // the mapped range while mapped for writing
	status atomic.Uint32 // the pending mapping's status; 0 while pending
}

// uploadPool keeps the upload buffers: mapped ones ready to fill, and those
// waiting for their mapping (their last copy has been submitted).
type uploadPool struct {
	ready     []*upload
	remapping []*upload
}

// acquireUploadLocked returns an upload buffer mapped for writing: a pooled
// one, else a new one mapped at creation. It never waits for the device.
func (d *device) acquireUploadLocked(op string) (*upload, error) {
	p := &d.uploads
	if len(p.ready) == 0 && len(p.remapping) > 0 {
		d.pollLocked()
	}
	if n := len(p.ready); n > 0 {
		u := p.ready[n-1]
		p.ready[n-1] = nil
		p.ready = p.ready[:n-1]
		return u, nil
	}
	u := &upload{}
	err := d.call(op, errors.Execution, func() error {
		var err error
		u.buf, err = d.dev.TryCreateBuffer(&wgpu.BufferDescriptor{
			Label: "anygpu upload", Size: transferChunk,
			Usage: d.uploadUsage, MappedAtCreation: true,
		})
		if err != nil {
			return err
		}
		u.mem = u.buf.GetMappedRange(0, transferChunk)
		return nil
	})
	if err != nil {
		if u.buf != nil {
			u.buf.Release()
		}
		return nil, err
	}
	return u, nil
}

// discardUploadLocked releases an upload buffer that will not be used again.
func discardUpload(u *upload) {
	u.mem = nil
	_ = protect("write", func() error { u.buf.Release(); return nil })
}

// remapUploadLocked asks for u's mapping again, after its copy has been
// submitted; the pool takes it back when the mapping arrives.
func (d *device) remapUploadLocked(u *upload) {
	u.status.Store(0)
	err := d.call("write", errors.Execution, func() error {
		return u.buf.TryMapAsync(wgpu.MapModeWrite, 0, transferChunk, func(st wgpu.MapAsyncStatus) {
			u.status.Store(uint32(st))
		})
	})
	if err != nil {
		discardUpload(u)
		return
	}
	d.uploads.remapping = append(d.uploads.remapping, u)
}

// finishUploadsLocked moves the upload buffers whose mapping arrived back to
// the ready list, as far as the pool's capacity goes; the others are
// released.
func (d *device) finishUploadsLocked() {
	p := &d.uploads
	kept := p.remapping[:0]
	for _, u := range p.remapping {
		st := u.status.Load()
		switch {
		case st == 0:
			kept = append(kept, u)
			continue
		case st != uint32(wgpu.MapAsyncStatusSuccess) || d.closed ||
			(len(p.ready)+len(kept)+1)*transferChunk > uploadPoolCap:
			discardUpload(u)
			continue
		}
		err := protect("write", func() error {
			u.mem = u.buf.GetMappedRange(0, transferChunk)
			return nil
		})
		if err != nil {
			discardUpload(u)
			continue
		}
		p.ready = append(p.ready, u)
	}
	clear(p.remapping[len(kept):])
	p.remapping = kept
}

// release releases every pooled upload buffer.
func (p *uploadPool) release() {
	for _, u := range p.ready {
		discardUpload(u)
	}
	for _, u := range p.remapping {
		discardUpload(u)
	}
	p.ready, p.remapping = nil, nil
}

// writeStaged is Write for large data: the partial words at either end are
// patched in by the backend's kernel, the whole words between go through
// upload buffers, a chunk at a time (see transferChunk). The device's lock
// is released while a chunk is filled, so other streams keep enqueuing.
func (s *stream) writeStaged(b *buffer, o uint64, src []byte) error {
	const op = "write"
	n := uint64(len(src))
	lo, hi := (o+3)&^3, (o+n)&^3
	err := s.enqueue(func(d *device) error {
		if lo > o {
			if err := d.writeLocked(b, o, src[:lo-o]); err != nil {
				return err
			}
		}
		if o+n > hi {
			return d.writeLocked(b, hi, src[hi-o:])
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Chunk k+1 is filled while chunk k is unmapped, encoded and
	// submitted; every fill has ended when writeStaged returns (src is the
	// caller's again).
	type fill struct {
		u      *upload
		pos, l uint64
		done   chan struct{}
	}
	var prev *fill
	submit := func(f *fill) error {
		<-f.done
		return s.enqueueUpload(f.u, b, f.pos, f.l, f.pos+f.l >= hi)
	}
	d := s.d
	for pos := lo; pos < hi; pos += transferChunk {
		l := min(transferChunk, hi-pos)
		d.mu.Lock()
		err := d.usableLocked()
		var u *upload
		if err == nil {
			u, err = d.acquireUploadLocked(op)
		}
		d.mu.Unlock()
		if err != nil {
			if prev != nil {
				<-prev.done
				discardUpload(prev.u)
			}
			return err
		}
		f := &fill{u: u, pos: pos, l: l, done: make(chan struct{})}
		go func() {
			defer close(f.done)
			parallelCopy(u.mem[:l], src[pos-o:pos-o+l], uploadPiece)
		}()
		if prev != nil {
			if err := submit(prev); err != nil {
				<-f.done
				discardUpload(f.u)
				return err
			}
		}
		prev = f
	}
	if prev != nil {
		return submit(prev)
	}
	return nil
}

// enqueueUpload unmaps u, whose first l bytes are filled, and enqueues (and
// submits) their copy into b at off; last marks the write's last chunk,
// whose submission ends with the tail stamp. u goes back to the pool once
// the copy has run; on failure it is released.
func (s *stream) enqueueUpload(u *upload, b *buffer, off, l uint64, last bool) error {
	const op = "write"
	d := s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usableLocked(); err != nil {
		discardUpload(u)
		return err
	}
	u.mem = nil
	err := d.call(op, errors.Execution, func() error { return u.buf.TryUnmap() })
	if err == nil {
		err = d.encodeLocked(op, errors.InvalidArgument, func(enc *wgpu.CommandEncoder) error {
			return enc.TryCopyBufferToBuffer(u.buf, 0, b.buf, off, l)
		})
	}
	if err != nil {
		discardUpload(u)
		return err
	}
	d.touchLocked(s)
	if last {
		d.noteLongWorkLocked(l)
	}
	err = d.flushLocked()
	if err != nil {
		// The submission failed and, with it, this copy: its stream
		// reports it (flushLocked); the buffer may still be in use.
		discardUpload(u)
		return nil
	}
	d.remapUploadLocked(u)
	return nil
}

// readChunkedLocked is Read for more than one chunk: each chunk is copied
// into a staging buffer of its own and submitted at once, so that its
// mapping (and its copy into dst) does not wait for the later chunks.
func (d *device) readChunkedLocked(s *stream, dst []byte, b *buffer, o uint64) error {
	n := uint64(len(dst))
	lo, hi := o&^3, (o+n+3)&^3
	for pos := lo; pos < hi; pos += transferChunk {
		l := min(transferChunk, hi-pos)
		first, last := max(pos, o), min(pos+l, o+n)
		if err := d.readLocked(s, dst[first-o:last-o], b, first); err != nil {
			return err
		}
		if pos+l >= hi {
			// Only the last chunk's submission needs the tail stamp.
			d.noteLongWorkLocked(l)
		}
		// A failed submission reaches the stream at its Synchronize.
		d.touchLocked(s)
		_ = d.flushLocked()
	}
	return nil
}
