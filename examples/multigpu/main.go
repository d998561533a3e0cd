// Command multigpu splits two workloads across every device of a backend and
// reports how they scale with the number of devices:
//
//   - saxpy (y = a·x + y over N floats): each device takes N/k elements;
//   - sgemm (C = A·B, n×n×n): each device computes n/k rows of C from its
//     rows of A and all of B, then the row blocks are gathered on device 0
//     with peer copies (Stream.Copy across devices, ordered by events).
//
// For k = 1 .. the number of devices it times the work (data already on the
// devices; wall clock from the first launch to the last device's
// synchronize, median of -reps runs after a warm-up), checks sampled results
// against a host reference, and prints the throughput and the speedup over
// one device. It runs anywhere: on a machine without a GPU it uses the CPU
// device, alone, with small sizes.
//
//	go run ./examples/multigpu                     # the best backend, all its devices
//	go run ./examples/multigpu -backend cuda -n 8192
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	_ "github.com/anygpu/gpu/backend/all"
	"github.com/anygpu/gpu/kernels"
)

func main() {
	backendName := flag.String("backend", "", "backend to use (default: the best one, as gpu.OpenAll chooses)")
	n := flag.Int("n", 0, "sgemm size n (n×n×n); default 8192 on GPUs, 384 on the CPU")
	saxpyN := flag.Int("saxpy", 0, "saxpy elements; default 256 Mi on GPUs, 4 Mi on the CPU")
	inner := flag.Int("inner", 10, "saxpy launches per timed run (amortises the synchronisation)")
	reps := flag.Int("reps", 5, "timed runs per configuration (the median is reported)")
	maxDevs := flag.Int("devices", 0, "use at most this many devices (0: all)")
	flag.Parse()
	if err := run(*backendName, *n, *saxpyN, *inner, *reps, *maxDevs); err != nil {
		fmt.Fprintln(os.Stderr, "multigpu:", err)
		os.Exit(1)
	}
}

// worker is one device with its compiled kernels.
type worker struct {
	dev   *gpu.Device
	axpy  *gpu.Kernel
	sgemm *gpu.Kernel
}

