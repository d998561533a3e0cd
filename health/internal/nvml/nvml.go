// Package nvml is the binding of the NVIDIA Management Library
// (libnvidia-ml.so.1, nvml.dll), loaded at run time through internal/dl:
// the library search, its symbol table, and one method per NVML function
// the health package calls. Methods return NVML's own result code; the
// health package turns codes into errors.
package nvml

import (
	"unsafe"

	"github.com/anygpu/gpu/internal/dl"
)

// Return is an nvmlReturn_t.
type Return int32

// The nvmlReturn_t values the binding itself produces or tests for.
const (
	Success          Return = 0
	NotSupported     Return = 3
	FunctionNotFound Return = 13 // NVML_ERROR_FUNCTION_NOT_FOUND: also for a symbol this library lacks
)

// Device is an nvmlDevice_t handle.
type Device uintptr

// ClockType is an nvmlClockType_t.
type ClockType int32

// Clock types.
const (
	ClockGraphics ClockType = 0
	ClockSM       ClockType = 1
	ClockMemory   ClockType = 2
)

// ECC error kinds (nvmlMemoryErrorType_t) and counters (nvmlEccCounterType_t).
const (
	ECCCorrected   = 0
	ECCUncorrected = 1
	ECCVolatile    = 0 // since the driver loaded
	ECCAggregate   = 1 // over the GPU's life
)

// temperatureGPU is NVML_TEMPERATURE_GPU, the GPU die sensor.
const temperatureGPU = 0

// Buffer sizes of the string queries (NVML_DEVICE_NAME_V2_BUFFER_SIZE,
// NVML_DEVICE_UUID_V2_BUFFER_SIZE, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE).
const (
	nameSize    = 96
	uuidSize    = 96
	versionSize = 80
)

// PCIInfo is nvmlPciInfo_t (the layout of nvmlDeviceGetPciInfo_v3).
type PCIInfo struct {
	BusIDLegacy    [16]byte // "0000:3B:00.0"
	Domain         uint32
	Bus            uint32
	Device         uint32
	PCIDeviceID    uint32 // device id << 16 | vendor id
	PCISubSystemID uint32
	BusID          [32]byte // "00000000:3B:00.0", as nvidia-smi shows it
}

// Memory is nvmlMemory_t: bytes.
type Memory struct {
	Total, Free, Used uint64
	// Reserved is the memory the driver keeps for itself, which Used then
	// excludes (as nvidia-smi shows it); 0 from the old call, whose Used
	// includes it.
	Reserved uint64
}

// memoryV2 is nvmlMemory_v2_t, tagged with its size and version.
type memoryV2 struct {
	Version                     uint32
	_                           uint32
	Total, Reserved, Free, Used uint64
}

// memoryV2Version is nvmlMemory_v2: NVML_STRUCT_VERSION(Memory, 2), the
// struct's size with the version in the top byte.
const memoryV2Version = uint32(unsafe.Sizeof(memoryV2{})) | 2<<24

// Utilization is nvmlUtilization_t: percent of the last sample period.
type Utilization struct {
	GPU, Memory uint32
}

// sym names one NVML function.
type sym int

const (
	symInit sym = iota
	symShutdown
	symErrorString
	symDeviceGetCount
	symDeviceGetHandleByIndex
	// Optional below: a missing one reads as FunctionNotFound.
	symSystemGetDriverVersion
	symDeviceGetName
	symDeviceGetUUID
	symDeviceGetPciInfo
	symDeviceGetMemoryInfo
	symDeviceGetMemoryInfoV2 // NVML 11.5 and later: the driver's reserve apart
	symDeviceGetUtilizationRates
	symDeviceGetTemperature
	symDeviceGetPowerUsage
	symDeviceGetEnforcedPowerLimit
	symDeviceGetClockInfo
	symDeviceGetMaxClockInfo
	symDeviceGetClocksEventReasons    // NVML 12.2 and later
	symDeviceGetClocksThrottleReasons // its older name
	symDeviceGetTotalEccErrors
	numSyms
)

// numRequired counts the required functions, which come first.
const numRequired = symSystemGetDriverVersion

