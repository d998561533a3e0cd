package cpu

import (
	"fmt"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/memview"
	"github.com/anygpu/gpu/internal/units"
)

// alignment of every buffer, a cache line (and an AVX-512 vector).
const alignment = 64

// bigAllocation is the size from which Alloc checks the host's available
// memory, not only the device's total.
const bigAllocation = 64 << 20

// MemInfo reports the host's available memory as free and the device's
// memory (the host's, unless a simulated device says otherwise) as total.
func (d *device) MemInfo() (free, total int64, err error) {
	total = d.info.MemoryBytes
	free = availableMemory()
	if free <= 0 || free > total {
		free = total - d.live.Load()
	}
	if free < 0 {
		free = 0
	}
	return free, total, nil
}

// reserve checks that size bytes can be allocated without exhausting the host:
// Go cannot recover from running out of memory, so the CPU backend refuses an
// allocation larger than what the machine has available.
func (d *device) reserve(op string, size int64) error {
	total := d.info.MemoryBytes
	free := total - d.live.Load()
	if size >= bigAllocation && size <= total {
		// Reading /proc/meminfo costs tens of microseconds: only large
		// requests pay for the exact figure.
		free, total, _ = d.MemInfo()
	}
	if size > total || size > free {
		return &errors.Error{
			Backend: Name, Op: op, Category: errors.OutOfMemory, Retryable: size <= total,
			Msg:  fmt.Sprintf("out of memory: %s requested, %s available of %s", units.ByteSize(size), units.ByteSize(free), units.ByteSize(total)),
			Hint: "free buffers or process the data in smaller batches",
		}
	}
	return nil
}

func (d *device) Alloc(size int64) (backend.Buffer, error) {
	if err := d.reserve("alloc "+units.ByteSize(size), size); err != nil {
		return nil, err
	}
	d.live.Add(size)
	return &trackedBuffer{buffer: buffer{mem: memview.Aligned(int(size), alignment)}, dev: d}, nil
}

func (d *device) AllocHost(size int64) (backend.HostBuffer, error) {
	if err := d.reserve("alloc host "+units.ByteSize(size), size); err != nil {
		return nil, err
	}
	return &hostBuffer{buffer{mem: memview.Aligned(int(size), alignment)}}, nil
}

// buffer is 64-byte-aligned Go memory.
type buffer struct {
	mem []byte
}

var (
	_ backend.Buffer       = (*buffer)(nil)
	_ backend.HostMemory   = (*buffer)(nil)
	_ backend.NativeHandle = (*buffer)(nil)
)

func (b *buffer) Size() int64           { return int64(len(b.mem)) }
func (b *buffer) Bytes() []byte         { return b.mem }
func (b *buffer) NativeHandle() uintptr { return memview.Addr(b.mem) }

// Close lets the memory go to the garbage collector; the root package makes
// sure a closed buffer is not used again.
func (b *buffer) Close() error {
	b.mem = nil
	return nil
}

// trackedBuffer is device memory counted against the device's live bytes.
type trackedBuffer struct {
	buffer
	dev *device
}

// Close gives the buffer's bytes back to the device's count; the root
// package calls it once.
func (b *trackedBuffer) Close() error {
	b.dev.live.Add(-int64(len(b.mem)))
	return b.buffer.Close()
}

type hostBuffer struct{ buffer }

var _ backend.HostBuffer = (*hostBuffer)(nil)

// mem is the memory of a buffer of this device: the root package passes a
// stream only buffers of its own device, whose memory is host memory (the
// simulated backend's buffers included).
func mem(b backend.Buffer) []byte { return b.(backend.HostMemory).Bytes() }