func run(backendName string, n, saxpyN, inner, reps, maxDevs int) error {
	ctx := context.Background()
	var opts []gpu.Option
	if backendName != "" {
		// A backend asked for by name: its devices or an error, no fallback.
		opts = append(opts, gpu.WithBackends(backendName), gpu.WithFallback(backendName == "cpu"))
	}
	devs, err := gpu.OpenAll(ctx, opts...)
	if err != nil {
		return err
	}
	defer gpu.CloseAll(devs)
	if maxDevs > 0 && maxDevs < len(devs) {
		devs = devs[:maxDevs]
	}
	onCPU := devs[0].Info().Type == backend.TypeCPU
	if n <= 0 {
		n = 8192
		if onCPU {
			n = 384
		}
	}
	if saxpyN <= 0 {
		saxpyN = 256 << 20
		if onCPU {
			saxpyN = 4 << 20
		}
	}
	if inner < 1 || reps < 1 {
		return fmt.Errorf("-inner and -reps must be positive")
	}
	fmt.Printf("%d device(s) of backend %s:\n", len(devs), devs[0].Backend())
	workers := make([]*worker, len(devs))
	for i, d := range devs {
		info := d.Info()
		peers := "none"
		if len(info.Peers) > 0 {
			peers = strings.Trim(fmt.Sprint(info.Peers), "[]")
		}
		fmt.Printf("  %s: %s, %d units, %.1f GiB, peers: %s\n", d.Name(), info.Name, info.Units, float64(info.MemoryBytes)/(1<<30), peers)
		mod, err := d.Compile(ctx, kernels.Source())
		if err != nil {
			return fmt.Errorf("%s: compile the built-in kernels: %w", d.Name(), err)
		}
		w := &worker{dev: d}
		if w.axpy, err = mod.Kernel(kernels.OpAxpy); err != nil {
			return err
		}
		if w.sgemm, err = mod.Kernel(kernels.OpSgemm); err != nil {
			return err
		}
		workers[i] = w
	}

	saxpyRes, err := runSaxpy(ctx, workers, saxpyN, inner, reps)
	if err != nil {
		return fmt.Errorf("saxpy: %w", err)
	}
	sgemmRes, err := runSgemm(ctx, workers, n, reps)
	if err != nil {
		return fmt.Errorf("sgemm: %w", err)
	}

	fmt.Printf("\nsaxpy %d Mi floats (%d launches a run), sgemm %d³; wall clock, median of %d runs\n", saxpyN>>20, inner, n, reps)
	fmt.Printf("%8s  %12s  %8s  %14s  %8s  %18s  %8s\n", "devices", "saxpy GB/s", "speedup", "sgemm TFLOP/s", "speedup", "+ gather, TFLOP/s", "speedup")
	for k := range workers {
		s, g := saxpyRes[k], sgemmRes[k]
		fmt.Printf("%8d  %12.1f  %7.2fx  %14.3f  %7.2fx  %18.3f  %7.2fx\n", k+1,
			12*float64(saxpyN)*float64(inner)/s.Seconds()/1e9, saxpyRes[0].Seconds()/s.Seconds(),
			2*math.Pow(float64(n), 3)/g.compute.Seconds()/1e12, sgemmRes[0].compute.Seconds()/g.compute.Seconds(),
			2*math.Pow(float64(n), 3)/g.total.Seconds()/1e12, sgemmRes[0].total.Seconds()/g.total.Seconds())
	}
	k := len(workers)
	fmt.Printf("SPEEDUP saxpy %d devices: %.2fx\n", k, saxpyRes[0].Seconds()/saxpyRes[k-1].Seconds())
	fmt.Printf("SPEEDUP sgemm %d devices: %.2fx (with the gather on device 0: %.2fx)\n", k,
		sgemmRes[0].compute.Seconds()/sgemmRes[k-1].compute.Seconds(), sgemmRes[0].total.Seconds()/sgemmRes[k-1].total.Seconds())
	for _, w := range workers {
		st := w.dev.Stats()
		fmt.Printf("%s: %d peer copies (%d MiB), %d fallbacks\n", w.dev.Name(), st.Transfers.Peer.Count, st.Transfers.Peer.Bytes>>20, st.Fallbacks)
	}
	return nil
}

// split cuts [0, n) into k nearly equal parts, each a multiple of align
// where possible.
func split(n, k, align int) [][2]int {
	out := make([][2]int, k)
	lo := 0
	for i := range k {
		hi := n * (i + 1) / k
		hi -= hi % align
		if i == k-1 {
			hi = n
		}
		out[i] = [2]int{lo, hi}
		lo = hi
	}
	return out
}

// median times f reps times after one warm-up run.
func median(reps int, f func() error) (time.Duration, error) {
	if err := f(); err != nil {
		return 0, err
	}
	ds := make([]time.Duration, reps)
	for i := range ds {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		ds[i] = time.Since(start)
	}
	sort.Slice(ds, func(a, b int) bool { return ds[a] < ds[b] })
	return ds[reps/2], nil
}

