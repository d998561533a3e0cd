package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/anygpu/gpu/internal/units"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
)

const infoUsage = `usage: gpu info [--json]

Probes every backend and prints its state (available, no devices, unavailable,
not compiled) with the reason and a hint, which device gpu.Open would pick
(and why software renderers are passed over), then each device's
capabilities, with NVML's live figures for NVIDIA GPUs (utilisation, memory,
temperature, power, clocks, throttle reasons, ECC errors) where NVML loads.
Missing GPU backends are states, not errors: the exit status is 0.

flags:
  --json   print the report as JSON (gpu.Report)
`

// probeTimeout bounds the probe of every backend together.
const probeTimeout = 30 * time.Second

func runInfo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("info", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	if code, ok := parseFlags(fs, infoUsage, args, stdout, stderr); !ok {
		return code
	}
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	rep := gpu.Probe(pctx)
	choice := chooseDevice(rep)
	hv := openHealth()
	defer hv.close()
	if *asJSON {
		out := struct {
			gpu.Report
			Open        openChoice   `json:"open"`
			Health      []healthJSON `json:"health,omitempty"`
			HealthError string       `json:"health_error,omitempty"`
		}{Report: rep, Open: choice, Health: hv.samples()}
		if hv.err != nil {
			out.HealthError = hv.err.Error()
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(stderr, "gpu info: %v\n", err)
			return exitFail
		}
		return exitOK
	}
	writeInfo(stdout, rep, choice, hv)
	return exitOK
}

// writeInfo prints the report's table, NVML's state and gpu.Open's choice,
// then every device's capabilities and health.
func writeInfo(w io.Writer, rep gpu.Report, choice openChoice, hv *healthView) {
	fmt.Fprint(w, rep.String())
	fmt.Fprintln(w, hv.summary())
	fmt.Fprintln(w)
	choice.write(w)
	for _, st := range rep.Backends {
		for _, d := range st.Devices {
			fmt.Fprintln(w)
			groups := deviceGroups(st, d)
			if g, ok := hv.group(d, fmt.Sprintf("%s:%d", st.Name, d.Ordinal)); ok {
				groups = append(groups, g)
			}
			mark := ""
			if choice.is(st.Name, d) {
				mark = "  [gpu.Open picks this one]"
			}
			fmt.Fprintf(w, "%s:%d  %s%s\n", st.Name, d.Ordinal, d.Name, mark)
			writeGroups(w, groups)
		}
	}
	hv.writeUnmatched(w)
}

// field is one labelled value of a capability group.
type field struct{ label, value string }

// group collects the non-zero fields of one capability group.
type group struct {
	title  string
	fields []field
}

// add appends label: value unless value is empty (the field is unknown).
func (g *group) add(label, value string) {
	if value != "" {
		g.fields = append(g.fields, field{label, value})
	}
}

func itoa(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}

func withUnit(n int, unit string) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d %s", n, unit)
}

func bytesOf(n int64) string {
	if n == 0 {
		return ""
	}
	return byteSize(n)
}

func dim(d backend.Dim3) string {
	if d == (backend.Dim3{}) {
		return ""
	}
	return fmt.Sprintf("%d × %d × %d", d.X, d.Y, d.Z)
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return ""
}

// unitName says what a "unit" is on the device's backend.
func unitName(d gpu.DeviceInfo) string {
	switch {
	case d.Type == backend.TypeCPU:
		return "cores"
	case d.Backend == "cuda":
		return "SMs"
	default:
		return "compute units"
	}
}

