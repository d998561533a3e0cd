// Package fakenvml builds a stand-in for libnvidia-ml.so.1 with the system
// C compiler, for tests of the health package and `gpu info`/`gpu watch`
// on machines without an NVIDIA driver: CI then runs the real loading and
// calling path. The library (fakenvml.c.in, C) exports every function the
// binding resolves and reports two GPUs with the fixed figures of Devices.
package fakenvml

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

//go:embed fakenvml.c.in
var source []byte

// EnvInit is the variable whose value nvmlInit_v2 of the fake returns (an
// nvmlReturn_t; unset: 0, success).
const EnvInit = "FAKENVML_INIT"

// GPU is what the fake reports for one device.
type GPU struct {
	Name, UUID, PCIBusID    string
	MemoryTotal, MemoryUsed int64
	// MemoryReserved is what the driver keeps: nvmlDeviceGetMemoryInfo_v2
	// reports it apart (the first GPU), the old call folds it into used (the
	// second GPU's v2 call fails, so its reader falls back to the old one).
	MemoryReserved                          int64
	GPUPercent, MemoryPercent, TemperatureC int
	PowerW, PowerLimitW                     float64
	SMClockMHz, MemoryClockMHz              int
	SMClockMaxMHz, MemoryClockMaxMHz        int
	Throttle                                uint64
	ECC                                     bool // false: ECC queries are NVML_ERROR_NOT_SUPPORTED
	ECCCorrected, ECCUncorrected            uint64
}

// Devices are the fake's GPUs, by NVML index (the values of fakenvml.c.in).
var Devices = []GPU{
	{Name: "NVIDIA H200", UUID: "GPU-0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", PCIBusID: "00000000:3B:00.0",
		MemoryTotal: 150754820096, MemoryUsed: 1 << 30, MemoryReserved: 512 << 20, GPUPercent: 45, MemoryPercent: 30, TemperatureC: 41,
		PowerW: 123.456, PowerLimitW: 700, SMClockMHz: 1980, MemoryClockMHz: 3201, SMClockMaxMHz: 1980, MemoryClockMaxMHz: 3201,
		Throttle: 0x4, ECC: true, ECCCorrected: 2},
	{Name: "NVIDIA GeForce RTX 4090", UUID: "GPU-11111111-2222-3333-4444-555555555555", PCIBusID: "00000000:86:00.0",
		MemoryTotal: 25757220864, MemoryUsed: 512 << 20, TemperatureC: 87, PowerW: 30.5, PowerLimitW: 450,
		SMClockMHz: 210, MemoryClockMHz: 405, SMClockMaxMHz: 3120, MemoryClockMaxMHz: 10501, Throttle: 0x41},
}

// Build compiles the fake library into dir and returns its path. It fails
// when there is no C compiler or the system is not Linux (tests skip then).
func Build(dir string) (string, error) {
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("the fake NVML is built on Linux only")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		if cc, err = exec.LookPath("gcc"); err != nil {
			return "", fmt.Errorf("no C compiler: %w", err)
		}
	}
	src := filepath.Join(dir, "fakenvml.c")
	if err := os.WriteFile(src, source, 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "libnvidia-ml.so.1")
	if b, err := exec.Command(cc, "-shared", "-fPIC", "-o", out, src).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", cc, err, b)
	}
	return out, nil
}