var symNames = [numSyms]string{
	symInit:                           "nvmlInit_v2",
	symShutdown:                       "nvmlShutdown",
	symErrorString:                    "nvmlErrorString",
	symDeviceGetCount:                 "nvmlDeviceGetCount_v2",
	symDeviceGetHandleByIndex:         "nvmlDeviceGetHandleByIndex_v2",
	symSystemGetDriverVersion:         "nvmlSystemGetDriverVersion",
	symDeviceGetName:                  "nvmlDeviceGetName",
	symDeviceGetUUID:                  "nvmlDeviceGetUUID",
	symDeviceGetPciInfo:               "nvmlDeviceGetPciInfo_v3",
	symDeviceGetMemoryInfo:            "nvmlDeviceGetMemoryInfo",
	symDeviceGetMemoryInfoV2:          "nvmlDeviceGetMemoryInfo_v2",
	symDeviceGetUtilizationRates:      "nvmlDeviceGetUtilizationRates",
	symDeviceGetTemperature:           "nvmlDeviceGetTemperature",
	symDeviceGetPowerUsage:            "nvmlDeviceGetPowerUsage",
	symDeviceGetEnforcedPowerLimit:    "nvmlDeviceGetEnforcedPowerLimit",
	symDeviceGetClockInfo:             "nvmlDeviceGetClockInfo",
	symDeviceGetMaxClockInfo:          "nvmlDeviceGetMaxClockInfo",
	symDeviceGetClocksEventReasons:    "nvmlDeviceGetCurrentClocksEventReasons",
	symDeviceGetClocksThrottleReasons: "nvmlDeviceGetCurrentClocksThrottleReasons",
	symDeviceGetTotalEccErrors:        "nvmlDeviceGetTotalEccErrors",
}

// Lib is a loaded NVML.
type Lib struct {
	Path string // the candidate it was opened by
	fn   [numSyms]uintptr
}

// Load opens the first candidate that has NVML's required functions.
// unavailable, when not "", is why NVML cannot exist on this system. The
// error is dl.Load's (a *dl.LoadError).
func Load(cands []string, unavailable string) (*Lib, error) {
	l := &Lib{}
	found, err := dl.Load(dl.Spec{Candidates: cands, Mode: dl.Lazy, Unavailable: unavailable,
		Accept: dl.SymbolsFunc(l.fn[:], symNames[:], int(numRequired))})
	if err != nil {
		return nil, err
	}
	l.Path = found.Path
	return l, nil
}

// call calls s, or returns FunctionNotFound when the library lacks it.
// Like dl.Call it is go:uintptrescapes: an object whose address is
// converted to uintptr in the argument list of a call of call stays on the
// heap and alive until call returns.
//
//go:uintptrescapes
func (l *Lib) call(s sym, args ...uintptr) Return {
	if l.fn[s] == 0 {
		return FunctionNotFound
	}
	return Return(int32(dl.Call(l.fn[s], args...)))
}

// Init is nvmlInit_v2. Each successful Init needs one Shutdown.
func (l *Lib) Init() Return { return l.call(symInit) }

// Shutdown is nvmlShutdown.
func (l *Lib) Shutdown() Return { return l.call(symShutdown) }

// ErrorString is nvmlErrorString: NVML's description of r.
func (l *Lib) ErrorString(r Return) string {
	if l.fn[symErrorString] == 0 {
		return ""
	}
	return dl.GoStringN(dl.Call(l.fn[symErrorString], uintptr(r)), 256)
}

// DeviceCount is nvmlDeviceGetCount_v2.
func (l *Lib) DeviceCount() (int, Return) {
	var n uint32
	r := l.call(symDeviceGetCount, uintptr(unsafe.Pointer(&n)))
	return int(n), r
}

// DeviceByIndex is nvmlDeviceGetHandleByIndex_v2.
func (l *Lib) DeviceByIndex(i int) (Device, Return) {
	var d uintptr
	r := l.call(symDeviceGetHandleByIndex, uintptr(uint32(i)), uintptr(unsafe.Pointer(&d)))
	return Device(d), r
}

// text runs a string query that fills buf and returns buf up to its NUL.
func text(buf []byte, r Return) (string, Return) {
	if r != Success {
		return "", r
	}
	for i, c := range buf {
		if c == 0 {
			return string(buf[:i]), r
		}
	}
	return string(buf), r
}

// DriverVersion is nvmlSystemGetDriverVersion: "580.95.05".
func (l *Lib) DriverVersion() (string, Return) {
	buf := make([]byte, versionSize)
	return text(buf, l.call(symSystemGetDriverVersion, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf))))
}

// Name is nvmlDeviceGetName: "NVIDIA H200".
func (l *Lib) Name(d Device) (string, Return) {
	buf := make([]byte, nameSize)
	return text(buf, l.call(symDeviceGetName, uintptr(d), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf))))
}

// UUID is nvmlDeviceGetUUID: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
func (l *Lib) UUID(d Device) (string, Return) {
	buf := make([]byte, uuidSize)
	return text(buf, l.call(symDeviceGetUUID, uintptr(d), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf))))
}

