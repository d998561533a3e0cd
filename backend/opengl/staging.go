//go:build linux

package opengl

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/opengl/internal/gl"
	"github.com/anygpu/gpu/internal/units"
)

// Staged transfers. glBufferSubData and glGetBufferSubData copy on the
// context's one thread, and the driver stages them again behind it, so a
// large transfer moves at a fraction of one core's memcpy. Where the driver
// maps buffers persistently (limits.persistent), a Write or Read of at least
// pipeMin bytes goes through a ring of pipeSlots persistently and coherently
// mapped staging buffers of pipeChunk bytes instead:
//
//   - Write: the caller's goroutine takes a slot, waits for the fence of the
//     slot's previous copy, copies the next chunk into it with several
//     goroutines (parallelCopy), and enqueues glCopyBufferSubData from the
//     slot plus a fence; it fills the next slot while the GPU copies this
//     one, and returns once the last chunk is enqueued.
//   - Read: the caller enqueues, for as many slots as it can take without
//     waiting, glCopyBufferSubData into the slot plus a fence; then it waits
//     for the oldest fence, copies that slot out with several goroutines and
//     enqueues the next chunk into it. It returns once dst holds the data.
//
// A Read blocks on an empty ring only while it holds no slot, so two
// transfers never wait for each other's slots. Host buffers (AllocHost) are
// persistently mapped buffers too: WriteHost and ReadHost are one
// glCopyBufferSubData, run by the GPU.
const (
	pipeMin   = 2 << 20 // Writes and Reads from this size are staged
	pipeChunk = 8 << 20 // size of a staging slot
	pipeSlots = 6       // slots in a device's ring
	// copyPiece is the least a parallelCopy worker copies.
	copyPiece = 512 << 10
	// stagePiece is the piece a Write's workers copy into a slot at once
	// (copyPieces).
	stagePiece = 512 << 10
	// maxCopyWorkers bounds the goroutines of one parallelCopy (the CUDA
	// backend's staging found 12 best on the H200's 16 cores).
	maxCopyWorkers = 12
)

// mappedAccess are the access bits of every persistently mapped buffer.
const mappedAccess = gl.MapReadBit | gl.MapWriteBit

// stagingSlot is one persistently mapped staging buffer.
type stagingSlot struct {
	id  uint32
	mem []byte
	// busy is the fence behind the last copy that reads the slot (a
	// Write's): the slot's memory may be overwritten once it completes.
	busy *event
}

// stagingRing is a device's staging slots; free holds those no transfer
// holds.
type stagingRing struct {
	mu    sync.Mutex
	ready bool
	free  chan *stagingSlot
	// active counts the staged transfers under way: while there are any,
	// the context's thread waits on fences in short slices (stagedFenceWait),
	// so that their next chunk's copy is not held up behind a fence.
	active atomic.Int32
}

// stagedFenceWait is how long the context's thread blocks on a fence while
// a staged transfer is under way.
const stagedFenceWait = 10 * time.Microsecond

// fenceWait is how long the context's thread blocks on the oldest fence
// before it looks for new work.
func (t *thread) fenceWait() time.Duration {
	if t.dev.staging.active.Load() > 0 {
		return stagedFenceWait
	}
	return fenceWait
}

// newMapped creates a buffer of size bytes with immutable storage, mapped
// persistently and coherently for reading and writing (GL_CLIENT_STORAGE_BIT
// asks for host memory), and returns its name and mapping.
func (t *thread) newMapped(op string, size int64) (uint32, []byte, error) {
	f := t.gl
	id := f.GenBuffer()
	f.BindBuffer(gl.CopyWriteBuffer, id)
	f.BufferStorage(gl.CopyWriteBuffer, size, mappedAccess|gl.MapPersistentBit|gl.MapCoherentBit|gl.ClientStorageBit)
	if err := t.check(op); err != nil {
		t.deleteBuffer(id)
		return 0, nil, err
	}
	mem := f.MapPersistent(gl.CopyWriteBuffer, size, mappedAccess)
	if mem == nil {
		err := t.mapFailed(op, int(size))
		t.deleteBuffer(id)
		return 0, nil, err
	}
	return id, mem, nil
}

