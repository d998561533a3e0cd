// Command pipeline streams batches through a GPU the way a data-loading
// pipeline does — copy a batch in, run a kernel on it, copy the result out —
// and shows that the three overlap: batch k+1's host-to-device copy, batch
// k's kernel and batch k-1's device-to-host copy run at once on different
// streams, so the pipeline moves data about as fast as the copy engines can
// in both directions together.
//
// Structure:
//
//   - a ring of pinned host slots (Device.AllocHost), an input and an output
//     HostBuffer per slot, each with the event recorded after the slot's
//     last use; batch k uses slot k % slots and waits for that event only;
//   - 3 or more streams (batch k on stream k % streams), each with its own
//     device buffers: Stream.WriteHost (H2D) → Stream.Launch (the built-in
//     scale kernel, out = 2·in) → Stream.ReadHost (D2H) → Stream.Record;
//   - before the pipeline runs, the bidirectional-copy bound is measured in
//     the same process: an H2D and a D2H of the same total size at once on
//     two streams, pinned; the pipeline's rate (bytes in + bytes out per
//     second) is reported against it;
//   - then a shorter run on a device opened with a profiler
//     (gpu.WithProfiler) writes a Chrome trace (profiling's
//     WriteChromeTrace; open it in ui.perfetto.dev) in which the copies and
//     kernels of different streams overlap, and the program reports how much
//     of the traced time had an H2D and a D2H in flight together.
//
// The host's part of each batch is small on purpose (the slots are filled
// once; each batch stamps its index into its input and checks it, and a
// sample, in its output), so what is measured is the device side of the
// pipeline. It runs on every backend, the CPU one included (there the
// "copies" are memory copies and the bound is two of them at once).
//
//	go run ./examples/pipeline                    # the default device
//	go run ./examples/pipeline -backend cpu -batch-mib 4
//	go run ./examples/pipeline -trace trace.json -json
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	_ "github.com/anygpu/gpu/backend/all"
	"github.com/anygpu/gpu/kernels"
	"github.com/anygpu/gpu/profiling"
)

type config struct {
	backend  string
	streams  int
	slots    int
	batches  int
	batchMiB int
	trace    string
	asJSON   bool
}

// report is what one run measured (the -json output).
type report struct {
	Device        string  `json:"device"`
	Backend       string  `json:"backend"`
	Streams       int     `json:"streams"`
	Slots         int     `json:"slots"`
	Batches       int     `json:"batches"`
	BatchBytes    int64   `json:"batch_bytes"`
	H2DGBps       float64 `json:"h2d_pinned_gbps"`
	D2HGBps       float64 `json:"d2h_pinned_gbps"`
	BidirGBps     float64 `json:"bidirectional_gbps"`
	PipelineGBps  float64 `json:"pipeline_gbps"`
	Ratio         float64 `json:"pipeline_over_bound"`
	Trace         string  `json:"trace,omitempty"`
	TraceRecords  int     `json:"trace_records,omitempty"`
	OverlapCopies float64 `json:"trace_copy_overlap,omitempty"`
	OverlapAny    float64 `json:"trace_any_overlap,omitempty"`
}

func main() {
	var c config
	flag.StringVar(&c.backend, "backend", "", "backend to use (default: the one gpu.Open picks)")
	flag.IntVar(&c.streams, "streams", 3, "streams (at least 3)")
	flag.IntVar(&c.slots, "slots", 0, "pinned slots in the ring (default 2 per stream)")
	flag.IntVar(&c.batches, "batches", 96, "batches in the timed run")
	flag.IntVar(&c.batchMiB, "batch-mib", 0, "MiB per batch (default 32 on GPUs, 4 on CPU-class devices)")
	flag.StringVar(&c.trace, "trace", "pipeline_trace.json", "Chrome trace of a profiled run (empty: none)")
	flag.BoolVar(&c.asJSON, "json", false, "print the report as JSON")
	flag.Parse()
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "pipeline:", err)
		os.Exit(1)
	}
}

func open(ctx context.Context, c config, opts ...gpu.Option) (*gpu.Device, error) {
	if c.backend != "" {
		opts = append(opts, gpu.WithBackends(c.backend), gpu.WithFallback(false))
	}
	return gpu.Open(ctx, opts...)
}

