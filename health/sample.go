package health

import (
	"time"

	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/health/internal/nvml"
)

// Metric names one group of figures of a Sample, for Sample.Missing.
type Metric string

// The metrics a Sample reads.
const (
	MetricUtilization Metric = "utilization" // GPUPercent, MemoryPercent
	MetricMemory      Metric = "memory"      // MemoryUsed, MemoryTotal
	MetricTemperature Metric = "temperature" // TemperatureC
	MetricPower       Metric = "power"       // PowerW
	MetricPowerLimit  Metric = "power limit" // PowerLimitW
	MetricClocks      Metric = "clocks"      // SMClockMHz, MemoryClockMHz
	MetricMaxClocks   Metric = "max clocks"  // SMClockMaxMHz, MemoryClockMaxMHz
	MetricThrottle    Metric = "throttle"    // Throttle
	MetricECC         Metric = "ecc"         // ECCCorrected, ECCUncorrected
)

// Metrics lists every metric, in the order Sample reads them.
var Metrics = []Metric{MetricUtilization, MetricMemory, MetricTemperature, MetricPower, MetricPowerLimit,
	MetricClocks, MetricMaxClocks, MetricThrottle, MetricECC}

// Sample is one reading of a device's health. A figure the device cannot
// report is zero and its metric is in Missing, with the reason.
type Sample struct {
	Device Device    `json:"device"`
	Time   time.Time `json:"time"`

	// GPUPercent and MemoryPercent are the share of the last sample period
	// (1/6 s to 1 s, by GPU) in which a kernel ran, and in which device
	// memory was read or written.
	GPUPercent    int `json:"gpu_percent"`
	MemoryPercent int `json:"memory_percent"`

	// MemoryUsed is what processes use, in bytes, as nvidia-smi shows it;
	// MemoryReserved is what the driver keeps (0 where the driver cannot
	// tell it apart: MemoryUsed then includes it).
	MemoryUsed     int64 `json:"memory_used"`
	MemoryReserved int64 `json:"memory_reserved"`
	MemoryTotal    int64 `json:"memory_total"`

	TemperatureC int     `json:"temperature_c"` // GPU die
	PowerW       float64 `json:"power_w"`       // board power draw
	PowerLimitW  float64 `json:"power_limit_w"` // the limit the driver enforces

	SMClockMHz        int `json:"sm_clock_mhz"`
	SMClockMaxMHz     int `json:"sm_clock_max_mhz"`
	MemoryClockMHz    int `json:"memory_clock_mhz"`
	MemoryClockMaxMHz int `json:"memory_clock_max_mhz"`

	// Throttle says why the clocks are below their maximum.
	Throttle ThrottleReasons `json:"throttle"`

	// ECCCorrected and ECCUncorrected count the volatile ECC errors: those
	// since the driver loaded. An uncorrected one lost data.
	ECCCorrected   uint64 `json:"ecc_corrected"`
	ECCUncorrected uint64 `json:"ecc_uncorrected"`

	// Missing holds why each metric the device could not report is
	// missing: category NotSupported for ECC on a GPU without ECC memory.
	Missing map[Metric]error `json:"-"`
}

// Has reports whether the sample holds metric m.
func (s Sample) Has(m Metric) bool { return s.Missing[m] == nil }

// read fills s from NVML, recording each metric that failed in Missing.
func (s *Sample) read(lib *nvml.Lib, d nvml.Device) {
	s.Time = time.Now()
	note := func(m Metric, r nvml.Return) bool {
		if err := check(r, "read "+string(m)); err != nil {
			if s.Missing == nil {
				s.Missing = map[Metric]error{}
			}
			s.Missing[m] = err
			return false
		}
		return true
	}
	if u, r := lib.UtilizationRates(d); note(MetricUtilization, r) {
		s.GPUPercent, s.MemoryPercent = int(u.GPU), int(u.Memory)
	}
	if m, r := lib.MemoryInfo(d); note(MetricMemory, r) {
		s.MemoryUsed, s.MemoryReserved, s.MemoryTotal = int64(m.Used), int64(m.Reserved), int64(m.Total)
	}
	if t, r := lib.Temperature(d); note(MetricTemperature, r) {
		s.TemperatureC = int(t)
	}
	if p, r := lib.PowerUsage(d); note(MetricPower, r) {
		s.PowerW = float64(p) / 1000
	}
	if p, r := lib.EnforcedPowerLimit(d); note(MetricPowerLimit, r) {
		s.PowerLimitW = float64(p) / 1000
	}
	sm, r1 := lib.Clock(d, nvml.ClockSM)
	mem, r2 := lib.Clock(d, nvml.ClockMemory)
	if note(MetricClocks, firstFailure(r1, r2)) {
		s.SMClockMHz, s.MemoryClockMHz = int(sm), int(mem)
	}
	sm, r1 = lib.MaxClock(d, nvml.ClockSM)
	mem, r2 = lib.MaxClock(d, nvml.ClockMemory)
	if note(MetricMaxClocks, firstFailure(r1, r2)) {
		s.SMClockMaxMHz, s.MemoryClockMaxMHz = int(sm), int(mem)
	}
	if t, r := lib.ClocksEventReasons(d); note(MetricThrottle, r) {
		s.Throttle = ThrottleReasons(t)
	}
	c, r1 := lib.TotalECCErrors(d, nvml.ECCCorrected, nvml.ECCVolatile)
	u, r2 := lib.TotalECCErrors(d, nvml.ECCUncorrected, nvml.ECCVolatile)
	if note(MetricECC, firstFailure(r1, r2)) {
		s.ECCCorrected, s.ECCUncorrected = c, u
	}
}

// lost is the first missing metric's error that says the device is gone
// (category DeviceLost), nil when there is none.
func (s Sample) lost() error {
	for _, m := range Metrics {
		if err := s.Missing[m]; errors.Is(err, errors.DeviceLost) {
			return err
		}
	}
	return nil
}

func firstFailure(rs ...nvml.Return) nvml.Return {
	for _, r := range rs {
		if r != nvml.Success {
			return r
		}
	}
	return nvml.Success
}
