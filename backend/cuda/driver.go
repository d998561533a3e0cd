package cuda

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/dl"
)

// Name is the backend's registered name.
const Name = "cuda"

// EnvLibrary names the CUDA driver library to open instead of libcuda.so.1
// (nvcuda.dll on Windows).
const EnvLibrary = "ANYGPU_CUDA_LIBRARY"

func init() { backend.Register(Driver{}) }

// Driver is the CUDA backend's driver. The zero value is ready to use; the
// driver library is opened on the first Probe or Open, not before.
type Driver struct{}

var _ backend.Driver = Driver{}

// Name returns "cuda".
func (Driver) Name() string { return Name }

// Probe lists the CUDA devices. A missing, stub or broken driver is an error
// of category Unavailable with the reason and a hint; a working driver with
// no GPU returns no devices.
func (Driver) Probe(ctx context.Context) ([]backend.DeviceInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, "probe")
	}
	st, err := loadDriver()
	if err != nil {
		return nil, err
	}
	out := make([]backend.DeviceInfo, 0, len(st.ordinals))
	for i := range st.ordinals {
		info, err := st.info(i)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	return out, nil
}

// Open opens device ordinal on its primary context.
func (Driver) Open(ctx context.Context, ordinal int) (backend.Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, "open")
	}
	st, err := loadDriver()
	if err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= len(st.ordinals) {
		return nil, &errors.Error{Backend: Name, Op: "open", Category: errors.InvalidArgument,
			Msg:  fmt.Sprintf("device %d does not exist: the driver reports %d CUDA devices", ordinal, len(st.ordinals)),
			Hint: "list the devices with `gpu info`; check ANYGPU_DEVICE and CUDA_VISIBLE_DEVICES"}
	}
	return openDevice(st, ordinal)
}

// driverState is the process-wide state of one loaded driver library.
type driverState struct {
	lib          *cu.Lib
	version      int    // cuDriverGetVersion
	kernelDriver string // the kernel module's version ("580.159.04"), when readable
	ordinals     []*ordinalState
}

// ordinalState is shared by every Device opened on one GPU: they share its
// primary context.
type ordinalState struct {
	dev cu.Device
	// sticky is the sticky CUresult (an illegal address, a failed launch,
	// ...) that broke the GPU's context, 0 while it works. The driver
	// returns it for the rest of the process: even a new primary context
	// cannot be made, so Open fails fast once it is set.
	sticky atomic.Int32
	openMu sync.Mutex // serialises Open

	infoOnce sync.Once
	info     backend.DeviceInfo
	infoErr  error
}

// states remembers the driver per value of ANYGPU_CUDA_LIBRARY.
var states dl.Memo[*driverState]

// loadDriver opens and initialises the driver library once per value of
// ANYGPU_CUDA_LIBRARY (tests change it) and remembers the outcome.
func loadDriver() (*driverState, error) {
	path := strings.TrimSpace(os.Getenv(EnvLibrary))
	return states.Get(path, func() (*driverState, error) { return initDriver(path) })
}

// initDriver loads the library at path (the default when empty), runs cuInit
// and counts the devices.
func initDriver(path string) (*driverState, error) {
	lib, err := cu.Load(path)
	if err != nil {
		return nil, err
	}
	if r := lib.Init(); r != cu.Success {
		return nil, unavailable(r.Err("cuInit"), lib.Path)
	}
	v, r := lib.DriverGetVersion()
	if r != cu.Success {
		return nil, unavailable(r.Err("cuDriverGetVersion"), lib.Path)
	}
	if v < cu.MinDriverVersion {
		return nil, &errors.Error{Backend: Name, Op: "init", Category: errors.Unavailable,
			Msg:  fmt.Sprintf("the driver supports CUDA %s, older than the %s anygpu needs", versionString(v), versionString(cu.MinDriverVersion)),
			Hint: "update the NVIDIA driver"}
	}
	lib.Version = v
	n, r := lib.DeviceGetCount()
	if r != cu.Success {
		return nil, unavailable(r.Err("cuDeviceGetCount"), lib.Path)
	}
	st := &driverState{lib: lib, version: v, kernelDriver: kernelDriverVersion()}
	for i := 0; i < n; i++ {
		d, r := lib.DeviceGet(i)
		if r != cu.Success {
			return nil, unavailable(r.Err(fmt.Sprintf("cuDeviceGet(%d)", i)), lib.Path)
		}
		st.ordinals = append(st.ordinals, &ordinalState{dev: d})
	}
	return st, nil
}