func run(ctx context.Context, c config) error {
	if c.streams < 3 {
		return fmt.Errorf("-streams %d: the pipeline needs at least 3", c.streams)
	}
	if c.slots == 0 {
		c.slots = 2 * c.streams
	}
	if c.slots < c.streams {
		return fmt.Errorf("-slots %d: at least one per stream (%d)", c.slots, c.streams)
	}
	dev, err := open(ctx, c)
	if err != nil {
		return err
	}
	defer dev.Close()
	if c.batchMiB == 0 {
		c.batchMiB = 32
		if t := dev.Info().Type; t == backend.TypeCPU || t == backend.TypeSoftware || dev.Simulated() {
			c.batchMiB = 4
		}
	}
	batch := int64(c.batchMiB) << 20
	rep := report{Device: dev.String(), Backend: dev.Backend(), Streams: c.streams, Slots: c.slots, Batches: c.batches, BatchBytes: batch}

	// The bound, in this process, on this device: pinned copies, one way
	// and both ways at once, of as many bytes as the pipeline moves in a
	// quarter of its batches (at least 8 batches).
	boundBytes := batch * int64(max(8, c.batches/4))
	if rep.H2DGBps, rep.D2HGBps, rep.BidirGBps, err = copyBound(ctx, dev, boundBytes); err != nil {
		return fmt.Errorf("measuring the copy bound: %w", err)
	}

	p, err := newPipeline(ctx, dev, c, batch)
	if err != nil {
		return err
	}
	if _, err := p.run(ctx, c.streams*2); err != nil { // warm-up: kernels, pools, staging
		p.close()
		return err
	}
	d, err := p.run(ctx, c.batches)
	p.close()
	if err != nil {
		return err
	}
	rep.PipelineGBps = float64(2*batch*int64(c.batches)) / d.Seconds() / 1e9
	rep.Ratio = rep.PipelineGBps / rep.BidirGBps

	if c.trace != "" {
		if err := traceRun(ctx, c, batch, &rep); err != nil {
			return fmt.Errorf("traced run: %w", err)
		}
	}
	if c.asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", " ")
		return enc.Encode(rep)
	}
	fmt.Printf("device    %s, %d streams, %d pinned slots, %d batches of %d MiB (in and out)\n",
		rep.Device, c.streams, c.slots, c.batches, c.batchMiB)
	fmt.Printf("bound     pinned H2D %.1f GB/s, D2H %.1f GB/s, both at once %.1f GB/s\n", rep.H2DGBps, rep.D2HGBps, rep.BidirGBps)
	fmt.Printf("pipeline  %.1f GB/s in+out = %.2f× the bidirectional-copy bound (every batch's output checked)\n", rep.PipelineGBps, rep.Ratio)
	if rep.Trace != "" {
		fmt.Printf("trace     %s: %d operations; an H2D and a D2H in flight together %.0f%% of the traced time, two or more operations %.0f%%\n",
			rep.Trace, rep.TraceRecords, 100*rep.OverlapCopies, 100*rep.OverlapAny)
	}
	return nil
}

// copyBound measures pinned H2D and D2H of n bytes alone and both at once on
// two streams (each direction n bytes); GB/s counts bytes moved either way.
func copyBound(ctx context.Context, dev *gpu.Device, n int64) (h2d, d2h, both float64, err error) {
	hIn, err := dev.AllocHost(n)
	if err != nil {
		return
	}
	defer hIn.Close()
	hOut, err := dev.AllocHost(n)
	if err != nil {
		return
	}
	defer hOut.Close()
	dIn, err := dev.Alloc(n)
	if err != nil {
		return
	}
	defer dIn.Close()
	dOut, err := dev.Alloc(n)
	if err != nil {
		return
	}
	defer dOut.Close()
	sa, err := dev.NewStream()
	if err != nil {
		return
	}
	defer sa.Close()
	sb, err := dev.NewStream()
	if err != nil {
		return
	}
	defer sb.Close()
	timeIt := func(f func() error) (float64, error) {
		var ds []time.Duration
		for i := range 4 { // one warm-up, median of three
			start := time.Now()
			if err := f(); err != nil {
				return 0, err
			}
			if err := sa.Synchronize(ctx); err != nil {
				return 0, err
			}
			if err := sb.Synchronize(ctx); err != nil {
				return 0, err
			}
			if i > 0 {
				ds = append(ds, time.Since(start))
			}
		}
		slices.Sort(ds)
		return ds[len(ds)/2].Seconds(), nil
	}
	t, err := timeIt(func() error { return sa.WriteHost(dIn, 0, hIn, 0, n) })
	if err != nil {
		return
	}
	h2d = float64(n) / t / 1e9
	if t, err = timeIt(func() error { return sb.ReadHost(hOut, 0, dOut, 0, n) }); err != nil {
		return
	}
	d2h = float64(n) / t / 1e9
	if t, err = timeIt(func() error {
		if err := sa.WriteHost(dIn, 0, hIn, 0, n); err != nil {
			return err
		}
		return sb.ReadHost(hOut, 0, dOut, 0, n)
	}); err != nil {
		return
	}
	both = float64(2*n) / t / 1e9
	return
}

