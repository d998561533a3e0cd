package profiling

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/anygpu/gpu/backend"
)

// WriteText writes the summaries as an aligned table, one row per (Kind,
// Name), largest total first:
//
//	NAME    KIND    COUNT  TOTAL   MEAN    MIN     MAX     P50     P95     GB/s
//	saxpy   kernel  100    4.56ms  45.6us  44.1us  52.0us  45.2us  49.9us  -
//	h2d     h2d     10     2.10ms  210us   205us   230us   208us   230us   24.97
//
// An empty Name shows as the Kind. Durations are human readable with three
// significant digits (850ns, 12.3us, 4.56ms, 1.23s); GB/s is "-" for rows
// that moved no bytes.
func (p *Profiler) WriteText(w io.Writer) error {
	return writeText(w, p.Summaries())
}

func writeText(w io.Writer, sums []Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tCOUNT\tTOTAL\tMEAN\tMIN\tMAX\tP50\tP95\tGB/s")
	for _, s := range sums {
		gbps := "-"
		if s.GBps > 0 {
			gbps = strconv.FormatFloat(s.GBps, 'f', 2, 64)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			s.Label(), s.Kind, s.Count,
			FormatDuration(s.Total), FormatDuration(s.Mean),
			FormatDuration(s.Min), FormatDuration(s.Max),
			FormatDuration(s.P50), FormatDuration(s.P95), gbps)
	}
	return tw.Flush()
}

// FormatDuration formats d with three significant digits in the largest unit
// that keeps the number at least 1: 850ns, 12.3us, 4.56ms, 1.23s. Durations
// of 1000s and more are shown in whole seconds.
func FormatDuration(d time.Duration) string {
	if d < 0 {
		return "-" + FormatDuration(-d)
	}
	units := []struct {
		name string
		size float64
	}{{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}}
	if d < time.Microsecond {
		return strconv.FormatInt(int64(d), 10) + "ns"
	}
	ns := float64(d)
	for i, u := range units {
		if i < len(units)-1 && ns >= units[i+1].size {
			continue
		}
		s := sig3(ns / u.size)
		// Rounding may carry into the next unit: 999.7us is 1.00ms.
		if i < len(units)-1 && s == "1000" {
			return "1.00" + units[i+1].name
		}
		return s + u.name
	}
	return "" // not reached
}

