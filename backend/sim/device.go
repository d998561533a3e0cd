package sim

import (
	"fmt"
	"sync/atomic"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cpu"
)

// device is a simulated device: a CPU device (cpu.OpenInfo) that reports a
// preset's DeviceInfo, speaks the simulated backend's errors, and injects
// faults.
type device struct {
	backend string // the simulated backend: "cuda", ...
	preset  string
	faults  Faults
	info    backend.DeviceInfo
	inner   backend.Device

	allocs   atomic.Int64 // allocations attempted (Alloc and AllocHost)
	launches atomic.Int64 // launches attempted
	live     atomic.Int64 // bytes of open device buffers
	lost     atomic.Pointer[lostState]
}

// lostState records how the device was lost.
type lostState struct{ launch int64 }

var (
	_ backend.Device    = (*device)(nil)
	_ backend.MemInfoer = (*device)(nil)
)

func newDevice(info backend.DeviceInfo, presetName string, f Faults) *device {
	return &device{
		backend: info.Backend,
		preset:  presetName,
		faults:  f,
		info:    info,
		inner:   cpu.OpenInfo(info),
	}
}

// check fails fast once the device is lost.
func (d *device) check(op string) error {
	if st := d.lost.Load(); st != nil {
		return lostError(d.backend, op, fmt.Sprintf(
			"the device was lost at launch %d (simulated fault lose@%d) and fails every call until it is closed",
			st.launch, d.faults.LoseAfterLaunches))
	}
	return nil
}

// launch counts a launch and loses the device when the fault says so.
func (d *device) launch(op string) error {
	if err := d.check(op); err != nil {
		return err
	}
	n := d.launches.Add(1)
	if lim := d.faults.LoseAfterLaunches; lim > 0 && n > int64(lim) {
		d.lost.CompareAndSwap(nil, &lostState{launch: n})
		return d.check(op)
	}
	return nil
}

// Close closes the CPU device underneath, which waits for its streams.
func (d *device) Close() error { return d.translate(d.inner.Close(), "close", false) }