// pipeline is the ring of pinned slots and the streams with their device buffers.
type pipeline struct {
	dev     *gpu.Device
	batch   int64
	n       int // float32s per batch
	scale   *gpu.Kernel
	mod     *gpu.Module
	grid    gpu.Dim3
	block   gpu.Dim3
	streams []*gpu.Stream
	dIn     []*gpu.Buffer // per stream
	dOut    []*gpu.Buffer
	in      []*gpu.HostBuffer // per slot
	out     []*gpu.HostBuffer
	done    []*gpu.Event // per slot: its last batch's D2H has completed
	owner   []int        // per slot: the batch whose output it holds, -1 for none
}

func newPipeline(ctx context.Context, dev *gpu.Device, c config, batch int64) (p *pipeline, err error) {
	p = &pipeline{dev: dev, batch: batch, n: int(batch / 4)}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	if p.mod, err = dev.Compile(ctx, kernels.Source()); err != nil {
		return nil, err
	}
	if p.scale, err = p.mod.Kernel(kernels.OpScale); err != nil {
		return nil, err
	}
	p.block = gpu.D1(256)
	groups := (p.n + 255) / 256
	if info := dev.Info(); info.Type != backend.TypeCPU && info.Units > 0 {
		groups = min(groups, 8*info.Units) // grid-stride, at most 8 groups per compute unit
	}
	p.grid = gpu.D1(groups)
	for range c.streams {
		s, err := dev.NewStream()
		if err != nil {
			return nil, err
		}
		p.streams = append(p.streams, s)
		for _, list := range []*[]*gpu.Buffer{&p.dIn, &p.dOut} {
			b, err := dev.Alloc(batch)
			if err != nil {
				return nil, err
			}
			*list = append(*list, b)
		}
	}
	for range c.slots {
		for _, list := range []*[]*gpu.HostBuffer{&p.in, &p.out} {
			h, err := dev.AllocHost(batch)
			if err != nil {
				return nil, err
			}
			*list = append(*list, h)
		}
		p.done = append(p.done, nil)
		p.owner = append(p.owner, -1)
	}
	// The input data: x[i] = i mod 1000; each batch stamps its index in x[0].
	for _, h := range p.in {
		b := h.Bytes()
		for i := 0; i < p.n; i++ {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(i%1000)))
		}
	}
	return p, nil
}

// run pushes batches through the pipeline and returns the wall time from
// the first enqueue until every output has arrived and been checked.
func (p *pipeline) run(ctx context.Context, batches int) (time.Duration, error) {
	start := time.Now()
	for k := 0; k < batches; k++ {
		slot, s := k%len(p.in), k%len(p.streams)
		if err := p.retire(ctx, slot); err != nil {
			return 0, err
		}
		binary.LittleEndian.PutUint32(p.in[slot].Bytes(), math.Float32bits(float32(k)))
		if err := p.streams[s].WriteHost(p.dIn[s], 0, p.in[slot], 0, p.batch); err != nil {
			return 0, err
		}
		if err := p.streams[s].Launch(p.scale, p.grid, p.block, gpu.Buf(p.dOut[s]), gpu.Buf(p.dIn[s]), gpu.U32(uint32(p.n)), gpu.F32(2)); err != nil {
			return 0, err
		}
		if err := p.streams[s].ReadHost(p.out[slot], 0, p.dOut[s], 0, p.batch); err != nil {
			return 0, err
		}
		ev, err := p.streams[s].Record()
		if err != nil {
			return 0, err
		}
		p.done[slot], p.owner[slot] = ev, k
	}
	for slot := range p.in {
		if err := p.retire(ctx, slot); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// retire waits for the slot's last batch and checks its output.
func (p *pipeline) retire(ctx context.Context, slot int) error {
	ev := p.done[slot]
	if ev == nil {
		return nil
	}
	err := ev.Synchronize(ctx)
	_ = ev.Close()
	p.done[slot] = nil
	if err != nil {
		return err
	}
	k := p.owner[slot]
	p.owner[slot] = -1
	out := p.out[slot].Bytes()
	at := func(i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])) }
	if got := at(0); got != 2*float32(k) {
		return fmt.Errorf("batch %d: out[0] = %v, want %v", k, got, 2*float32(k))
	}
	for _, i := range []int{1, 999, 1000, p.n / 2, p.n - 1} {
		if got, want := at(i), 2*float32(i%1000); got != want {
			return fmt.Errorf("batch %d: out[%d] = %v, want %v", k, i, got, want)
		}
	}
	return nil
}

