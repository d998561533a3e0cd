package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// units maps a metric's suffix to the unit the table shows.
func unitOf(metric string) string {
	switch {
	case strings.HasSuffix(metric, "_gbps"):
		return "GB/s"
	case strings.HasSuffix(metric, "_tflops"):
		return "TFLOP/s"
	case strings.HasSuffix(metric, "_us"):
		return "µs"
	case strings.HasSuffix(metric, "_ms"):
		return "ms"
	}
	return ""
}

// lowerIsBetter reports whether smaller values of the metric are better (the
// times, as compare.py decides).
func lowerIsBetter(metric string) bool {
	return strings.HasSuffix(metric, "_us") || strings.HasSuffix(metric, "_ms")
}

// roundSig rounds v to 6 significant digits, so JSON shows no float noise.
func roundSig(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// jsonObject is one backend's results as a flat object: peers.py's shape
// (metric names as keys, numbers as values) plus what was measured on what.
func jsonObject(r *result) map[string]any {
	m := map[string]any{
		"tool":    "anygpu",
		"version": version(),
		"backend": r.Backend,
		"quick":   r.Quick,
	}
	if r.Err != nil {
		m["error"] = r.Err.Error()
	} else {
		m["device"] = r.Device
		m["device_name"] = r.DeviceName
		m["device_type"] = r.DeviceType
		if r.Simulated {
			m["simulated"] = true
		}
		m["timing"] = fmt.Sprintf("%s, median of %d", r.Clock, r.Sizes.Reps)
		m["transfer_bytes"] = r.Sizes.TransferBytes
		m["saxpy_n"] = r.Sizes.Elements
		m["reduce_n"] = r.Sizes.Elements
		m["sgemm_n"] = r.Sizes.SgemmN
		m["alloc_bytes"] = r.Sizes.AllocBytes
		m["launch_count"] = r.Sizes.Launches
		m["reps"] = r.Sizes.Reps
		m["sgemm_reps"] = r.Sizes.SgemmReps
		m["elapsed_s"] = roundSig(r.Elapsed.Seconds())
	}
	for _, name := range metricNames() {
		if v, ok := r.Values[name]; ok {
			m[name] = roundSig(v)
		} else {
			m[name] = nil
		}
	}
	if len(r.Errors) > 0 {
		m["errors"] = r.Errors
	}
	return m
}

// primary is the result the top level of the JSON holds: cuda's when it was
// measured (peers.py measures CUDA), else the first.
func primary(results []*result) *result {
	for _, r := range results {
		if r.Backend == "cuda" {
			return r
		}
	}
	return results[0]
}

// writeJSON prints the results as one JSON object: the primary backend's
// flat object, with several backends also "results", every backend's, and
// the extra keys ("peers", "baseline").
func writeJSON(w io.Writer, results []*result, extra map[string]any) error {
	if len(results) == 0 {
		return fmt.Errorf("no results")
	}
	top := jsonObject(primary(results))
	for k, v := range extra {
		top[k] = v
	}
	if len(results) > 1 {
		all := make([]map[string]any, len(results))
		for i, r := range results {
			all[i] = jsonObject(r)
		}
		top["results"] = all
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(top)
}

// formatValue prints a metric value with about four significant digits.
func formatValue(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a >= 0.01:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// describeSizes is the human form of a result's sizes.
func describeSizes(r *result) string {
	s := r.Sizes
	sg := fmt.Sprintf("sgemm %d³", s.SgemmN)
	if s.SgemmReduced {
		sg += fmt.Sprintf(" (not %d³: the device computes on a CPU)", fullSgemmN)
	}
	return fmt.Sprintf("transfers %s, saxpy/reduce %s float32, %s, alloc %s, launch %d×",
		byteSize(s.TransferBytes), elements(s.Elements), sg, byteSize(s.AllocBytes), s.Launches)
}

// elements formats an element count: "64 Mi", "1000".
func elements(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d Mi", n>>20)
	}
	return strconv.Itoa(n)
}

// writeTable prints the results for people: each backend's device and
// sizes, then a table of metric × backend with, when cuda was measured, a
// column per other backend with its speed relative to cuda (above 1 is
// faster, for times as for throughputs), then any errors.
func writeTable(w io.Writer, results []*result) {
	var ok []*result
	for _, r := range results {
		if r.Err != nil {
			fmt.Fprintf(w, "%s: not measured: %v\n", labelOf(r), r.Err)
			continue
		}
		ok = append(ok, r)
	}
	if len(ok) == 0 {
		return
	}
	mode := "full"
	if ok[0].Quick {
		mode = "quick"
	}
	fmt.Fprintf(w, "gpu bench (%s): median of %d runs after a warm-up\n", mode, ok[0].Sizes.Reps)
	for _, r := range ok {
		sim := ""
		if r.Simulated {
			sim = ", simulated"
		}
		fmt.Fprintf(w, "  %-8s %s: %s (%s%s, %d %s) — %.1fs, device timing: %s\n",
			r.Backend, r.DeviceName, r.Device, r.DeviceType, sim, r.Units, unitWord(r), r.Elapsed.Seconds(), r.Clock)
		fmt.Fprintf(w, "  %-8s %s\n", "", describeSizes(r))
	}
	fmt.Fprintln(w)

	var cuda *result
	for _, r := range ok {
		if r.Backend == "cuda" {
			cuda = r
		}
	}
	head := []string{"metric", "unit"}
	for _, r := range ok {
		head = append(head, r.Backend)
		if cuda != nil && r != cuda {
			head = append(head, r.Backend+"/cuda")
		}
	}
	rows := [][]string{head}
	for _, name := range metricNames() {
		if !measured(ok, name) {
			continue // not asked for (--metrics)
		}
		row := []string{name, unitOf(name)}
		for _, r := range ok {
			v, have := r.Values[name]
			cell := "-"
			if have {
				cell = formatValue(v)
			} else if _, bad := r.Errors[name]; bad {
				cell = "error"
			}
			row = append(row, cell)
			if cuda != nil && r != cuda {
				row = append(row, ratio(name, v, have, cuda))
			}
		}
		rows = append(rows, row)
	}
	writeColumns(w, rows)

	first := true
	for _, r := range ok {
		for _, name := range metricNames() {
			msg, bad := r.Errors[name]
			if !bad {
				continue
			}
			if first {
				fmt.Fprintln(w, "\nerrors:")
				first = false
			}
			fmt.Fprintf(w, "  %s %s: %s\n", r.Backend, name, msg)
		}
	}
}

// writeColumns prints rows as columns two spaces apart: the first two (metric
// and unit) left-aligned, the numbers right-aligned.
func writeColumns(w io.Writer, rows [][]string) {
	var width []int
	for _, row := range rows {
		for i, cell := range row {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(cell))
			if i > 0 {
				b.WriteString("  ")
			}
			if i < 2 {
				b.WriteString(cell + pad)
			} else {
				b.WriteString(pad + cell)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// ratio is how many times faster a backend is than cuda on a metric.
func ratio(name string, v float64, have bool, cuda *result) string {
	c, ok := cuda.Values[name]
	if !have || !ok || v == 0 || c == 0 {
		return "-"
	}
	x := v / c
	if lowerIsBetter(name) {
		x = c / v
	}
	return formatValue(x) + "×"
}

func unitWord(r *result) string {
	switch {
	case r.DeviceType == "CPU":
		return "cores"
	case r.Backend == "cuda":
		return "SMs"
	}
	return "units"
}

// measured reports whether any of results has a value or an error for the
// metric.
func measured(results []*result, name string) bool {
	for _, r := range results {
		_, v := r.Values[name]
		_, e := r.Errors[name]
		if v || e {
			return true
		}
	}
	return false
}
