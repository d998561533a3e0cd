package gpu

import (
	"fmt"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// maxIdleStreams bounds the native streams a device keeps for reuse.
const maxIdleStreams = 64

// maxStreamsAtOnce bounds one Streams call.
const maxStreamsAtOnce = 1024

// Streams returns n new streams, reusing the native streams (CUDA
// CUstreams, ...) of streams from earlier Streams calls that were closed: a
// program that takes streams per request or per batch and closes them
// pays the native creation only for the most it ever holds at once (up to
// 64 are kept idle). Each is an ordinary Stream, ordered only against
// itself; closing one synchronizes it, as Close always does, and hands its
// native stream back. On error no stream is returned.
func (d *Device) Streams(n int) ([]*Stream, error) {
	op := fmt.Sprintf("streams(%d)", n)
	if err := d.usable(op); err != nil {
		return nil, err
	}
	if n < 1 || n > maxStreamsAtOnce {
		return nil, d.errorf(errors.InvalidArgument, op, "want 1 to %d streams, got %d", maxStreamsAtOnce, n)
	}
	out := make([]*Stream, 0, n)
	for len(out) < n {
		impl, ok := d.takeIdleStream()
		if !ok {
			var err error
			if impl, err = d.impl.NewStream(); err != nil {
				for _, s := range out {
					_ = s.Close()
				}
				return nil, d.wrap(err, op)
			}
		}
		out = append(out, d.adoptStream(impl, false, true))
	}
	return out, nil
}

// takeIdleStream pops a native stream kept for reuse.
func (d *Device) takeIdleStream() (backend.Stream, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if k := len(d.idle); k > 0 {
		impl := d.idle[k-1]
		d.idle = d.idle[:k-1]
		return impl, true
	}
	return nil, false
}

// keepIdleStream keeps impl, synchronized, for reuse, unless enough are
// kept already (the caller then closes it).
func (d *Device) keepIdleStream(impl backend.Stream) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.idle) >= maxIdleStreams {
		return false
	}
	d.idle = append(d.idle, impl)
	return true
}
