package cpu

import (
	"context"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// Name is the backend's registered name.
const Name = "cpu"

func init() { backend.Register(Driver{}) }

// Driver is the CPU backend's driver. The zero value is ready to use.
type Driver struct{}

var _ backend.Driver = Driver{}

// Name returns "cpu".
func (Driver) Name() string { return Name }

// Probe reports the host as one device.
func (Driver) Probe(ctx context.Context) ([]backend.DeviceInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, "probe")
	}
	return []backend.DeviceInfo{hostInfo()}, nil
}

// Open opens the host as a device; ordinal must be 0.
func (Driver) Open(ctx context.Context, ordinal int) (backend.Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, "open")
	}
	if ordinal != 0 {
		return nil, errors.E(errors.InvalidArgument, Name, "open", "device %d does not exist: the CPU backend has one device, 0", ordinal)
	}
	return newDevice(hostInfo()), nil
}

// OpenInfo opens a CPU device that reports info instead of the host's, for
// backends (such as backend/sim) that execute on the CPU but present another
// device.
func OpenInfo(info backend.DeviceInfo) backend.Device { return newDevice(info) }