// sig3 formats v >= 0 with three significant digits (at least integer
// precision): 1.23, 12.3, 123, 1234.
func sig3(v float64) string {
	prec := 0
	switch {
	case v < 10:
		prec = 2
	case v < 100:
		prec = 1
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	// 9.999 -> "10.00" and 99.99 -> "100.0": re-format at the next magnitude.
	if r, err := strconv.ParseFloat(s, 64); err == nil && prec > 0 && r >= math.Pow(10, float64(3-prec)) {
		return sig3(r)
	}
	return s
}

// WriteJSON writes {"records": [...], "summaries": [...]} with the records
// sorted by Start and the summaries as Summaries returns them. Durations are
// integer nanoseconds in fields ending in _ns; see Record.MarshalJSON and
// Summary.MarshalJSON for the field names. The output decodes back into
// []Record and []Summary with encoding/json.
func (p *Profiler) WriteJSON(w io.Writer) error {
	recs := p.Records()
	doc := struct {
		Records   []Record  `json:"records"`
		Summaries []Summary `json:"summaries"`
	}{recs, Summarize(recs)}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

type recordJSON struct {
	Kind       Kind    `json:"kind"`
	Name       string  `json:"name"`
	Device     string  `json:"device"`
	Stream     int     `json:"stream"`
	StartNs    int64   `json:"start_ns"`
	EndNs      int64   `json:"end_ns"`
	DurationNs int64   `json:"duration_ns"`
	Bytes      int64   `json:"bytes"`
	Grid       *[3]int `json:"grid,omitempty"`
	Block      *[3]int `json:"block,omitempty"`
	Occupancy  float64 `json:"occupancy"`
	HostTimed  bool    `json:"host_timed"`
}

func dimJSON(d backend.Dim3) *[3]int {
	if d == (backend.Dim3{}) {
		return nil
	}
	return &[3]int{d.X, d.Y, d.Z}
}

func dimFromJSON(a *[3]int) backend.Dim3 {
	if a == nil {
		return backend.Dim3{}
	}
	return backend.Dim3{X: a[0], Y: a[1], Z: a[2]}
}

func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// MarshalJSON encodes r with the fields kind, name, device, stream,
// start_ns, end_ns, duration_ns (derived), bytes, grid and block ([x,y,z],
// left out when zero), occupancy and host_timed.
func (r Record) MarshalJSON() ([]byte, error) {
	return json.Marshal(recordJSON{
		Kind: r.Kind, Name: r.Name, Device: r.Device, Stream: r.Stream,
		StartNs: int64(r.Start), EndNs: int64(r.End), DurationNs: int64(r.Duration()),
		Bytes: r.Bytes, Grid: dimJSON(r.Grid), Block: dimJSON(r.Block),
		Occupancy: finite(r.Occupancy), HostTimed: r.HostTimed,
	})
}

// UnmarshalJSON decodes what MarshalJSON writes; duration_ns is ignored.
func (r *Record) UnmarshalJSON(b []byte) error {
	var j recordJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Record{
		Kind: j.Kind, Name: j.Name, Device: j.Device, Stream: j.Stream,
		Start: time.Duration(j.StartNs), End: time.Duration(j.EndNs),
		Bytes: j.Bytes, Grid: dimFromJSON(j.Grid), Block: dimFromJSON(j.Block),
		Occupancy: j.Occupancy, HostTimed: j.HostTimed,
	}
	return nil
}

type summaryJSON struct {
	Kind    Kind    `json:"kind"`
	Name    string  `json:"name"`
	Count   int     `json:"count"`
	TotalNs int64   `json:"total_ns"`
	MeanNs  int64   `json:"mean_ns"`
	MinNs   int64   `json:"min_ns"`
	MaxNs   int64   `json:"max_ns"`
	P50Ns   int64   `json:"p50_ns"`
	P95Ns   int64   `json:"p95_ns"`
	Bytes   int64   `json:"bytes"`
	GBps    float64 `json:"gbps"`
}

// MarshalJSON encodes s with the fields kind, name, count, total_ns,
// mean_ns, min_ns, max_ns, p50_ns, p95_ns, bytes and gbps.
func (s Summary) MarshalJSON() ([]byte, error) {
	return json.Marshal(summaryJSON{
		Kind: s.Kind, Name: s.Name, Count: s.Count,
		TotalNs: int64(s.Total), MeanNs: int64(s.Mean), MinNs: int64(s.Min), MaxNs: int64(s.Max),
		P50Ns: int64(s.P50), P95Ns: int64(s.P95), Bytes: s.Bytes, GBps: finite(s.GBps),
	})
}

// UnmarshalJSON decodes what MarshalJSON writes.
func (s *Summary) UnmarshalJSON(b []byte) error {
	var j summaryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Summary{
		Kind: j.Kind, Name: j.Name, Count: j.Count,
		Total: time.Duration(j.TotalNs), Mean: time.Duration(j.MeanNs),
		Min: time.Duration(j.MinNs), Max: time.Duration(j.MaxNs),
		P50: time.Duration(j.P50Ns), P95: time.Duration(j.P95Ns),
		Bytes: j.Bytes, GBps: j.GBps,
	}
	return nil
}

// traceEvent is one event of the Chrome trace event format.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// WriteChromeTrace writes the records in the Chrome trace event format
// ({"traceEvents": [...]}), which Perfetto (ui.perfetto.dev) and
// chrome://tracing open. Each device is a process (pid 1, 2, ... in device
// name order, named by a process_name metadata event such as "cuda:0"), each
// stream a thread (tid = stream id, named "stream 3" by a thread_name
// metadata event). Each record is a complete ("X") event named after the
// kernel (or the kind), with category = kind, ts and dur in microseconds
// (fractional), and args holding bytes, grid, block, occupancy and host_timed
// where they apply.
func (p *Profiler) WriteChromeTrace(w io.Writer) error {
	recs := p.Records()

	type thread struct {
		device string
		stream int
	}
	pids := map[string]int{}
	threads := map[thread]bool{}
	var devices []string
	var streams []thread
	for _, r := range recs {
		dev := deviceLabel(r.Device)
		if _, ok := pids[dev]; !ok {
			pids[dev] = 0
			devices = append(devices, dev)
		}
		t := thread{dev, r.Stream}
		if !threads[t] {
			threads[t] = true
			streams = append(streams, t)
		}
	}
	slices.Sort(devices)
	for i, d := range devices {
		pids[d] = i + 1
	}
	slices.SortFunc(streams, func(a, b thread) int {
		if pids[a.device] != pids[b.device] {
			return pids[a.device] - pids[b.device]
		}
		return a.stream - b.stream
	})

	events := make([]traceEvent, 0, len(devices)+len(streams)+len(recs))
	for _, d := range devices {
		events = append(events, traceEvent{
			Name: "process_name", Ph: "M", Pid: pids[d],
			Args: map[string]any{"name": d},
		})
	}
	for _, t := range streams {
		events = append(events, traceEvent{
			Name: "thread_name", Ph: "M", Pid: pids[t.device], Tid: t.stream,
			Args: map[string]any{"name": "stream " + strconv.Itoa(t.stream)},
		})
	}
	for _, r := range recs {
		name := r.Name
		if name == "" {
			name = string(r.Kind)
		}
		dur := float64(r.Duration()) / 1e3
		args := map[string]any{}
		if r.Bytes != 0 {
			args["bytes"] = r.Bytes
		}
		if r.Grid != (backend.Dim3{}) {
			args["grid"] = r.Grid.String()
		}
		if r.Block != (backend.Dim3{}) {
			args["block"] = r.Block.String()
		}
		if occ := finite(r.Occupancy); occ > 0 {
			args["occupancy"] = occ
		}
		if r.HostTimed {
			args["host_timed"] = true
		}
		if len(args) == 0 {
			args = nil
		}
		events = append(events, traceEvent{
			Name: name, Cat: string(r.Kind), Ph: "X",
			Ts: float64(r.Start) / 1e3, Dur: &dur,
			Pid: pids[deviceLabel(r.Device)], Tid: r.Stream, Args: args,
		})
	}
	enc := json.NewEncoder(w)
	return enc.Encode(struct {
		TraceEvents     []traceEvent `json:"traceEvents"`
		DisplayTimeUnit string       `json:"displayTimeUnit"`
	}{events, "ns"})
}

func deviceLabel(d string) string {
	if d == "" {
		return "device"
	}
	return d
}
