package profiling

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

func dim(x int) backend.Dim3 { return backend.Dim3{X: x, Y: 1, Z: 1} }

func fixedProfiler() *Profiler {
	p := New()
	for _, r := range fixedRecords() {
		p.Add(r)
	}
	return p
}

func TestFormatDuration(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{
		{0, "0ns"},
		{850, "850ns"},
		{999, "999ns"},
		{time.Microsecond, "1.00us"},
		{12345, "12.3us"},
		{123456, "123us"},
		{9999, "10.0us"},
		{99990, "100us"},
		{999700, "1.00ms"},
		{4560 * time.Microsecond, "4.56ms"},
		{210 * time.Millisecond, "210ms"},
		{1234 * time.Millisecond, "1.23s"},
		{2 * time.Hour, "7200s"},
		{-5 * time.Microsecond, "-5.00us"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, FormatDuration(c.d), "%d ns", int64(c.d))
	}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, fixedProfiler().WriteText(&b))
	out := b.String()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	require.Len(t, lines, 5, out)
	assert.Regexp(t, `^NAME\s+KIND\s+COUNT\s+TOTAL\s+MEAN\s+MIN\s+MAX\s+P50\s+P95\s+GB/s$`, lines[0])
	assert.Regexp(t, `^h2d\s+h2d\s+20\s+210ms\s+10.5ms\s+1.00ms\s+20.0ms\s+10.0ms\s+19.0ms\s+0.10$`, lines[1])
	assert.Regexp(t, `^d2h\s+d2h\s+1\s+1.00ms\s+1.00ms\s+1.00ms\s+1.00ms\s+1.00ms\s+1.00ms\s+2.00$`, lines[2])
	assert.Regexp(t, `^gemm\s+kernel\s+2\s+400us\s+200us\s+100us\s+300us\s+100us\s+300us\s+-$`, lines[3])
	assert.Regexp(t, `^saxpy\s+kernel\s+5\s+15.0us\s+3.00us\s+1.00us\s+5.00us\s+3.00us\s+5.00us\s+-$`, lines[4])
	// Aligned: every column starts at the same offset on every line.
	var starts []int
	for i := 1; i < len(lines[0]); i++ {
		if lines[0][i-1] == ' ' && lines[0][i] != ' ' {
			starts = append(starts, i)
		}
	}
	require.Len(t, starts, 9)
	for _, l := range lines[1:] {
		for _, i := range starts {
			require.Greater(t, len(l), i, l)
			assert.True(t, l[i-1] == ' ' && l[i] != ' ', "column at %d not aligned in %q", i, l)
		}
	}

	b.Reset()
	require.NoError(t, New().WriteText(&b))
	assert.True(t, strings.HasPrefix(b.String(), "NAME"))
}

func TestWriteJSONRoundTrip(t *testing.T) {
	p := fixedProfiler()
	p.Add(Record{Kind: KindPeer, Device: "cuda:1", Start: 5, End: 3, Bytes: 7, HostTimed: true}) // negative span
	var b bytes.Buffer
	require.NoError(t, p.WriteJSON(&b))

	var doc struct {
		Records   []Record  `json:"records"`
		Summaries []Summary `json:"summaries"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	assert.Equal(t, p.Records(), doc.Records)
	assert.Equal(t, p.Summaries(), doc.Summaries)

	// Stable field names, durations as integer nanoseconds.
	var raw struct {
		Records   []map[string]any `json:"records"`
		Summaries []map[string]any `json:"summaries"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &raw))
	first := raw.Records[0] // sorted by Start: the first saxpy, at 0
	assert.Equal(t, "kernel", first["kind"])
	assert.Equal(t, "saxpy", first["name"])
	assert.Equal(t, "cuda:0", first["device"])
	assert.Equal(t, 0.0, first["start_ns"])
	assert.Equal(t, 5000.0, first["end_ns"])
	assert.Equal(t, 5000.0, first["duration_ns"])
	assert.Equal(t, []any{4096.0, 1.0, 1.0}, first["grid"])
	assert.Equal(t, []any{256.0, 1.0, 1.0}, first["block"])
	assert.Equal(t, 1.0, first["occupancy"])
	assert.Equal(t, false, first["host_timed"])
	for _, k := range []string{"kind", "name", "device", "stream", "start_ns", "end_ns", "duration_ns", "bytes", "occupancy", "host_timed"} {
		for _, r := range raw.Records {
			assert.Contains(t, r, k)
		}
	}
	s := raw.Summaries[0]
	for _, k := range []string{"kind", "name", "count", "total_ns", "mean_ns", "min_ns", "max_ns", "p50_ns", "p95_ns", "bytes", "gbps"} {
		assert.Contains(t, s, k)
	}
	assert.Equal(t, "h2d", s["kind"])
	assert.Equal(t, float64(210*time.Millisecond), s["total_ns"])
	assert.Equal(t, float64(19*time.Millisecond), s["p95_ns"])

	// Empty: arrays, not null.
	b.Reset()
	require.NoError(t, New().WriteJSON(&b))
	assert.JSONEq(t, `{"records":[],"summaries":[]}`, b.String())
}