// onAll runs f for each of the first k workers, each in its own goroutine
// (so that no device's host work waits for another's), and joins the errors.
func onAll(ws []*worker, f func(i int, w *worker) error) error {
	errs := make([]error, len(ws))
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(i, w)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// --- data: a hash of the index, so any element can be recomputed ---

func mix(v uint32) uint32 {
	v ^= v >> 16
	v *= 0x85ebca6b
	v ^= v >> 13
	v *= 0xc2b2ae35
	v ^= v >> 16
	return v
}

// value is element i of data set seed, uniform in [-1, 1).
func value(seed uint32, i int) float32 {
	return -1 + 2*float32(mix(uint32(i)*0x9e3779b9^seed)>>8)/(1<<24)
}

// floats is elements [lo, hi) of data set seed, made on every core.
func floats(seed uint32, lo, hi int) []float32 {
	out := make([]float32, hi-lo)
	parts := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for p := range parts {
		a, b := len(out)*p/parts, len(out)*(p+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := a; i < b; i++ {
				out[i] = value(seed, lo+i)
			}
		}()
	}
	wg.Wait()
	return out
}

const (
	seedX, seedY, seedA, seedB = 1, 2, 3, 4
)

// grid1 is a grid-stride launch over n elements: blocks of 256, at most 8
// per compute unit on GPUs.
func grid1(d *gpu.Device, n int) (gpu.Dim3, gpu.Dim3) {
	info := d.Info()
	block := min(256, max(1, info.MaxThreadsPerBlock))
	groups := (n + block - 1) / block
	if info.Units > 0 && info.Type != backend.TypeCPU {
		groups = min(groups, 8*info.Units)
	}
	return gpu.D1(max(1, groups)), gpu.D1(block)
}

// --- saxpy ---

// runSaxpy times y = a·x + y over saxpyN elements split over 1..len(ws)
// devices, inner launches per run; result[k-1] is the time with k devices.
func runSaxpy(ctx context.Context, ws []*worker, saxpyN, inner, reps int) ([]time.Duration, error) {
	const a = 0.5
	out := make([]time.Duration, len(ws))
	for k := 1; k <= len(ws); k++ {
		parts := split(saxpyN, k, 1024)
		xs, ys := make([]*gpu.Buffer, k), make([]*gpu.Buffer, k)
		err := onAll(ws[:k], func(i int, w *worker) error {
			lo, hi := parts[i][0], parts[i][1]
			var err error
			if xs[i], err = gpu.FromSlice(ctx, w.dev, floats(seedX, lo, hi)); err != nil {
				return err
			}
			ys[i], err = gpu.FromSlice(ctx, w.dev, floats(seedY, lo, hi))
			return err
		})
		if err != nil {
			return nil, err
		}
		runs := 0
		d, err := median(reps, func() error {
			runs++
			return onAll(ws[:k], func(i int, w *worker) error {
				m := parts[i][1] - parts[i][0]
				grid, block := grid1(w.dev, m)
				s := w.dev.DefaultStream()
				for range inner {
					if err := s.Launch(w.axpy, grid, block, gpu.Buf(ys[i]), gpu.Buf(xs[i]), gpu.U32(uint32(m)), gpu.F32(a)); err != nil {
						return err
					}
				}
				return s.Synchronize(ctx)
			})
		})
		if err != nil {
			return nil, err
		}
		out[k-1] = d
		// Check sampled elements of each part: every launch added a·x once.
		steps := runs * inner
		err = onAll(ws[:k], func(i int, w *worker) error {
			lo, hi := parts[i][0], parts[i][1]
			for _, j := range []int{lo, (lo + hi) / 2, hi - 1} {
				var b [4]byte
				if _, err := ys[i].ReadAt(b[:], int64(j-lo)*4); err != nil {
					return err
				}
				got := math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
				y, x := value(seedY, j), value(seedX, j)
				for range steps {
					y = kernels.RefAxpy([]float32{y}, []float32{x}, a)[0]
				}
				if !kernels.AlmostEqual(got, y, uint32(4*steps), 1e-5*float32(steps)) {
					return fmt.Errorf("%s: y[%d] is %v, want %v", w.dev.Name(), j, got, y)
				}
			}
			return nil
		})
		for i := range k {
			_ = xs[i].Close()
			_ = ys[i].Close()
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// --- sgemm ---

type sgemmTime struct{ compute, total time.Duration }

// runSgemm times C = A·B (n×n×n) with the rows of C split over 1..len(ws)
// devices: compute alone, and compute plus gathering every block of C on
// device 0 (peer copies ordered after each device's sgemm by an event).
func runSgemm(ctx context.Context, ws []*worker, n, reps int) ([]sgemmTime, error) {
	out := make([]sgemmTime, len(ws))
	bHost := floats(seedB, 0, n*n)
	cFull, err := gpu.AllocSlice[float32](ws[0].dev, n*n)
	if err != nil {
		return nil, err
	}
	defer cFull.Close()
	for k := 1; k <= len(ws); k++ {
		parts := split(n, k, 16)
		as, bs, cs := make([]*gpu.Buffer, k), make([]*gpu.Buffer, k), make([]*gpu.Buffer, k)
		err := onAll(ws[:k], func(i int, w *worker) error {
			lo, hi := parts[i][0], parts[i][1]
			var err error
			if as[i], err = gpu.FromSlice(ctx, w.dev, floats(seedA, lo*n, hi*n)); err != nil {
				return err
			}
			if bs[i], err = gpu.FromSlice(ctx, w.dev, bHost); err != nil {
				return err
			}
			cs[i], err = gpu.AllocSlice[float32](w.dev, max(1, (hi-lo)*n))
			return err
		})
		if err != nil {
			return nil, err
		}
		launch := func(i int, w *worker) error {
			rows := parts[i][1] - parts[i][0]
			if rows == 0 {
				return nil
			}
			tile := 16
			if mt := w.dev.Info().MaxThreadsPerBlock; mt > 0 && mt < tile*tile {
				tile = 8
			}
			grid, block := gpu.D2((n+tile-1)/tile, (rows+tile-1)/tile), gpu.D2(tile, tile)
			return w.dev.DefaultStream().Launch(w.sgemm, grid, block, gpu.Buf(cs[i]), gpu.Buf(as[i]), gpu.Buf(bs[i]),
				gpu.U32(uint32(rows)), gpu.U32(uint32(n)), gpu.U32(uint32(n)), gpu.F32(1), gpu.F32(0))
		}
		compute, err := median(reps, func() error {
			return onAll(ws[:k], func(i int, w *worker) error {
				if err := launch(i, w); err != nil {
					return err
				}
				return w.dev.DefaultStream().Synchronize(ctx)
			})
		})
		if err != nil {
			return nil, err
		}
		// Compute and gather: device 0's stream waits for each device's
		// sgemm (an event of that device) and pulls its block of C.
		s0 := ws[0].dev.DefaultStream()
		total, err := median(reps, func() error {
			for i, w := range ws[:k] {
				if err := launch(i, w); err != nil {
					return err
				}
				ev, err := w.dev.DefaultStream().Record()
				if err != nil {
					return err
				}
				if err := s0.Wait(ev); err != nil {
					return err
				}
				_ = ev.Close()
				lo, hi := parts[i][0], parts[i][1]
				if hi > lo {
					if err := s0.Copy(cFull, int64(lo*n)*4, cs[i], 0, int64((hi-lo)*n)*4); err != nil {
						return err
					}
				}
			}
			return onAll(ws[:k], func(_ int, w *worker) error { return w.dev.DefaultStream().Synchronize(ctx) })
		})
		if err != nil {
			return nil, err
		}
		out[k-1] = sgemmTime{compute, total}
		err = checkSgemm(cFull, bHost, n)
		for i := range k {
			_ = as[i].Close()
			_ = bs[i].Close()
			_ = cs[i].Close()
		}
		if err != nil {
			return nil, fmt.Errorf("%d devices: %w", k, err)
		}
	}
	return out, nil
}

// checkSgemm compares sampled elements of the gathered C with the host
// reference of their row and column.
func checkSgemm(c *gpu.Buffer, b []float32, n int) error {
	tol := kernels.ReductionTolerance(n)*math.Sqrt(float64(n)) + 1e-6
	col := make([]float32, n)
	idx := []int{0, n*n - 1, n*n/2 + n/3, (n/2-1)*n + 7%n, (n-1)*n/3*3%(n*n) + 1}
	slices.Sort(idx)
	for _, e := range slices.Compact(idx) {
		row, cc := e/n, e%n
		for p := range col {
			col[p] = b[p*n+cc]
		}
		want := kernels.RefSgemm([]float32{0}, floats(seedA, row*n, (row+1)*n), col, 1, 1, n, 1, 0)[0]
		var w [4]byte
		if _, err := c.ReadAt(w[:], int64(e)*4); err != nil {
			return err
		}
		got := math.Float32frombits(uint32(w[0]) | uint32(w[1])<<8 | uint32(w[2])<<16 | uint32(w[3])<<24)
		if math.Abs(float64(got)-float64(want)) > tol {
			return fmt.Errorf("C[%d,%d] is %v, want %v (tolerance %.3g)", row, cc, got, want, tol)
		}
	}
	return nil
}
