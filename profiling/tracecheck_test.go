package profiling_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/backendtest"
	_ "github.com/anygpu/gpu/backend/sim"    // simulated CUDA devices, for two devices anywhere
	_ "github.com/anygpu/gpu/backend/vulkan" // lavapipe, where present
	"github.com/anygpu/gpu/profiling"
)

// The Chrome trace check loads a trace into the Chrome DevTools performance
// panel's trace engine (the npm package @paulirish/trace_engine, run by node
// through testdata/tracecheck/check.mjs). testdata/tracecheck/install.sh
// installs the engine in $ANYGPU_TRACECHECK_DIR, else
// $TMPDIR/anygpu-tracecheck. Without node or the engine the test skips,
// unless ANYGPU_TEST_REQUIRE names tracecheck: then it fails.
const (
	envTraceCheckDir = "ANYGPU_TRACECHECK_DIR"
	traceCheckTag    = "tracecheck"
)

// traceEngine returns node's path and the node_modules directory holding the
// trace engine, or skips (fails, when required) saying how to get them.
func traceEngine(t *testing.T) (node, modules string) {
	t.Helper()
	unavailable := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...) + "; run profiling/testdata/tracecheck/install.sh (node and npm needed)"
		if backendtest.Required(traceCheckTag) {
			t.Fatalf("%s names %s: %s", backendtest.EnvRequire, traceCheckTag, msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("no node on PATH: %v", err)
	}
	dir := os.Getenv(envTraceCheckDir)
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "anygpu-tracecheck")
	}
	modules = filepath.Join(dir, "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "@paulirish", "trace_engine", "package.json")); err != nil {
		unavailable("the trace engine is not installed in %s (%s): %v", dir, envTraceCheckDir, err)
	}
	return node, modules
}

// engineView is what check.mjs prints: the trace as the engine models it.
type engineView struct {
	Generic   bool `json:"generic"`
	Processes []struct {
		Pid     int    `json:"pid"`
		Name    string `json:"name"`
		Threads []struct {
			Tid    int           `json:"tid"`
			Name   string        `json:"name"`
			Depth  int           `json:"depth"`
			Events []engineEvent `json:"events"`
		} `json:"threads"`
	} `json:"processes"`
}

// engineEvent is one event as the engine lists it, with where it put it.
type engineEvent struct {
	Name    string  `json:"name"`
	Cat     string  `json:"cat"`
	Ts      float64 `json:"ts"`  // µs
	Dur     float64 `json:"dur"` // µs
	process string
	thread  string
}

// loadInTraceEngine writes p's Chrome trace and returns every event the
// trace engine found in it, in start order.
func loadInTraceEngine(t *testing.T, p *profiling.Profiler, node, modules string) []engineEvent {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "trace.json")
	var buf bytes.Buffer
	require.NoError(t, p.WriteChromeTrace(&buf))
	require.NoError(t, os.WriteFile(trace, buf.Bytes(), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "tracecheck", "check.mjs"), modules, trace)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "the trace engine failed on the trace:\n%s", stderr.String())
	var view engineView
	require.NoError(t, json.Unmarshal(out, &view), "%s", out)
	var events []engineEvent
	for _, proc := range view.Processes {
		for _, th := range proc.Threads {
			assert.LessOrEqual(t, th.Depth, 1, "%s: nothing nests in a sequential profile", th.Name)
			for _, e := range th.Events {
				e.process, e.thread = proc.Name, th.Name
				events = append(events, e)
			}
		}
	}
	slices.SortStableFunc(events, func(a, b engineEvent) int {
		switch {
		case a.Ts < b.Ts:
			return -1
		case a.Ts > b.Ts:
			return 1
		}
		return 0
	})
	return events
}

// wantThread is the thread WriteChromeTrace documents for r: the device's
// stream, the device's host work, or the ranges of the host process.
func wantThread(r profiling.Record) (process, thread string) {
	switch {
	case r.Device == "":
		return "host", "ranges"
	case r.Stream < 0:
		return r.Device, r.Device + " host"
	}
	return r.Device, fmt.Sprintf("%s stream %d", r.Device, r.Stream)
}