func (p *pipeline) close() {
	for _, s := range p.streams {
		_ = s.Synchronize(context.Background())
	}
	for _, e := range p.done {
		if e != nil {
			_ = e.Close()
		}
	}
	for _, list := range [][]*gpu.HostBuffer{p.in, p.out} {
		for _, h := range list {
			_ = h.Close()
		}
	}
	for _, list := range [][]*gpu.Buffer{p.dIn, p.dOut} {
		for _, b := range list {
			_ = b.Close()
		}
	}
	for _, s := range p.streams {
		_ = s.Close()
	}
	if p.mod != nil {
		_ = p.mod.Close()
	}
}

// traceRun runs a few rounds of the pipeline on a device opened with a
// profiler, writes the Chrome trace and measures the overlap in it.
func traceRun(ctx context.Context, c config, batch int64, rep *report) error {
	prof := profiling.New()
	dev, err := open(ctx, c, gpu.WithProfiler(prof))
	if err != nil {
		return err
	}
	defer dev.Close()
	p, err := newPipeline(ctx, dev, c, batch)
	if err != nil {
		return err
	}
	if _, err := p.run(ctx, c.streams*2); err != nil {
		p.close()
		return err
	}
	_ = dev.Synchronize(ctx)
	prof.Reset() // trace the steady state, not the warm-up
	_, err = p.run(ctx, min(c.batches, 4*c.streams))
	p.close()
	if err != nil {
		return err
	}
	if err := dev.Synchronize(ctx); err != nil {
		return err
	}
	dev.Profiler() // collect what completed
	f, err := os.Create(c.trace)
	if err != nil {
		return err
	}
	if err := prof.WriteChromeTrace(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	recs := prof.Records()
	rep.Trace, rep.TraceRecords = c.trace, len(recs)
	rep.OverlapCopies, rep.OverlapAny = overlap(recs)
	return nil
}

// overlap returns the fractions of the records' span during which an H2D
// and a D2H were both in flight, and during which any two operations were.
func overlap(recs []profiling.Record) (copies, any float64) {
	type edge struct {
		t     time.Duration
		kind  profiling.Kind
		delta int
	}
	var edges []edge
	for _, r := range recs {
		switch r.Kind {
		case profiling.KindH2D, profiling.KindD2H, profiling.KindKernel:
			edges = append(edges, edge{r.Start, r.Kind, +1}, edge{r.End, r.Kind, -1})
		}
	}
	if len(edges) == 0 {
		return 0, 0
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.t != b.t {
			return int(a.t - b.t)
		}
		return a.delta - b.delta // ends before starts at the same instant
	})
	live := map[profiling.Kind]int{}
	total := 0
	var both, multi time.Duration
	span := edges[len(edges)-1].t - edges[0].t
	for i, e := range edges {
		if i > 0 {
			dt := e.t - edges[i-1].t
			if live[profiling.KindH2D] > 0 && live[profiling.KindD2H] > 0 {
				both += dt
			}
			if total >= 2 {
				multi += dt
			}
		}
		live[e.kind] += e.delta
		total += e.delta
	}
	if span <= 0 {
		return 0, 0
	}
	return float64(both) / float64(span), float64(multi) / float64(span)
}
