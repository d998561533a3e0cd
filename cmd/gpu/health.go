package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/health"
)

// healthView is what `gpu info` shows of NVML: the monitor, or why there
// is none.
type healthView struct {
	mon *health.Monitor
	err error
	// shown records the NVML devices printed next to a backend's device,
	// and which device ("cuda:0") they were printed under.
	shown map[int]string
}

func openHealth() *healthView {
	mon, err := health.Open()
	return &healthView{mon: mon, err: err, shown: map[int]string{}}
}

func (h *healthView) close() {
	if h.mon != nil {
		h.mon.Close()
	}
}

// summary is NVML's row under the report's table: its state, and when it
// is unavailable the reason and a hint, laid out like the table's rows.
func (h *healthView) summary() string {
	if h.err != nil {
		line := "nvml      unavailable   " + reasonOnly(h.err)
		if hint := errors.Hint(h.err); hint != "" {
			line += "\n                        hint: " + hint
		}
		return line
	}
	return fmt.Sprintf("nvml      available     %d NVIDIA GPU(s), driver %s (%s)", len(h.mon.Devices()), h.mon.DriverVersion(), h.mon.Library())
}

// reasonOnly is err's message without its backend, operation and hint.
func reasonOnly(err error) string {
	if e, ok := err.(*errors.Error); ok {
		c := *e
		c.Backend, c.Op, c.Hint = "", "", "-"
		return strings.TrimSuffix(c.Error(), ": -")
	}
	return err.Error()
}

// oneLine is err's message and hint on one line.
func oneLine(err error) string {
	if e, ok := err.(*errors.Error); ok {
		c := *e
		c.Backend, c.Op = "", ""
		return c.Error()
	}
	return err.Error()
}

// group is NVML's figures for the backend device d, shown as label
// ("cuda:0"), and whether NVML lists it. A GPU that several backends
// present (CUDA, Vulkan, OpenGL) gets its figures once, under the first;
// the others point there.
func (h *healthView) group(d gpu.DeviceInfo, label string) (group, bool) {
	if h.mon == nil {
		return group{}, false
	}
	nd, ok := h.mon.Find(d)
	if !ok {
		return group{}, false
	}
	if first, ok := h.shown[nd.Index]; ok {
		g := group{title: fmt.Sprintf("health (NVML %d, %s)", nd.Index, nd.PCIBusID)}
		g.add("figures", "under "+first+", the same GPU")
		return g, true
	}
	h.shown[nd.Index] = label
	return h.sampleGroup(nd), true
}

// sampleGroup reads NVML device nd and formats its figures.
func (h *healthView) sampleGroup(nd health.Device) group {
	g := group{title: fmt.Sprintf("health (NVML %d, %s)", nd.Index, nd.PCIBusID)}
	s, err := h.mon.Sample(nd.Index)
	if err != nil {
		g.add("error", oneLine(err))
	}
	if s.Time.IsZero() {
		return g
	}
	val := func(m health.Metric, v string) string {
		if err := s.Missing[m]; err != nil {
			if errors.Is(err, errors.NotSupported) {
				return "not supported"
			}
			return "unknown: " + oneLine(err)
		}
		return v
	}
	g.add("utilization", val(health.MetricUtilization, fmt.Sprintf("%d%% gpu, %d%% memory", s.GPUPercent, s.MemoryPercent)))
	mem := fmt.Sprintf("%s of %s", byteSize(s.MemoryUsed), byteSize(s.MemoryTotal))
	if s.MemoryReserved > 0 {
		mem += fmt.Sprintf(" (the driver reserves %s more)", byteSize(s.MemoryReserved))
	}
	g.add("memory used", val(health.MetricMemory, mem))
	g.add("temperature", val(health.MetricTemperature, fmt.Sprintf("%d °C", s.TemperatureC)))
	g.add("power", val(health.MetricPower, fmt.Sprintf("%.1f W", s.PowerW)))
	g.add("power limit", val(health.MetricPowerLimit, fmt.Sprintf("%.0f W", s.PowerLimitW)))
	g.add("sm clock", val(health.MetricClocks, fmt.Sprintf("%d MHz", s.SMClockMHz))+maxOf(s, s.SMClockMaxMHz))
	g.add("memory clock", val(health.MetricClocks, fmt.Sprintf("%d MHz", s.MemoryClockMHz))+maxOf(s, s.MemoryClockMaxMHz))
	g.add("throttle", val(health.MetricThrottle, s.Throttle.String()))
	g.add("ecc errors", val(health.MetricECC, fmt.Sprintf("%d corrected, %d uncorrected (since the driver loaded)", s.ECCCorrected, s.ECCUncorrected)))
	return g
}

// maxOf is " (max N MHz)" when the sample has the maximum clocks.
func maxOf(s health.Sample, mhz int) string {
	if !s.Has(health.MetricMaxClocks) || !s.Has(health.MetricClocks) {
		return ""
	}
	return fmt.Sprintf(" (max %d MHz)", mhz)
}

// writeUnmatched prints the NVML devices no backend device matched (CUDA
// unavailable or hiding them through CUDA_VISIBLE_DEVICES).
func (h *healthView) writeUnmatched(w io.Writer) {
	if h.mon == nil {
		return
	}
	for _, nd := range h.mon.Devices() {
		if _, ok := h.shown[nd.Index]; ok {
			continue
		}
		fmt.Fprintf(w, "\nnvml:%d  %s (no backend device matches it)\n", nd.Index, nd.Name)
		g := h.sampleGroup(nd)
		g.add("uuid", nd.UUID)
		writeGroups(w, []group{g})
	}
}

// healthJSON is a Sample in `gpu info --json` and `gpu watch --json`, with
// the missing metrics' reasons as text.
type healthJSON struct {
	health.Sample
	Missing map[health.Metric]string `json:"missing,omitempty"`
	Error   string                   `json:"error,omitempty"`
}

func toJSON(s health.Sample, err error) healthJSON {
	j := healthJSON{Sample: s}
	for m, e := range s.Missing {
		if j.Missing == nil {
			j.Missing = map[health.Metric]string{}
		}
		j.Missing[m] = e.Error()
	}
	if err != nil {
		j.Error = err.Error()
	}
	return j
}

// samples reads every NVML device, for JSON.
func (h *healthView) samples() []healthJSON {
	if h.mon == nil {
		return nil
	}
	var out []healthJSON
	for _, nd := range h.mon.Devices() {
		out = append(out, toJSON(h.mon.Sample(nd.Index)))
	}
	return out
}
