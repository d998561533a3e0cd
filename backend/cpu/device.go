package cpu

import (
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu/backend"
)

// device is the host as a device: memory is Go memory, each stream a
// goroutine.
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

// Close stops every stream of the device still open after its queued work.
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
