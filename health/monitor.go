package health

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/health/internal/nvml"
	"github.com/anygpu/gpu/internal/dl"
)

// EnvLibrary names an explicit NVML library (a path to libnvidia-ml.so.1 or
// nvml.dll) to load instead of searching.
const EnvLibrary = nvml.EnvLibrary

// Device is one GPU as NVML lists it. Index is NVML's, which follows the PCI
// bus order and ignores CUDA_VISIBLE_DEVICES: it need not be the CUDA
// ordinal (Monitor.Find matches the two).
type Device struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	UUID  string `json:"uuid,omitempty"`
	// PCIBusID is "00000000:3B:00.0", as nvidia-smi writes it.
	PCIBusID string `json:"pci_bus_id,omitempty"`
}

// Monitor reads the health of the NVIDIA GPUs of the machine through NVML.
// Its methods may be called from several goroutines. Close it when done.
type Monitor struct {
	mu      sync.RWMutex
	lib     *nvml.Lib
	driver  string
	devs    []Device
	handles []nvml.Device
	failed  []error // per device: why its handle could not be had
	closed  bool
}

// libs is the outcome of loading NVML, by ANYGPU_NVML_LIBRARY value.
var libs dl.Memo[*nvml.Lib]

// load returns the process's NVML, searching for it on first use.
func load() (*nvml.Lib, error) {
	key := strings.TrimSpace(os.Getenv(EnvLibrary))
	return libs.Get(key, func() (*nvml.Lib, error) {
		lib, err := nvml.Load(nvml.Candidates(nvml.System(os.Getenv)), nvml.Unavailable(runtime.GOOS))
		if err == nil {
			return lib, nil
		}
		hint := "install the NVIDIA driver, which ships libnvidia-ml.so.1 (nvml.dll on Windows; nvidia-smi uses it too), or set " + EnvLibrary + " to its path"
		if key != "" {
			hint = EnvLibrary + " must name an NVML library (libnvidia-ml.so.1, nvml.dll); unset it to search the usual places"
		}
		if nvml.Unavailable(runtime.GOOS) != "" {
			hint = "NVML exists with NVIDIA's drivers for Linux and Windows only"
		}
		msg := "no NVML library found"
		if tried := dl.Tried(err); len(tried) > 0 {
			msg = "no usable NVML library: " + strings.Join(tried, "; ")
		}
		return nil, &errors.Error{Backend: Backend, Op: "load", Category: errors.Unavailable, Msg: msg, Hint: hint}
	})
}

// Open loads NVML (on first use; ANYGPU_NVML_LIBRARY overrides the search),
// initialises it and lists the GPUs. Without NVML (no NVIDIA driver, or
// another system) the error is of category Unavailable, with a hint.
func Open() (*Monitor, error) {
	lib, err := load()
	if err != nil {
		return nil, err
	}
	if err := check(lib.Init(), "init"); err != nil {
		return nil, err
	}
	m := &Monitor{lib: lib}
	n, r := lib.DeviceCount()
	if err := check(r, "count devices"); err != nil {
		lib.Shutdown()
		return nil, err
	}
	m.driver, _ = lib.DriverVersion()
	for i := range n {
		dev := Device{Index: i}
		h, r := lib.DeviceByIndex(i)
		err := check(r, fmt.Sprintf("get device %d", i))
		if err == nil {
			dev.Name, _ = lib.Name(h)
			dev.UUID, _ = lib.UUID(h)
			if p, r := lib.PCI(h); r == nvml.Success {
				dev.PCIBusID = p.BusIDString()
			}
		}
		m.devs = append(m.devs, dev)
		m.handles = append(m.handles, h)
		m.failed = append(m.failed, err)
	}
	return m, nil
}

// Library is the NVML the process loaded: the candidate that opened (a
// path, or the name the system's search resolved).
func (m *Monitor) Library() string {
	if m == nil {
		return ""
	}
	return m.lib.Path
}

// DriverVersion is the NVIDIA driver's version ("580.95.05"), "" when NVML
// cannot say.
func (m *Monitor) DriverVersion() string {
	if m == nil {
		return ""
	}
	return m.driver
}

// Devices lists the GPUs, by NVML index.
func (m *Monitor) Devices() []Device {
	if m == nil {
		return nil
	}
	return append([]Device(nil), m.devs...)
}

// Sample reads the health of device i (an NVML index, see Devices). A
// figure the device cannot report is left out (Sample.Missing says why);
// the error is for a bad index, a closed Monitor, or a device that is gone
// (category DeviceLost), with the figures that could be read.
func (m *Monitor) Sample(i int) (Sample, error) {
	if m == nil {
		return Sample{}, &errors.Error{Backend: Backend, Op: "sample", Category: errors.InvalidArgument, Msg: "nil Monitor", Hint: "open one with health.Open"}
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Sample{}, &errors.Error{Backend: Backend, Op: "sample", Category: errors.Closed, Msg: "monitor is closed"}
	}
	if i < 0 || i >= len(m.devs) {
		return Sample{}, &errors.Error{Backend: Backend, Op: "sample", Category: errors.InvalidArgument,
			Msg: fmt.Sprintf("device %d requested, NVML lists %d", i, len(m.devs)), Hint: "list the devices with Monitor.Devices or `gpu info`"}
	}
	s := Sample{Device: m.devs[i]}
	if m.failed[i] != nil {
		return s, m.failed[i]
	}
	s.read(m.lib, m.handles[i])
	return s, s.lost()
}

// Close releases NVML (nvmlShutdown). It is safe to call more than once;
// Sample afterwards fails with category Closed.
func (m *Monitor) Close() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	return check(m.lib.Shutdown(), "shutdown")
}
