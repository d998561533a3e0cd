package health

import (
	"fmt"
	"strings"
)

// ThrottleReasons says why a GPU's clocks are below their maximum: NVML's
// clocks event reasons (called throttle reasons before NVML 12.2), a mask
// of the Throttle bits. Zero means the clocks are as high as they go.
type ThrottleReasons uint64

// The reasons, with NVML's bit values.
const (
	ThrottleGPUIdle            ThrottleReasons = 1 << 0 // nothing runs: clocks drop to idle
	ThrottleApplicationsClocks ThrottleReasons = 1 << 1 // limited by the applications clocks setting
	ThrottleSWPowerCap         ThrottleReasons = 1 << 2 // the power cap: drawing as much as allowed
	ThrottleHWSlowdown         ThrottleReasons = 1 << 3 // hardware slowdown (temperature, power brake, power supply)
	ThrottleSyncBoost          ThrottleReasons = 1 << 4 // held to the clocks of a sync-boost group
	ThrottleSWThermal          ThrottleReasons = 1 << 5 // the driver's thermal limit
	ThrottleHWThermal          ThrottleReasons = 1 << 6 // the hardware's thermal limit: too hot
	ThrottleHWPowerBrake       ThrottleReasons = 1 << 7 // the external power brake (the power supply asked)
	ThrottleDisplayClocks      ThrottleReasons = 1 << 8 // limited by the display clock setting
)

// throttleNames are nvidia-smi's names of the reasons
// (clocks_event_reasons.*), by bit.
var throttleNames = [...]string{
	"gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown", "sync_boost",
	"sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "display_clock_setting",
}

// Names lists the reasons set, by nvidia-smi's names; a bit NVML added
// later than this package reads as its hex value.
func (t ThrottleReasons) Names() []string {
	var out []string
	for bit := 0; bit < 64; bit++ {
		if t&(1<<bit) == 0 {
			continue
		}
		if bit < len(throttleNames) {
			out = append(out, throttleNames[bit])
		} else {
			out = append(out, fmt.Sprintf("%#x", uint64(1)<<bit))
		}
	}
	return out
}

// String is the reasons joined by ",", or "none".
func (t ThrottleReasons) String() string {
	if t == 0 {
		return "none"
	}
	return strings.Join(t.Names(), ",")
}

// MarshalText writes String, for JSON.
func (t ThrottleReasons) MarshalText() ([]byte, error) { return []byte(t.String()), nil }
