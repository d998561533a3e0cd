package metal

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// Name is the backend's registered name.
const Name = "metal"

// EnvStorage selects the storage mode of the registered driver's buffers:
// "shared", "private" or "auto" (the default). Driver.Storage, when set,
// takes precedence.
const EnvStorage = "ANYGPU_METAL_STORAGE"

func init() { backend.Register(Driver{}) }

// Storage is where a device's buffers live.
type Storage int

// Storage modes. StorageAuto picks StorageShared on devices with unified
// memory and StoragePrivate on the others.
const (
	StorageAuto    Storage = iota // shared with unified memory, else private
	StorageShared                 // MTLResourceStorageModeShared: CPU and GPU address the same memory
	StoragePrivate                // MTLResourceStorageModePrivate: GPU-only memory, transfers are blits
)

var storageNames = [...]string{"auto", "shared", "private"}

// String returns the mode as ANYGPU_METAL_STORAGE spells it ("shared").
func (s Storage) String() string {
	if s >= 0 && int(s) < len(storageNames) {
		return storageNames[s]
	}
	return fmt.Sprintf("Storage(%d)", int(s))
}

// ParseStorage reads a storage mode as EnvStorage spells it ("" is auto).
func ParseStorage(s string) (Storage, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return StorageAuto, nil
	case "shared":
		return StorageShared, nil
	case "private":
		return StoragePrivate, nil
	}
	return StorageAuto, &errors.Error{
		Backend: Name, Op: "storage mode", Category: errors.InvalidArgument,
		Msg:  fmt.Sprintf("unknown storage mode %q", s),
		Hint: fmt.Sprintf("set %s to shared, private or auto", EnvStorage),
	}
}

// resolveStorage is the storage mode a device uses: the driver's if it sets
// one, else the environment's, else shared exactly when the device has
// unified memory.
func resolveStorage(field Storage, env string, unified bool) (Storage, error) {
	s := field
	if s == StorageAuto {
		var err error
		if s, err = ParseStorage(env); err != nil {
			return StorageAuto, err
		}
	}
	switch s {
	case StorageShared, StoragePrivate:
		return s, nil
	case StorageAuto:
		if unified {
			return StorageShared, nil
		}
		return StoragePrivate, nil
	}
	return StorageAuto, &errors.Error{
		Backend: Name, Op: "storage mode", Category: errors.InvalidArgument,
		Msg:  fmt.Sprintf("invalid storage mode %v", s),
		Hint: "use metal.StorageAuto, metal.StorageShared or metal.StoragePrivate",
	}
}

// Driver is the Metal backend's driver. The zero value, registered as
// "metal", picks each device's storage mode automatically (see Storage and
// EnvStorage); open a device through gpu.OpenDriver with Storage set to ask
// for one.
type Driver struct {
	// Storage is the storage mode of device buffers; StorageAuto defers to
	// ANYGPU_METAL_STORAGE, then to the device (shared with unified memory).
	Storage Storage
}

var _ backend.Driver = Driver{}

// Name returns "metal".
func (Driver) Name() string { return Name }

// Probe lists the Metal devices: the system default first, then the others
// in registryID order. Nothing stays open. Off darwin it reports Unavailable.
func (d Driver) Probe(ctx context.Context) ([]backend.DeviceInfo, error) {
	if ctx == nil {
		return nil, errors.E(errors.InvalidArgument, Name, "probe", "nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, "probe")
	}
	return probe(ctx)
}

// Open opens the device with the given ordinal (an index into Probe's list).
func (d Driver) Open(ctx context.Context, ordinal int) (backend.Device, error) {
	op := fmt.Sprintf("open device %d", ordinal)
	if ctx == nil {
		return nil, errors.E(errors.InvalidArgument, Name, op, "nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	if ordinal < 0 {
		return nil, errors.E(errors.InvalidArgument, Name, op, "negative device ordinal")
	}
	return open(ctx, ordinal, d.Storage, os.Getenv(EnvStorage))
}