// deviceGroups sorts a device's capabilities into the groups info prints,
// leaving out fields the backend does not know.
func deviceGroups(st gpu.BackendStatus, d gpu.DeviceInfo) []group {
	id := group{title: "identity"}
	id.add("vendor", d.Vendor)
	id.add("type", d.Type.String())
	id.add("uuid", d.UUID)
	id.add("pci bus", d.PCIBus)
	id.add("driver", d.DriverVersion)
	id.add("api", d.APIVersion)
	id.add("simulated", yes(st.Simulated))

	c := group{title: "compute"}
	c.add(unitName(d), itoa(d.Units))
	c.add("clock", withUnit(d.ClockMHz, "MHz"))
	if d.ComputeMajor > 0 {
		c.add("compute capability", fmt.Sprintf("%d.%d", d.ComputeMajor, d.ComputeMinor))
	}
	c.add("built-in kernels", builtinsOrigin(st, d))
	c.add("warp/subgroup", itoa(d.WarpSize))
	c.add("max threads/block", itoa(d.MaxThreadsPerBlock))
	c.add("max block", dim(d.MaxBlockDim))
	c.add("max grid", dim(d.MaxGridDim))
	c.add("max threads/unit", itoa(d.MaxThreadsPerUnit))
	c.add("max blocks/unit", itoa(d.MaxBlocksPerUnit))
	c.add("registers/block", itoa(d.RegistersPerBlock))
	c.add("registers/unit", itoa(d.RegistersPerUnit))
	c.add("shared mem/block", bytesOf(int64(d.SharedMemPerBlock)))
	c.add("shared mem/block opt-in", bytesOf(int64(d.SharedMemPerBlockOptin)))
	c.add("shared mem/unit", bytesOf(int64(d.SharedMemPerUnit)))
	c.add("reserved shared/block", bytesOf(int64(d.ReservedSharedPerBlock)))
	if d.TimestampPeriodNs != 0 {
		c.add("timestamp tick", fmt.Sprintf("%g ns", d.TimestampPeriodNs))
	}

	m := group{title: "memory"}
	m.add("total", bytesOf(d.MemoryBytes))
	if d.MemoryBandwidthGBps != 0 {
		m.add("bandwidth", fmt.Sprintf("%.1f GB/s (theoretical)", d.MemoryBandwidthGBps))
	}
	m.add("clock", withUnit(d.MemoryClockMHz, "MHz"))
	m.add("bus", withUnit(d.MemoryBusBits, "bits"))
	m.add("L2 cache", bytesOf(d.L2CacheBytes))
	m.add("largest buffer", bytesOf(d.MaxBufferBytes))

	f := group{title: "features"}
	var prec []string
	for _, p := range []struct {
		on   bool
		name string
	}{{d.FP16, "FP16"}, {d.BF16, "BF16"}, {d.FP8, "FP8"}, {d.FP64, "FP64"}} {
		if p.on {
			prec = append(prec, p.name)
		}
	}
	f.add("precisions", strings.Join(prec, " "))
	f.add("ECC", yes(d.ECC))
	f.add("unified addressing", yes(d.UnifiedAddressing))
	f.add("unified memory", yes(d.UnifiedMemory))
	f.add("concurrent kernels", yes(d.ConcurrentKernels))
	f.add("async engines", itoa(d.AsyncEngines))
	label := "extensions"
	if d.Type == backend.TypeCPU {
		label = "CPU features"
	}
	f.add(label, strings.Join(d.Features, " "))

	x := group{title: "extra"}
	for _, k := range slices.Sorted(maps.Keys(d.Extra)) {
		x.add(k, d.Extra[k])
	}
	return []group{id, c, m, f, x}
}

// writeDevice prints one device's capability groups.
func writeDevice(w io.Writer, st gpu.BackendStatus, d gpu.DeviceInfo) {
	fmt.Fprintf(w, "%s:%d  %s\n", st.Name, d.Ordinal, d.Name)
	writeGroups(w, deviceGroups(st, d))
}

// writeGroups prints groups, skipping empty ones, with the values of all
// groups in one column.
func writeGroups(w io.Writer, groups []group) {
	width := 0
	for _, g := range groups {
		for _, f := range g.fields {
			width = max(width, len(f.label))
		}
	}
	for _, g := range groups {
		if len(g.fields) == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s\n", g.title)
		for _, f := range g.fields {
			fmt.Fprintf(w, "    %-*s  %s\n", width, f.label, wrap(f.value, 64, 6+width))
		}
	}
}

// wrap breaks a long space-separated value (CPU feature lists) into lines of
// at most width characters, indenting continuation lines by indent spaces.
func wrap(s string, width, indent int) string {
	if len(s) <= width {
		return s
	}
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(s) {
		if i > 0 {
			if line+1+len(word) > width {
				b.WriteString("\n" + strings.Repeat(" ", indent))
				line = 0
			} else {
				b.WriteByte(' ')
				line++
			}
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}

// byteSize formats n bytes for tables: "256 MiB", "1.5 GiB".
func byteSize(n int64) string { return strings.Replace(units.ByteSize(n), ".0 ", " ", 1) }