// PCI is nvmlDeviceGetPciInfo_v3.
func (l *Lib) PCI(d Device) (PCIInfo, Return) {
	var p PCIInfo
	r := l.call(symDeviceGetPciInfo, uintptr(d), uintptr(unsafe.Pointer(&p)))
	return p, r
}

// BusIDString is p's bus id as text, up to its NUL.
func (p PCIInfo) BusIDString() string {
	s, _ := text(p.BusID[:], Success)
	return s
}

// MemoryInfo is nvmlDeviceGetMemoryInfo_v2 where the library has it and the
// GPU answers it (the driver's reserve apart from what processes use, as
// nvidia-smi reports it), else nvmlDeviceGetMemoryInfo.
func (l *Lib) MemoryInfo(d Device) (Memory, Return) {
	if l.fn[symDeviceGetMemoryInfoV2] != 0 {
		v := memoryV2{Version: memoryV2Version}
		if r := l.call(symDeviceGetMemoryInfoV2, uintptr(d), uintptr(unsafe.Pointer(&v))); r == Success {
			return Memory{Total: v.Total, Free: v.Free, Used: v.Used, Reserved: v.Reserved}, r
		}
	}
	var m struct{ Total, Free, Used uint64 }
	r := l.call(symDeviceGetMemoryInfo, uintptr(d), uintptr(unsafe.Pointer(&m)))
	return Memory{Total: m.Total, Free: m.Free, Used: m.Used}, r
}

// UtilizationRates is nvmlDeviceGetUtilizationRates.
func (l *Lib) UtilizationRates(d Device) (Utilization, Return) {
	var u Utilization
	r := l.call(symDeviceGetUtilizationRates, uintptr(d), uintptr(unsafe.Pointer(&u)))
	return u, r
}

// Temperature is nvmlDeviceGetTemperature of the GPU die, in °C.
func (l *Lib) Temperature(d Device) (uint32, Return) {
	var v uint32
	r := l.call(symDeviceGetTemperature, uintptr(d), temperatureGPU, uintptr(unsafe.Pointer(&v)))
	return v, r
}

// PowerUsage is nvmlDeviceGetPowerUsage, in milliwatts.
func (l *Lib) PowerUsage(d Device) (uint32, Return) {
	var v uint32
	r := l.call(symDeviceGetPowerUsage, uintptr(d), uintptr(unsafe.Pointer(&v)))
	return v, r
}

// EnforcedPowerLimit is nvmlDeviceGetEnforcedPowerLimit, in milliwatts.
func (l *Lib) EnforcedPowerLimit(d Device) (uint32, Return) {
	var v uint32
	r := l.call(symDeviceGetEnforcedPowerLimit, uintptr(d), uintptr(unsafe.Pointer(&v)))
	return v, r
}

// Clock is nvmlDeviceGetClockInfo, in MHz.
func (l *Lib) Clock(d Device, t ClockType) (uint32, Return) {
	var v uint32
	r := l.call(symDeviceGetClockInfo, uintptr(d), uintptr(t), uintptr(unsafe.Pointer(&v)))
	return v, r
}

// MaxClock is nvmlDeviceGetMaxClockInfo, in MHz.
func (l *Lib) MaxClock(d Device, t ClockType) (uint32, Return) {
	var v uint32
	r := l.call(symDeviceGetMaxClockInfo, uintptr(d), uintptr(t), uintptr(unsafe.Pointer(&v)))
	return v, r
}

// ClocksEventReasons is nvmlDeviceGetCurrentClocksEventReasons, or its
// older name nvmlDeviceGetCurrentClocksThrottleReasons where the library
// predates it: a mask of why the clocks are below their maximum.
func (l *Lib) ClocksEventReasons(d Device) (uint64, Return) {
	s := symDeviceGetClocksEventReasons
	if l.fn[s] == 0 {
		s = symDeviceGetClocksThrottleReasons
	}
	var v uint64
	r := l.call(s, uintptr(d), uintptr(unsafe.Pointer(&v)))
	return v, r
}

// TotalECCErrors is nvmlDeviceGetTotalEccErrors of one kind
// (ECCCorrected, ECCUncorrected) and counter (ECCVolatile, ECCAggregate).
func (l *Lib) TotalECCErrors(d Device, kind, counter int) (uint64, Return) {
	var v uint64
	r := l.call(symDeviceGetTotalEccErrors, uintptr(d), uintptr(kind), uintptr(counter), uintptr(unsafe.Pointer(&v)))
	return v, r
}