// ring returns the device's staging ring, making it on first use.
func (d *device) ring() (*stagingRing, error) {
	r := &d.staging
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ready {
		return r, nil
	}
	slots := make([]*stagingSlot, 0, pipeSlots)
	err := d.call(func(t *thread) error {
		for range pipeSlots {
			id, mem, err := t.newMapped("staging "+units.ByteSize(pipeChunk), pipeChunk)
			if err != nil {
				for _, s := range slots {
					t.deleteBuffer(s.id)
				}
				return err
			}
			slots = append(slots, &stagingSlot{id: id, mem: mem})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.free = make(chan *stagingSlot, pipeSlots)
	for _, s := range slots {
		r.free <- s
	}
	r.ready = true
	return r, nil
}

// staged reports whether a transfer of n bytes goes through the staging
// ring.
func (s *stream) staged(n int) bool { return n >= pipeMin && s.dev.lim.persistent && s.dev.stage }

// copyFromSlot enqueues a copy of the first n bytes of slot into b at off,
// followed by the fence e.
func (s *stream) copyFromSlot(op string, b *buffer, off int64, slot *stagingSlot, n int, e *event) error {
	return s.submit(func(t *thread) error {
		defer t.record(e, false)
		return t.copyBuffers(op, b.id, off, slot.id, 0, int64(n), t.dev.hostShaderCopy)
	})
}

// copyToSlot enqueues a copy of n bytes of b at off into slot, followed by
// the fence e.
func (s *stream) copyToSlot(op string, slot *stagingSlot, b *buffer, off int64, n int, e *event) error {
	return s.submit(func(t *thread) error {
		defer t.record(e, false)
		return t.copyBuffers(op, slot.id, 0, b.id, off, int64(n), t.dev.hostShaderCopy)
	})
}

// writeStaged copies src into b at off through the staging ring; it returns
// once every chunk is in a slot and its copy enqueued.
func (s *stream) writeStaged(b *buffer, off int64, src []byte) error {
	const op = "write"
	r, err := s.dev.ring()
	if err != nil {
		return err
	}
	r.active.Add(1)
	defer r.active.Add(-1)
	for done := 0; done < len(src); {
		m := min(pipeChunk, len(src)-done)
		slot := <-r.free
		if slot.busy != nil {
			if err := slot.busy.wait(context.Background(), op); err != nil {
				r.free <- slot
				return err
			}
			slot.busy = nil
		}
		parallelCopy(slot.mem[:m], src[done:done+m], stagePiece)
		e := newEvent(s)
		if err := s.copyFromSlot(op, b, off+int64(done), slot, m, e); err != nil {
			r.free <- slot
			return err
		}
		slot.busy = e
		r.free <- slot
		done += m
	}
	return nil
}

// inflight is a chunk of a staged Read whose copy into slot is enqueued.
type inflight struct {
	slot  *stagingSlot
	e     *event
	lo, n int
}

// readStaged copies b at off into dst through the staging ring; it returns
// once dst holds the data.
func (s *stream) readStaged(dst []byte, b *buffer, off int64) error {
	const op = "read"
	r, err := s.dev.ring()
	if err != nil {
		return err
	}
	r.active.Add(1)
	defer r.active.Add(-1)
	var queue []inflight
	// drain waits for the oldest chunk, copies it out (unless failed) and
	// gives its slot back.
	drain := func(failed bool) error {
		c := queue[0]
		queue = queue[1:]
		err := c.e.wait(context.Background(), op)
		if err == nil && !failed {
			parallelCopy(dst[c.lo:c.lo+c.n], c.slot.mem[:c.n], 0)
		}
		c.slot.busy = nil // the fence behind the slot's last copy has passed
		r.free <- c.slot
		return err
	}
	giveUp := func(err error) error {
		for len(queue) > 0 {
			_ = drain(true)
		}
		return err
	}
	next := 0
	for next < len(dst) || len(queue) > 0 {
		if next < len(dst) {
			var slot *stagingSlot
			if len(queue) == 0 {
				slot = <-r.free
			} else {
				select {
				case slot = <-r.free:
				default:
				}
			}
			if slot != nil {
				// The GPU orders this copy into the slot after the
				// copies out of it enqueued before, so a Write's fence
				// need not be waited for.
				m := min(pipeChunk, len(dst)-next)
				e := newEvent(s)
				if err := s.copyToSlot(op, slot, b, off+int64(next), m, e); err != nil {
					r.free <- slot
					return giveUp(err)
				}
				queue = append(queue, inflight{slot: slot, e: e, lo: next, n: m})
				next += m
				continue
			}
		}
		if err := drain(false); err != nil {
			return giveUp(err)
		}
	}
	return nil
}

// parallelCopy copies src into dst (of the same length) with up to
// maxCopyWorkers goroutines, each copying at least copyPiece bytes, in
// pieces of at most piece bytes when piece is above 0.
func parallelCopy(dst, src []byte, piece int) {
	n := len(src)
	w := min(maxCopyWorkers, runtime.GOMAXPROCS(0), n/copyPiece)
	if w <= 1 {
		copyPieces(dst, src, piece)
		return
	}
	per := (n/w + 4095) &^ 4095
	var wg sync.WaitGroup
	for lo := per; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Go(func() { copyPieces(dst[lo:hi], src[lo:hi], piece) })
	}
	copyPieces(dst[:per], src[:per], piece)
	wg.Wait()
}

// copyPieces copies src into dst in pieces of at most piece bytes (all at
// once when piece is 0). Go's copy switches to non-temporal stores from
// about 1 MiB, which send a staged chunk to DRAM; smaller pieces leave it in
// the CPU's last-level cache, where the GPU's reads find it (the CUDA
// backend's stageCopy measured this on the H200).
func copyPieces(dst, src []byte, piece int) {
	if piece <= 0 || len(src) <= piece {
		copy(dst, src)
		return
	}
	for lo := 0; lo < len(src); lo += piece {
		hi := min(lo+piece, len(src))
		copy(dst[lo:hi], src[lo:hi])
	}
}

var _ backend.HostCopier = (*stream)(nil)

// hostCopy enqueues glCopyBufferSubData between a device buffer and a
// persistently mapped host buffer, followed by nothing: the stream's fences
// make the host buffer's bytes visible (GL_MAP_COHERENT_BIT).
func (s *stream) hostCopy(op string, readID uint32, readOff int64, writeID uint32, writeOff, n int64) error {
	return s.submit(func(t *thread) error {
		return t.copyBuffers(op, writeID, writeOff, readID, readOff, n, t.dev.hostShaderCopy)
	})
}

// WriteHost copies n bytes of a host buffer at srcOff into dst at dstOff:
// one glCopyBufferSubData where the host buffer is a mapped GL buffer, a
// Write of its bytes otherwise.
func (s *stream) WriteHost(dst backend.Buffer, dstOff int64, src backend.HostBuffer, srcOff, n int64) error {
	h := src.(*hostBuffer)
	if h.id == 0 {
		return s.Write(dst, dstOff, h.mem[srcOff:srcOff+n])
	}
	return s.hostCopy("write host", h.id, srcOff, dst.(*buffer).id, dstOff, n)
}

// ReadHost copies n bytes of src at srcOff into a host buffer at dstOff:
// one glCopyBufferSubData where the host buffer is a mapped GL buffer, a
// Read into its bytes otherwise.
func (s *stream) ReadHost(dst backend.HostBuffer, dstOff int64, src backend.Buffer, srcOff, n int64) error {
	h := dst.(*hostBuffer)
	if h.id == 0 {
		return s.Read(h.mem[dstOff:dstOff+n], src, srcOff)
	}
	return s.hostCopy("read host", src.(*buffer).id, srcOff, h.id, dstOff, n)
}
