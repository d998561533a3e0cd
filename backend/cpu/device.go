package cpu

import (
	"context"
	"fmt"
	"github.com/anygpu/gpu/internal/units"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/memview"
)

type device struct {
	info backend.DeviceInfo
	live atomic.Int64 // bytes allocated and not yet closed

	mu      sync.Mutex
	streams map[*stream]struct{}
}

var (
	_ backend.Device    = (*device)(nil)
	_ backend.MemInfoer = (*device)(nil)
)

func newDevice(info backend.DeviceInfo) *device {
	return &device{info: info, streams: map[*stream]struct{}{}}
}

func (d *device) Info() backend.DeviceInfo { return d.info }

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

// bigAllocation is the size from which Alloc checks the host's available
// memory, not only the device's total.
const bigAllocation = 64 << 20

func (d *device) Alloc(size int64) (backend.Buffer, error) {
	op := "alloc " + units.ByteSize(size)
	if err := d.reserve(op, size); err != nil {
		return nil, err
	}
	d.live.Add(size)
	return &trackedBuffer{buffer: buffer{mem: memview.Aligned(int(size), alignment)}, dev: d}, nil
}

func (d *device) AllocHost(size int64) (backend.HostBuffer, error) {
	op := "alloc host " + units.ByteSize(size)
	if err := d.reserve(op, size); err != nil {
		return nil, err
	}
	return &hostBuffer{buffer{mem: memview.Aligned(int(size), alignment)}}, nil
}

func (d *device) NewStream() (backend.Stream, error) {
	s := newStream(d)
	d.mu.Lock()
	d.streams[s] = struct{}{}
	d.mu.Unlock()
	return s, nil
}

func (d *device) forget(s *stream) {
	d.mu.Lock()
	delete(d.streams, s)
	d.mu.Unlock()
}

// Close stops every stream of the device after its queued work.
func (d *device) Close() error {
	d.mu.Lock()
	streams := make([]*stream, 0, len(d.streams))
	for s := range d.streams {
		streams = append(streams, s)
	}
	d.mu.Unlock()
	for _, s := range streams {
		_ = s.Close()
	}
	return nil
}

// trackedBuffer is device memory counted against the device's live bytes.
type trackedBuffer struct {
	buffer
	dev  *device
	once sync.Once
}

func (b *trackedBuffer) Close() error {
	b.once.Do(func() {
		b.dev.live.Add(-int64(len(b.mem)))
		b.mem = nil
	})
	return nil
}

func (d *device) Compile(ctx context.Context, src backend.Source, _ backend.CompileOptions) (backend.Module, error) {
	op := fmt.Sprintf("compile %q", src.Name)
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	if len(src.Go) == 0 {
		return nil, errors.E(errors.NotSupported, Name, op,
			"the source has no Go dialect (Source.Go): the CPU backend runs kernels written in Go")
	}
	var bad []string
	for name, fn := range src.Go {
		if fn == nil {
			bad = append(bad, fmt.Sprintf("%s: entry point %q has a nil function", src.Name, name))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		e := errors.E(errors.Compilation, Name, op, "%d of %d Go entry points are invalid", len(bad), len(src.Go))
		e.Log = strings.Join(bad, "\n")
		return nil, e
	}
	m := &module{kernels: make(map[string]*kernel, len(src.Go))}
	for name, fn := range src.Go {
		m.kernels[name] = &kernel{name: name, fn: fn}
	}
	return m, nil
}

type module struct{ kernels map[string]*kernel }

func (m *module) Kernel(name string) (backend.Kernel, error) {
	k, ok := m.kernels[name]
	if !ok {
		names := make([]string, 0, len(m.kernels))
		for n := range m.kernels {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, errors.E(errors.InvalidArgument, Name, "kernel", "no entry point %q in the module (it has %s)", name, strings.Join(names, ", "))
	}
	return k, nil
}

func (m *module) Close() error { return nil }

type kernel struct {
	name string
	fn   backend.GoKernel
}

func (k *kernel) Name() string { return k.name }