// TestChromeTraceInTraceEngine: the Chrome trace of a profile of two devices
// doing strictly sequential work loads in the Chrome DevTools trace engine
// with every record present, on its device's process and named thread, at
// its time, and the work shown sequential: in the engine's start order,
// each device operation ends before the next begins, in the order issued.
func TestChromeTraceInTraceEngine(t *testing.T) {
	node, modules := traceEngine(t)
	ctx := context.Background()
	quiet := gpu.WithLogger(slog.New(slog.DiscardHandler))
	for _, tc := range []struct {
		name string
		open func(p *profiling.Profiler) ([]*gpu.Device, error)
	}{
		{"two simulated CUDA devices", func(p *profiling.Profiler) ([]*gpu.Device, error) {
			return gpu.OpenAll(ctx, gpu.WithFake("cuda:h100,cuda:a100"), gpu.WithBackends("cuda"), gpu.WithProfiler(p), quiet)
		}},
		{"the CPU and Vulkan", func(p *profiling.Profiler) ([]*gpu.Device, error) {
			vk, err := gpu.Open(ctx, gpu.WithBackends("vulkan"), gpu.WithFallback(false), gpu.WithFake(""), gpu.WithProfiler(p), quiet)
			if err != nil {
				return nil, err
			}
			cpu, err := gpu.Open(ctx, gpu.WithBackends("cpu"), gpu.WithProfiler(p), quiet)
			if err != nil {
				return nil, gpu.CloseAll([]*gpu.Device{vk})
			}
			return []*gpu.Device{cpu, vk}, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := profiling.New()
			devs, err := tc.open(p)
			if err != nil {
				t.Skipf("no such devices here: %v", err)
			}
			defer func() { require.NoError(t, gpu.CloseAll(devs)) }()
			require.Len(t, devs, 2)

			type op struct {
				kind   string
				device string
			}
			var issued []op
			data := make([]byte, 256<<10)
			for round := range 3 {
				end := p.Range(fmt.Sprintf("round %d", round))
				for _, d := range devs {
					b, err := d.Alloc(int64(len(data)))
					require.NoError(t, err)
					s := d.DefaultStream()
					require.NoError(t, s.Write(b, 0, data))
					require.NoError(t, s.Fill(b, 0, int64(len(data)), 7))
					require.NoError(t, s.Read(data, b, 0))
					require.NoError(t, s.Synchronize(ctx))
					require.NoError(t, b.Close())
					for _, k := range []profiling.Kind{profiling.KindAlloc, profiling.KindH2D, profiling.KindFill, profiling.KindD2H} {
						issued = append(issued, op{string(k), d.Name()})
					}
				}
				end()
			}
			for _, d := range devs {
				_ = d.Profiler() // collects the completed records
			}
			recs := p.Records()
			events := loadInTraceEngine(t, p, node, modules)

			// Every record, once, on its named thread at its time.
			const tolerance = 0.002 // µs: the trace's fractional microseconds
			unmatched := slices.Clone(events)
			for _, r := range recs {
				process, thread := wantThread(r)
				name := r.Name
				if name == "" {
					name = string(r.Kind)
				}
				i := slices.IndexFunc(unmatched, func(e engineEvent) bool {
					return e.Name == name && e.Cat == string(r.Kind) && e.process == process && e.thread == thread &&
						math.Abs(e.Ts-float64(r.Start)/1e3) < tolerance && math.Abs(e.Dur-float64(r.Duration())/1e3) < tolerance
				})
				if !assert.GreaterOrEqual(t, i, 0, "record %s %q of %s at %v (%v) is not on thread %q of process %q in the engine's view: %+v",
					r.Kind, r.Name, r.Device, r.Start, r.Duration(), thread, process, unmatched) {
					continue
				}
				unmatched = slices.Delete(unmatched, i, i+1)
			}
			assert.Empty(t, unmatched, "events the engine shows that no record made")

			// Sequential work shown sequential, in the order issued.
			var work []engineEvent
			for _, e := range events {
				if e.process != "host" {
					work = append(work, e)
				}
			}
			require.Len(t, work, len(issued))
			for i, e := range work {
				assert.Equal(t, issued[i], op{e.Cat, e.process}, "device operation %d in the engine's start order", i)
				if i > 0 {
					prev := work[i-1]
					assert.LessOrEqual(t, prev.Ts+prev.Dur, e.Ts+tolerance, "%s on %q (ends %.3fµs) overlaps %s on %q (starts %.3fµs)",
						prev.Cat, prev.thread, prev.Ts+prev.Dur, e.Cat, e.thread, e.Ts)
				}
			}
		})
	}
}
