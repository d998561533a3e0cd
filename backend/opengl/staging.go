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
// mapped staging buffers of pipeChunk bytes instead. Up to maxCopyWorkers
// goroutines take the transfer's chunks in turn (the CUDA backend's design):
//
//   - Write: a worker takes a slot, waits for the fence of the slot's
//     previous copy, copies its chunk into it (in stagePiece pieces) and
//     enqueues glCopyBufferSubData from the slot plus a fence; the others
//     fill their slots while the GPU copies. Write returns once the last
//     chunk is enqueued.
//   - Read: a worker keeps the copies of up to two chunks into slots
//     enqueued (glCopyBufferSubData plus a fence), waits for the older
//     one's fence, copies the slot out and takes the next chunk. Read
//     returns once dst holds the data.
//
// A Read's worker blocks on an empty ring only while it holds no slot, and
// a Write's, holding one, waits only for the GPU, so transfers never wait
// for each other's slots. Host buffers (AllocHost) are persistently mapped
// buffers too: WriteHost and ReadHost are one glCopyBufferSubData, run by
// the GPU.
const (
	pipeMin   = 2 << 20 // Writes and Reads from this size are staged
	pipeChunk = 4 << 20 // size of a staging slot
	pipeSlots = 16      // slots in a device's ring (64 MiB)
	// stagePiece is the piece a Write's workers copy into a slot at once
	// (copyPieces).
	stagePiece = 512 << 10
	// maxCopyWorkers bounds the goroutines of one staged transfer (the
	// CUDA backend's staging found 12 best on the H200's 16 cores).
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

// stageWorkers is the number of goroutines of a staged transfer of n bytes:
// up to maxCopyWorkers, at most GOMAXPROCS, at most one per chunk.
func stageWorkers(n int) int {
	return max(1, min(maxCopyWorkers, runtime.GOMAXPROCS(0), (n+pipeChunk-1)/pipeChunk))
}

// stagedRun runs work on stageWorkers(n) goroutines and returns the first
// error; failed tells the others to stop taking chunks.
func stagedRun(n int, work func(failed *atomic.Bool) error) error {
	var failed atomic.Bool
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range stageWorkers(n) {
		wg.Go(func() {
			if err := work(&failed); err != nil {
				failed.Store(true)
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return first
}

// writeStaged copies src into b at off through the staging ring: workers
// take chunks in turn, each copies its chunk into a free slot (once the
// slot's previous copy is done) and enqueues the copy out of it. It returns
// once every chunk is in a slot and its copy enqueued.
func (s *stream) writeStaged(b *buffer, off int64, src []byte) error {
	const op = "write"
	r, err := s.dev.ring()
	if err != nil {
		return err
	}
	r.active.Add(1)
	defer r.active.Add(-1)
	chunks := int64((len(src) + pipeChunk - 1) / pipeChunk)
	var next atomic.Int64
	return stagedRun(len(src), func(failed *atomic.Bool) error {
		for !failed.Load() {
			i := next.Add(1) - 1
			if i >= chunks {
				return nil
			}
			lo := int(i) * pipeChunk
			m := min(pipeChunk, len(src)-lo)
			slot := <-r.free
			if slot.busy != nil {
				if err := slot.busy.wait(context.Background(), op); err != nil {
					r.free <- slot
					return err
				}
				slot.busy = nil
			}
			copyPieces(slot.mem[:m], src[lo:lo+m], stagePiece)
			e := newEvent(s)
			if err := s.copyFromSlot(op, b, off+int64(lo), slot, m, e); err != nil {
				r.free <- slot
				return err
			}
			slot.busy = e
			r.free <- slot
		}
		return nil
	})
}

// inflight is a chunk of a staged Read whose copy into slot is enqueued.
type inflight struct {
	slot  *stagingSlot
	e     *event
	lo, n int
}

// readStaged copies b at off into dst through the staging ring: workers take
// chunks in turn, each keeps up to two chunks' copies into slots enqueued,
// waits for the older one's fence, copies it out and takes the next. A
// worker blocks on an empty ring only while it holds no slot. It returns
// once dst holds the data.
func (s *stream) readStaged(dst []byte, b *buffer, off int64) error {
	const op = "read"
	r, err := s.dev.ring()
	if err != nil {
		return err
	}
	r.active.Add(1)
	defer r.active.Add(-1)
	chunks := int64((len(dst) + pipeChunk - 1) / pipeChunk)
	var next atomic.Int64
	return stagedRun(len(dst), func(failed *atomic.Bool) error {
		var held []inflight
		// drain waits for the oldest chunk, copies it out (unless given
		// up) and gives its slot back.
		drain := func(giveUp bool) error {
			c := held[0]
			held = held[1:]
			err := c.e.wait(context.Background(), op)
			if err == nil && !giveUp {
				copy(dst[c.lo:c.lo+c.n], c.slot.mem[:c.n])
			}
			c.slot.busy = nil // the fence behind the slot's last copy has passed
			r.free <- c.slot
			return err
		}
		fail := func(err error) error {
			for len(held) > 0 {
				_ = drain(true)
			}
			return err
		}
		exhausted := false
		for {
			if !exhausted && !failed.Load() && len(held) < 2 {
				var slot *stagingSlot
				if len(held) == 0 {
					slot = <-r.free
				} else {
					select {
					case slot = <-r.free:
					default:
					}
				}
				if slot != nil {
					i := next.Add(1) - 1
					if i >= chunks {
						exhausted = true
						r.free <- slot
						continue
					}
					// The GPU orders this copy into the slot after the
					// copies out of it enqueued before, so a Write's
					// fence need not be waited for.
					lo := int(i) * pipeChunk
					m := min(pipeChunk, len(dst)-lo)
					e := newEvent(s)
					if err := s.copyToSlot(op, slot, b, off+int64(lo), m, e); err != nil {
						r.free <- slot
						return fail(err)
					}
					held = append(held, inflight{slot: slot, e: e, lo: lo, n: m})
					continue
				}
			}
			if len(held) == 0 {
				return nil
			}
			if err := drain(failed.Load()); err != nil {
				return fail(err)
			}
		}
	})
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