func TestWriteChromeTrace(t *testing.T) {
	p := New()
	p.Add(Record{Kind: KindKernel, Name: "saxpy", Device: "cuda:0", Stream: 3, Start: 1500, End: 4000,
		Bytes: 4096, Grid: dim(16), Block: dim(256), Occupancy: 0.75})
	p.Add(Record{Kind: KindH2D, Device: "cuda:0", Stream: 0, Start: 0, End: 1000, Bytes: 1 << 20})
	p.Add(Record{Kind: KindKernel, Name: "saxpy", Device: "cpu:0", Stream: 0, Start: 200, End: 90200, HostTimed: true})
	p.Add(Record{Kind: KindD2H, Device: "cuda:0", Stream: 3, Start: 5000, End: 5500, Bytes: 4096})

	var b bytes.Buffer
	require.NoError(t, p.WriteChromeTrace(&b))
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Cat  string         `json:"cat"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Dur  *float64       `json:"dur"`
			Pid  int            `json:"pid"`
			Tid  int            `json:"tid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	// 2 devices (process_name) + 3 streams (thread_name: cpu:0/0, cuda:0/0, cuda:0/3) + 4 records.
	require.Len(t, doc.TraceEvents, 2+3+4)

	procs := map[int]string{}
	threads := map[[2]int]string{}
	var complete int
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "M":
			switch e.Name {
			case "process_name":
				procs[e.Pid] = e.Args["name"].(string)
			case "thread_name":
				threads[[2]int{e.Pid, e.Tid}] = e.Args["name"].(string)
			default:
				t.Errorf("unexpected metadata %q", e.Name)
			}
		case "X":
			complete++
			require.NotNil(t, e.Dur)
		default:
			t.Errorf("unexpected phase %q", e.Ph)
		}
	}
	assert.Equal(t, map[int]string{1: "cpu:0", 2: "cuda:0"}, procs)
	assert.Equal(t, map[[2]int]string{{1, 1}: "cpu:0 stream 0", {2, 1}: "cuda:0 stream 0", {2, 2}: "cuda:0 stream 3"}, threads)
	assert.Equal(t, 4, complete)

	// Complete events in Start order, times in microseconds.
	x := doc.TraceEvents[5:]
	assert.Equal(t, "h2d", x[0].Name)
	assert.Equal(t, "h2d", x[0].Cat)
	assert.Equal(t, 0.0, x[0].Ts)
	assert.Equal(t, 1.0, *x[0].Dur)
	assert.Equal(t, map[string]any{"bytes": float64(1 << 20)}, x[0].Args)

	cpu := x[1]
	assert.Equal(t, "saxpy", cpu.Name)
	assert.Equal(t, 1, cpu.Pid)
	assert.Equal(t, 0.2, cpu.Ts)
	assert.Equal(t, 90.0, *cpu.Dur)
	assert.Equal(t, true, cpu.Args["host_timed"])

	k := x[2]
	assert.Equal(t, "saxpy", k.Name)
	assert.Equal(t, "kernel", k.Cat)
	assert.Equal(t, 2, k.Pid)
	assert.Equal(t, 2, k.Tid)
	assert.Equal(t, 1.5, k.Ts)
	assert.Equal(t, 2.5, *k.Dur)
	assert.Equal(t, map[string]any{"bytes": 4096.0, "grid": "(16,1,1)", "block": "(256,1,1)", "occupancy": 0.75}, k.Args)

	assert.Equal(t, "d2h", x[3].Name)
	assert.Equal(t, 5.0, x[3].Ts)
	assert.Equal(t, 0.5, *x[3].Dur)

	// Empty profiler: a valid, empty trace.
	b.Reset()
	require.NoError(t, New().WriteChromeTrace(&b))
	assert.JSONEq(t, `{"traceEvents":[],"displayTimeUnit":"ns"}`, b.String())
}

