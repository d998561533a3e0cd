package profiling

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
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
// that moved no bytes and for allocations, compilations and ranges.
func (p *Profiler) WriteText(w io.Writer) error {
	if w == nil {
		return nilWriter("write text")
	}
	return writeText(w, p.Summaries())
}

// nilWriter is the error of a report asked to write to a nil io.Writer.
func nilWriter(op string) error {
	e := errors.E(errors.InvalidArgument, "", op, "nil writer")
	e.Hint = "pass the io.Writer to write to (a file, a bytes.Buffer)"
	return e
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
	if w == nil {
		return nilWriter("write json")
	}
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
// name order, after "host" for records of no device such as user ranges,
// named by a process_name metadata event such as "cuda:0"). Each stream is a
// thread named "cuda:0 stream 3", and the device's host work (allocations,
// compilations) a thread named "cuda:0 host", each by a thread_name metadata
// event; thread ids are 1, 2, ... within the process, host first, then the
// streams in id order. Records of one thread that overlap without nesting
// (ranges or allocations of concurrent goroutines) go to further threads of
// the same name with " #2", " #3" appended, so every thread's events nest.
// Each record is a complete ("X") event named after the kernel (or the
// kind), with category = kind, ts and dur in microseconds (fractional) on
// the profiler's one time axis, and args holding bytes, grid, block,
// occupancy and host_timed where they apply.
func (p *Profiler) WriteChromeTrace(w io.Writer) error {
	if w == nil {
		return nilWriter("write chrome trace")
	}
	recs := p.Records()
	// Outer before inner where ranges start together.
	slices.SortStableFunc(recs, func(a, b Record) int {
		if a.Start != b.Start {
			return cmp.Compare(a.Start, b.Start)
		}
		return cmp.Compare(b.End, a.End)
	})
	threads := assignThreads(recs)

	events := make([]traceEvent, 0, len(threads.procs)+len(threads.names)+len(recs))
	for _, d := range threads.procs {
		events = append(events, traceEvent{
			Name: "process_name", Ph: "M", Pid: threads.pid[d],
			Args: map[string]any{"name": d},
		})
	}
	for _, t := range threads.names {
		events = append(events, traceEvent{
			Name: "thread_name", Ph: "M", Pid: t.pid, Tid: t.tid,
			Args: map[string]any{"name": t.name},
		})
	}
	for i, r := range recs {
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
			Pid: threads.pid[deviceLabel(r.Device)], Tid: threads.tid[i], Args: args,
		})
	}
	enc := json.NewEncoder(w)
	return enc.Encode(struct {
		TraceEvents     []traceEvent `json:"traceEvents"`
		DisplayTimeUnit string       `json:"displayTimeUnit"`
	}{events, "ns"})
}

// traceThreads is where each record of a trace goes: process ids by device
// label, thread id by record index, and the names of the threads.
type traceThreads struct {
	procs []string       // device labels in pid order
	pid   map[string]int // device label -> pid
	tid   []int          // record index -> tid
	names []threadName   // in (pid, tid) order
}

type threadName struct {
	pid, tid int
	name     string
}

// assignThreads gives each record of recs (sorted by Start, then End
// descending) a process and a thread. A record goes to the first lane of
// its (device, stream) where it nests inside or follows the records there.
func assignThreads(recs []Record) traceThreads {
	type lane struct {
		device string
		stream int // < 0: the host
		n      int // 0, 1, ...: overlapping records spill into further lanes
	}
	ends := map[lane][]time.Duration{} // the ends of the lane's open records, outermost first
	laneOf := make([]lane, len(recs))
	pids := map[string]int{}
	for i, r := range recs {
		dev := deviceLabel(r.Device)
		pids[dev] = 0
		stream := r.Stream
		if stream < 0 {
			stream = -1
		}
		for l := (lane{dev, stream, 0}); ; l.n++ {
			open := ends[l]
			for len(open) > 0 && open[len(open)-1] <= r.Start {
				open = open[:len(open)-1]
			}
			if len(open) == 0 || r.End <= open[len(open)-1] {
				ends[l] = append(open, max(r.End, r.Start))
				laneOf[i] = l
				break
			}
			ends[l] = open
		}
	}

	t := traceThreads{pid: pids, tid: make([]int, len(recs))}
	for d := range pids {
		t.procs = append(t.procs, d)
	}
	slices.SortFunc(t.procs, func(a, b string) int {
		if (a == hostLabel) != (b == hostLabel) {
			if a == hostLabel {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	for i, d := range t.procs {
		pids[d] = i + 1
	}
	lanes := make([]lane, 0, len(ends))
	for l := range ends {
		lanes = append(lanes, l)
	}
	slices.SortFunc(lanes, func(a, b lane) int {
		return cmp.Or(cmp.Compare(pids[a.device], pids[b.device]), cmp.Compare(a.stream, b.stream), cmp.Compare(a.n, b.n))
	})
	tids := make(map[lane]int, len(lanes))
	for i, l := range lanes {
		tid := 1
		if i > 0 && lanes[i-1].device == l.device {
			tid = tids[lanes[i-1]] + 1
		}
		tids[l] = tid
		name := l.device + " host"
		if l.device == hostLabel {
			name = "ranges"
		}
		if l.stream >= 0 {
			name = l.device + " stream " + strconv.Itoa(l.stream)
		}
		if l.n > 0 {
			name += " #" + strconv.Itoa(l.n+1)
		}
		t.names = append(t.names, threadName{pid: pids[l.device], tid: tid, name: name})
	}
	for i, l := range laneOf {
		t.tid[i] = tids[l]
	}
	return t
}

// hostLabel is the process of records of no device.
const hostLabel = "host"

func deviceLabel(d string) string {
	if d == "" {
		return hostLabel
	}
	return d
}
