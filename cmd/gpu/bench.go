package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/anygpu/gpu"
	gerrors "github.com/anygpu/gpu/errors"
)

const benchUsage = `usage: gpu bench [--backend NAME[,NAME...]|all] [--metrics NAME[,NAME...]] [--json] [--quick]
                 [--peers] [--baseline FILE [--tolerance PCT]]

Measures, on each chosen backend: h2d_pinned_gbps d2h_pinned_gbps
h2d_pageable_gbps d2h_pageable_gbps d2d_gbps launch_us saxpy_gbps reduce_gbps
sgemm_tflops alloc_free_us compile_cold_ms compile_warm_ms (256 MiB transfers,
64 Mi-element saxpy and reduce, 4096³ sgemm — 2048³ on CPU, software and
simulated devices, and the size used is reported — and 1 MiB allocations),
and where the backend has a matrix library (CUDA: cuBLASLt; the CPU:
float32 only) matmul_bf16_tflops (8192³) and matmul_f32_tflops (4096³, no
TF32). Each metric is warmed up once and
the median of several runs is reported; kernel results are checked against
host references. See 'go doc github.com/anygpu/gpu/cmd/gpu' for what each
metric measures exactly.

flags:
  --backend NAME   the backend(s) to measure: a name, a comma-separated list,
                   or "all" for every available backend (default: the device
                   gpu.Open picks, which honours ANYGPU_BACKEND and ANYGPU_DEVICE)
  --metrics NAMES  measure only these metrics (comma-separated names from the
                   list above; default: all of them)
  --json           print JSON: the metrics by name (the names peers.py uses),
                   one object per backend
  --quick          small sizes and few runs: finishes in seconds
  --peers          then run the peers, with the same sizes, and print each
                   metric beside theirs: PyTorch and CuPy for GPU backends
                   (needs torch and cupy with CUDA), NumPy for the CPU backend
                   (needs numpy). The script is built into this tool (gpu
                   bench --peers-script prints it); $ANYGPU_PYTHON names the
                   interpreter (default python3)
  --peers-script   print the peers script and exit
  --baseline FILE  compare with an earlier 'gpu bench --json' run saved in
                   FILE: every metric more than --tolerance percent worse
                   (a lower throughput, a longer time) is listed and the
                   exit status is 1
  --tolerance PCT  the regression threshold of --baseline (default 5)

The exit status is 1 when a device cannot be opened, a metric fails (the
other metrics are still reported), the peers cannot be run or a metric
regressed against --baseline; 2 on a usage error.
`

// result is what bench measured on one backend.
type result struct {
	Backend    string // "cuda"; the requested name when the device did not open
	DeviceName string // "cuda:0"
	Device     string // the device's model
	DeviceType string // "discrete GPU", "CPU", ...
	Units      int    // SMs, compute units or cores
	Simulated  bool   // a stand-in from ANYGPU_FAKE
	Quick      bool   // --quick sizes
	Sizes      sizes  // the sizes used
	Clock      string // how device work was timed: clockEvents or clockWall
	Values     map[string]float64
	Errors     map[string]string
	Err        error         // the device could not be opened
	Elapsed    time.Duration // wall time of the whole run
}

