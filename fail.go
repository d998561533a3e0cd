package gpu

import (
	"fmt"
	"sync/atomic"

	"github.com/anygpu/gpu/errors"
)

// invalidArgument is the category of most argument errors, short for their
// many call sites.
const invalidArgument = errors.InvalidArgument

// errorf builds a categorized error that belongs to no device (a nil receiver,
// an argument checked before a device is chosen).
func errorf(cat errors.Category, op, format string, args ...any) error {
	return errors.E(cat, "", op, format, args...)
}

// errorf builds a categorized error attributed to the device's backend.
func (d *Device) errorf(cat errors.Category, op, format string, args ...any) error {
	return d.record(errors.E(cat, d.backend, op, format, args...))
}

// record adds context, keeps err in the device's history, and marks the device
// lost when the backend says the error is fatal (a sticky CUDA error, a lost
// device): later calls then fail fast.
func (d *Device) record(err error) error {
	if err == nil {
		return nil
	}
	err = errors.Wrap(err, d.backend, "")
	d.history.Record(err)
	if errors.IsFatal(err) || errors.CategoryOf(err) == errors.DeviceLost {
		d.lost.CompareAndSwap(nil, &err)
	}
	return err
}

// wrap attributes a backend error to an operation and records it.
func (d *Device) wrap(err error, op string) error {
	if err == nil {
		return nil
	}
	return d.record(errors.Wrap(err, d.backend, op))
}

// usableObject reports why an object of d cannot be used: d cannot take work,
// or the object is closed. name names the object in the Closed error; it is
// called only then.
func (d *Device) usableObject(op string, closed *atomic.Bool, name func() string) error {
	if err := d.usable(op); err != nil {
		return err
	}
	if closed.Load() {
		return d.errorf(errors.Closed, op, "%s is closed", name())
	}
	return nil
}

// usable reports why the device cannot take work: nil or never opened,
// closed, or lost to a fatal error.
func (d *Device) usable(op string) error {
	if d == nil {
		return errorf(errors.InvalidArgument, op, "nil device")
	}
	if d.impl == nil {
		return errorf(errors.InvalidArgument, op, "a zero Device was never opened (use gpu.Open)")
	}
	if d.closed.Load() {
		return d.record(&errors.Error{Backend: d.backend, Op: op, Category: errors.Closed, Msg: "device " + d.name + " is closed"})
	}
	if p := d.lost.Load(); p != nil {
		return d.record(&errors.Error{
			Backend: d.backend, Op: op, Category: errors.DeviceLost, Fatal: true, Err: *p,
			Msg:  fmt.Sprintf("device %s is unusable after an earlier fatal error: %v", d.name, *p),
			Hint: errors.Hint(*p), // the cause knows what recovers it (CUDA: only a new process)
		})
	}
	return nil
}

// checkRange validates [off, off+n) against a buffer of the given size.
func checkRange(off, n, size int64) error {
	switch {
	case off < 0:
		return fmt.Errorf("negative offset %d", off)
	case n < 0:
		return fmt.Errorf("negative size %d", n)
	case off > size || n > size-off:
		return fmt.Errorf("range [%d, %d) is outside the %d-byte buffer", off, off+n, size)
	}
	return nil
}
