package sim

import (
	"fmt"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/units"
)

// allocFault fails an allocation of a lost device; else it counts the
// allocation and fails it when a one-shot or periodic out-of-memory fault
// says so.
func (d *device) allocFault(op string, host bool) error {
	if err := d.check(op); err != nil {
		return err
	}
	n := d.allocs.Add(1)
	f := d.faults
	var why string
	switch {
	case f.FailAllocAt > 0 && n == int64(f.FailAllocAt):
		why = fmt.Sprintf("oom@%d", f.FailAllocAt)
	case f.FailAllocEvery > 0 && n%int64(f.FailAllocEvery) == 0:
		why = fmt.Sprintf("oom%%%d", f.FailAllocEvery)
	default:
		return nil
	}
	return oomError(d.backend, op, host, fmt.Sprintf("out of memory (simulated fault %s: allocation %d of this device)", why, n))
}

// reserve accounts size bytes of device memory against the memory limit.
func (d *device) reserve(op string, size int64) error {
	limit := d.faults.MemoryLimit
	for {
		cur := d.live.Load()
		if limit > 0 && cur+size > limit {
			return oomError(d.backend, op, false, fmt.Sprintf(
				"out of memory: %s requested, %s free of the %s the simulated device may use (fault memlimit=%s)",
				units.ByteSize(size), units.ByteSize(limit-cur), units.ByteSize(limit), formatSize(limit)))
		}
		if d.live.CompareAndSwap(cur, cur+size) {
			return nil
		}
	}
}

// Alloc allocates host memory that stands for device memory.
func (d *device) Alloc(size int64) (backend.Buffer, error) {
	op := "alloc " + units.ByteSize(size)
	if err := d.allocFault(op, false); err != nil {
		return nil, err
	}
	if err := d.reserve(op, size); err != nil {
		return nil, err
	}
	b, err := d.inner.Alloc(size)
	if err != nil {
		d.live.Add(-size)
		return nil, d.translate(err, op, false)
	}
	return &buffer{Buffer: b, dev: d, size: size}, nil
}

// AllocHost allocates host memory; it counts for FailAllocAt and
// FailAllocEvery but not for MemoryLimit.
func (d *device) AllocHost(size int64) (backend.HostBuffer, error) {
	op := "alloc host " + units.ByteSize(size)
	if err := d.allocFault(op, true); err != nil {
		return nil, err
	}
	b, err := d.inner.AllocHost(size)
	return b, d.translate(err, op, true)
}

// MemInfo reports the host's memory within the preset's total, and the
// memory limit's headroom when a limit is set.
func (d *device) MemInfo() (free, total int64, err error) {
	if err := d.check("mem info"); err != nil {
		return 0, 0, err
	}
	total = d.info.MemoryBytes
	free = total - d.live.Load()
	if m, ok := d.inner.(backend.MemInfoer); ok {
		f, _, err := m.MemInfo()
		if err != nil {
			return 0, 0, d.translate(err, "mem info", false)
		}
		free = min(free, f)
	}
	if lim := d.faults.MemoryLimit; lim > 0 {
		free = min(free, lim-d.live.Load())
	}
	return max(free, 0), total, nil
}

// buffer is device memory of a simulated device: host memory, tracked for
// MemoryLimit. It exposes the host memory (backend.HostMemory) so the CPU
// streams and Go kernels underneath can use it.
type buffer struct {
	backend.Buffer
	dev  *device
	size int64
}

var (
	_ backend.Buffer       = (*buffer)(nil)
	_ backend.HostMemory   = (*buffer)(nil)
	_ backend.NativeHandle = (*buffer)(nil)
)

// Bytes is the host memory standing for the device memory.
func (b *buffer) Bytes() []byte { return b.Buffer.(backend.HostMemory).Bytes() }

// NativeHandle is the host address of the memory.
func (b *buffer) NativeHandle() uintptr { return b.Buffer.(backend.NativeHandle).NativeHandle() }

// Close frees the memory and gives its bytes back to the memory limit; the
// root package calls it once.
func (b *buffer) Close() error {
	err := b.Buffer.Close()
	b.dev.live.Add(-b.size)
	return b.dev.translate(err, "free", false)
}