// target is one backend to benchmark: opened when its turn comes, so only one
// device is open at a time.
type target struct {
	name string // "" for the device gpu.Open picks
	open func(ctx context.Context) (*gpu.Device, error)
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	backendFlag := fs.String("backend", "", "backend(s) to measure, or all")
	asJSON := fs.Bool("json", false, "print JSON")
	quick := fs.Bool("quick", false, "small sizes")
	metricsFlag := fs.String("metrics", "", "metrics to measure (default: all)")
	withPeers := fs.Bool("peers", false, "run the peers too")
	printScript := fs.Bool("peers-script", false, "print the peers script")
	baselineFile := fs.String("baseline", "", "an earlier gpu bench --json output")
	tolerance := fs.Float64("tolerance", defaultTolerance, "regression threshold in percent")
	if code, ok := parseFlags(fs, benchUsage, args, stdout, stderr); !ok {
		return code
	}
	if *printScript {
		_, _ = stdout.Write(peersScript)
		return exitOK
	}
	if *tolerance < 0 {
		fmt.Fprintf(stderr, "gpu bench: --tolerance %g: want a percentage of 0 or more\n%s", *tolerance, benchUsage)
		return exitUsage
	}
	var base baseline
	if *baselineFile != "" {
		var err error
		if base, err = loadBaseline(*baselineFile); err != nil {
			fmt.Fprintf(stderr, "gpu bench: %v\n", err)
			return exitUsage
		}
	}
	chosen, err := selectMetrics(*metricsFlag)
	if err != nil {
		fmt.Fprintf(stderr, "gpu bench: %v\n%s", err, benchUsage)
		return exitUsage
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	targets, code, err := chooseTargets(ctx, *backendFlag, logger)
	if err != nil {
		fmt.Fprintf(stderr, "gpu bench: %v\n", err)
		return code
	}
	prog := newProgress(stderr)
	results := make([]*result, 0, len(targets))
	for i, t := range targets {
		res := benchTarget(ctx, t, *quick, chosen, func(metric string, m, n int) {
			label := t.name
			if label == "" {
				label = "default"
			}
			prog.show("gpu bench: %s (%d/%d)  %s  [%d/%d]", label, i+1, len(targets), metric, m, n)
		})
		results = append(results, res)
		if ctx.Err() != nil {
			break
		}
	}
	prog.done()
	status := exitOK
	extra := map[string]any{}
	var peers *peerFigures
	if *withPeers && ctx.Err() == nil {
		if sz, ok := measuredSizes(results); ok {
			prog.show("gpu bench: running the peers (peers.py)")
			p, err := runPeers(ctx, *quick, sz, stderr)
			prog.done()
			if err != nil {
				fmt.Fprintf(stderr, "gpu bench: %v\n", err)
				status = exitFail
			} else {
				peers = p
				extra["peers"] = p.Raw
			}
		}
	}
	var regs []regression
	compared := 0
	if base != nil {
		regs, compared = compareBaseline(results, base, *tolerance)
		extra["baseline"] = map[string]any{"file": *baselineFile, "tolerance_percent": *tolerance,
			"compared": compared, "regressions": regs}
		if len(regs) > 0 {
			status = exitFail
		}
	}
	if *asJSON {
		if err := writeJSON(stdout, results, extra); err != nil {
			fmt.Fprintf(stderr, "gpu bench: %v\n", err)
			return exitFail
		}
	} else {
		writeTable(stdout, results)
		if peers != nil {
			writePeerTable(stdout, results, peers)
		}
		if base != nil {
			writeBaseline(stdout, *baselineFile, regs, compared, *tolerance)
		}
	}
	for _, r := range results {
		if r.Err != nil {
			if *asJSON { // the table shows it already
				fmt.Fprintf(stderr, "gpu bench: %s: %v\n", labelOf(r), r.Err)
			}
			status = exitFail
		}
		for _, name := range metricNames() {
			if msg, ok := r.Errors[name]; ok {
				if *asJSON { // the table shows them already
					fmt.Fprintf(stderr, "gpu bench: %s %s: %s\n", labelOf(r), name, msg)
				}
				status = exitFail
			}
		}
	}
	return status
}

// measuredSizes returns the sizes of the first backend that was measured.
func measuredSizes(results []*result) (sizes, bool) {
	for _, r := range results {
		if r.Err == nil {
			return r.Sizes, true
		}
	}
	return sizes{}, false
}

func labelOf(r *result) string {
	if r.Backend == "" {
		return "default device"
	}
	return r.Backend
}

// chooseTargets turns --backend into the backends to measure. It returns
// exitUsage with an error for an unknown name, exitFail when "all" finds no
// available backend.
func chooseTargets(ctx context.Context, spec string, logger *slog.Logger) ([]target, int, error) {
	spec = strings.TrimSpace(spec)
	named := func(name string) target {
		return target{name: name, open: func(ctx context.Context) (*gpu.Device, error) {
			return gpu.Open(ctx, gpu.WithBackends(name), gpu.WithFallback(false), gpu.WithLogger(logger))
		}}
	}
	switch spec {
	case "":
		return []target{{open: func(ctx context.Context) (*gpu.Device, error) {
			return gpu.Open(ctx, gpu.WithLogger(logger))
		}}}, exitOK, nil
	case "all":
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		var out []target
		for _, st := range gpu.Probe(pctx).Backends {
			if st.State == gpu.Available {
				out = append(out, named(st.Name))
			}
		}
		if len(out) == 0 {
			return nil, exitFail, fmt.Errorf("no backend is available (run 'gpu info' to see why)")
		}
		return out, exitOK, nil
	}
	known := knownBackends()
	var out []target
	var seen []string
	for _, name := range strings.Split(spec, ",") {
		name = strings.TrimSpace(name)
		if name == "" || slices.Contains(seen, name) {
			continue
		}
		if !slices.Contains(known, name) {
			return nil, exitUsage, fmt.Errorf("unknown backend %q: known backends are %s, or \"all\" for every available one",
				name, strings.Join(known, ", "))
		}
		seen = append(seen, name)
		out = append(out, named(name))
	}
	if len(out) == 0 {
		return nil, exitUsage, fmt.Errorf("--backend names no backend")
	}
	return out, exitOK, nil
}

// knownBackends lists every name --backend accepts: the default selection
// order, the registered backends, and those ANYGPU_FAKE simulates.
func knownBackends() []string {
	out := slices.Clone(gpu.DefaultOrder)
	add := func(n string) {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, n := range gpu.Backends() {
		add(n)
	}
	for _, item := range strings.Split(os.Getenv(gpu.EnvFake), ",") {
		name, _, _ := strings.Cut(item, ":")
		add(strings.TrimSpace(name))
	}
	return out
}

// session is an opened device and the runner measuring on it.
type session struct {
	dev *gpu.Device
	r   *runner
}

func openSession(ctx context.Context, t target, quick bool) (*session, error) {
	dev, err := t.open(ctx)
	if err != nil {
		return nil, err
	}
	r, err := newRunner(ctx, dev, sizesFor(dev.Info(), dev.Simulated(), quick))
	if err != nil {
		_ = dev.Close()
		return nil, err
	}
	return &session{dev: dev, r: r}, nil
}

func (s *session) close() {
	s.r.close()
	_ = s.dev.Close()
}

// maxReopens is how often a device that a metric made unusable is reopened.
const maxReopens = 3

// selectMetrics turns --metrics into the metrics to run, in their usual
// order; "" is all of them.
func selectMetrics(spec string) ([]metric, error) {
	if strings.TrimSpace(spec) == "" {
		return metrics, nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(spec, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !slices.Contains(metricNames(), name) {
			return nil, fmt.Errorf("unknown metric %q (known: %s)", name, strings.Join(metricNames(), ", "))
		}
		want[name] = true
	}
	var out []metric
	for _, m := range metrics {
		if want[m.name] {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--metrics names no metric")
	}
	return out, nil
}

// benchTarget opens the target's device, measures the chosen metrics on it and
// closes it. step is called before each metric. A metric that leaves the
// device unusable (a fatal error: a sticky CUDA fault, a lost device) fails
// alone: the device is reopened for the metrics after it.
func benchTarget(ctx context.Context, t target, quick bool, metrics []metric, step func(metric string, i, n int)) *result {
	start := time.Now()
	res := &result{Backend: t.name, Quick: quick, Values: map[string]float64{}, Errors: map[string]string{}}
	defer func() { res.Elapsed = time.Since(start) }()
	step("opening the device", 0, len(metrics))
	s, err := openSession(ctx, t, quick)
	if err != nil {
		res.Err = err
		return res
	}
	info := s.dev.Info()
	res.Backend, res.DeviceName, res.Device = s.dev.Backend(), s.dev.Name(), info.Name
	res.DeviceType, res.Units, res.Simulated = info.Type.String(), info.Units, s.dev.Simulated()
	res.Sizes, res.Clock = s.r.sz, s.r.timer.clock
	group, reopens, lost := "", 0, ""
	for i, m := range metrics {
		if err := ctx.Err(); err != nil {
			res.Errors[m.name] = "not run: " + err.Error()
			continue
		}
		if s == nil {
			res.Errors[m.name] = "not run: " + lost
			continue
		}
		if m.group != group {
			s.r.endGroup()
			group = m.group
		}
		step(m.name, i+1, len(metrics))
		v, err := s.r.measure(m)
		res.Clock = s.r.timer.clock
		if err == nil {
			res.Values[m.name] = v
			continue
		}
		if errors.Is(err, errNotApplicable) {
			continue // neither a number nor an error (libmatmul.go)
		}
		res.Errors[m.name] = err.Error()
		if !gerrors.IsFatal(err) && gerrors.CategoryOf(err) != gerrors.DeviceLost {
			continue
		}
		// Reopen the device so that the other metrics still run.
		s.close()
		s, group = nil, ""
		if reopens++; reopens > maxReopens {
			lost = fmt.Sprintf("the device became unusable %d times", reopens)
			continue
		}
		if s, err = openSession(ctx, t, quick); err != nil {
			lost = "the device became unusable and reopening it failed: " + err.Error()
			continue
		}
		s.r.timer.clock = res.Clock
	}
	if s != nil {
		s.close()
	}
	return res
}