// Host work and ranges get positive, named thread ids, and overlapping
// records that do not nest go to further threads so that each nests.
func TestWriteChromeTraceThreads(t *testing.T) {
	p := New()
	p.Add(Record{Kind: KindAlloc, Device: "cuda:0", Stream: -1, Start: 0, End: 10, HostTimed: true})
	p.Add(Record{Kind: KindKernel, Name: "k", Device: "cuda:0", Stream: 0, Start: 20, End: 30})
	p.Add(Record{Kind: KindRange, Name: "outer", Stream: -1, Start: 0, End: 100})
	p.Add(Record{Kind: KindRange, Name: "inner", Stream: -1, Start: 10, End: 50})
	p.Add(Record{Kind: KindRange, Name: "other goroutine", Stream: -1, Start: 40, End: 150}) // overlaps, does not nest
	p.Add(Record{Kind: KindRange, Name: "after", Stream: -1, Start: 100, End: 120})          // follows outer

	var b bytes.Buffer
	require.NoError(t, p.WriteChromeTrace(&b))
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Dur  float64        `json:"dur"`
			Pid  int            `json:"pid"`
			Tid  int            `json:"tid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	procs := map[int]string{}
	threads := map[[2]int]string{}
	where := map[string][2]int{}
	for _, e := range doc.TraceEvents {
		require.Positive(t, e.Pid)
		if e.Name != "process_name" { // a process's name has no thread
			require.Positive(t, e.Tid, e.Name)
		}
		switch {
		case e.Name == "process_name":
			procs[e.Pid] = e.Args["name"].(string)
		case e.Name == "thread_name":
			threads[[2]int{e.Pid, e.Tid}] = e.Args["name"].(string)
		default:
			where[e.Name] = [2]int{e.Pid, e.Tid}
		}
	}
	assert.Equal(t, map[int]string{1: "host", 2: "cuda:0"}, procs)
	assert.Equal(t, map[[2]int]string{
		{1, 1}: "ranges", {1, 2}: "ranges #2",
		{2, 1}: "cuda:0 host", {2, 2}: "cuda:0 stream 0",
	}, threads)
	assert.Equal(t, map[string][2]int{
		"outer": {1, 1}, "inner": {1, 1}, "after": {1, 1}, "other goroutine": {1, 2},
		"alloc": {2, 1}, "k": {2, 2},
	}, where)
}

func TestSummarizeNoThroughputWithoutData(t *testing.T) {
	for _, k := range []Kind{KindAlloc, KindCompile, KindRange} {
		s := Summarize([]Record{{Kind: k, Start: 0, End: ms, Bytes: 1 << 20}})
		require.Len(t, s, 1)
		assert.Zero(t, s[0].GBps, k)
		var b bytes.Buffer
		require.NoError(t, writeText(&b, s))
		assert.Regexp(t, `\s-\n$`, b.String(), k)
	}
	for _, k := range []Kind{KindH2D, KindCollective} {
		s := Summarize([]Record{{Kind: k, Start: 0, End: ms, Bytes: 1e6}})
		assert.InDelta(t, 1.0, s[0].GBps, 1e-9, k)
	}
}

// TestReportsRefuseNilWriter: every report writer returns InvalidArgument
// for a nil io.Writer instead of panicking.
func TestReportsRefuseNilWriter(t *testing.T) {
	p := New()
	p.Add(Record{Kind: KindKernel, Name: "k", Device: "cpu:0", End: time.Microsecond})
	writers := map[string]func(io.Writer) error{
		"text": p.WriteText, "json": p.WriteJSON, "chrome": p.WriteChromeTrace, "pprof": p.WritePprof,
	}
	for name, write := range writers {
		t.Run(name, func(t *testing.T) {
			err := write(nil)
			require.Error(t, err)
			assert.True(t, errors.Is(err, errors.InvalidArgument), "%v", err)
		})
	}
}
