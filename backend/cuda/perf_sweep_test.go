package cuda

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/require"
)

// sweepMedian runs f once to warm up, then reps times, and returns the
// median wall time.
func sweepMedian(reps int, f func() error) (time.Duration, error) {
	if err := f(); err != nil {
		return 0, err
	}
	ds := make([]time.Duration, 0, reps)
	for range reps {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}

func gbpsOf(n int, d time.Duration) float64 { return float64(n) / d.Seconds() / 1e9 }

// envInts reads a comma-separated list of integers from the environment.
func envInts(name string, def []int) []int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		if i, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			out = append(out, i)
		}
	}
	return out
}

// TestStagingSweep measures pageable transfers of 256 MiB through the
// staging workers for a grid of chunk sizes (ANYGPU_SWEEP_CHUNKS_KIB) and
// worker counts (ANYGPU_SWEEP_WORKERS), next to the pinned copies and the
// host's own copy rate with as many goroutines, and logs one table. It runs
// only when ANYGPU_STAGING_SWEEP is set (it takes seconds of a GPU).
func TestStagingSweep(t *testing.T) {
	skipUnlessSet(t, envSweep, "the staging sweep")
	d := openRaw(t)
	const n = 256 << 20
	reps := 5
	if v := envInts("ANYGPU_SWEEP_REPS", nil); len(v) == 1 {
		reps = v[0]
	}
	bs, err := d.NewStream()
	require.NoError(t, err)
	s := bs.(*stream)
	defer s.Close()
	db, err := d.Alloc(n)
	require.NoError(t, err)
	defer db.Close()
	hb, err := d.AllocHost(n)
	require.NoError(t, err)
	defer hb.Close()
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i * 7)
	}
	dst := make([]byte, n)
	copy(dst, src) // fault the pages in
	ctx := context.Background()
	sync := func() error { return s.Synchronize(ctx) }
	var b strings.Builder
	fmt.Fprintf(&b, "\nGOMAXPROCS %d, 256 MiB, median of %d, wall clock\n", runtime.GOMAXPROCS(0), reps)
	h2dPinned, err := sweepMedian(reps, func() error {
		if err := s.WriteHost(db, 0, hb, 0, n); err != nil {
			return err
		}
		return sync()
	})
	if err != nil {
		t.Fatal(err)
	}
	d2hPinned, err := sweepMedian(reps, func() error {
		if err := s.ReadHost(hb, 0, db, 0, n); err != nil {
			return err
		}
		return sync()
	})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "pinned: h2d %.1f GB/s  d2h %.1f GB/s\n", gbpsOf(n, h2dPinned), gbpsOf(n, d2hPinned))
	fmt.Fprintf(&b, "%9s %7s %9s %6s %9s %9s %9s %9s\n", "chunk", "workers", "piece", "guided", "h2d", "d2h", "hostcopy", "d2h-fresh")
	defer func(c, w, p int, gr, gw bool) {
		stageChunk, stageWorkers, stageCopyPiece, stageGuidedRead, stageGuidedWrite = c, w, p, gr, gw
	}(stageChunk, stageWorkers, stageCopyPiece, stageGuidedRead, stageGuidedWrite)
	for _, kib := range envInts("ANYGPU_SWEEP_CHUNKS_KIB", []int{1024, 2048, 4096}) {
		for _, w := range envInts("ANYGPU_SWEEP_WORKERS", []int{8, 12, 16}) {
			for _, piece := range envInts("ANYGPU_SWEEP_PIECE_KIB", []int{0, 512}) {
				for _, guided := range envInts("ANYGPU_SWEEP_GUIDED", []int{0, 1}) {
					stageChunk, stageWorkers, stageCopyPiece = kib<<10, w, piece<<10
					stageGuidedRead, stageGuidedWrite = guided == 1, guided == 1
					h2d, err := sweepMedian(reps, func() error {
						if err := s.Write(db, 0, src); err != nil {
							return err
						}
						return sync()
					})
					if err != nil {
						t.Fatal(err)
					}
					d2h, err := sweepMedian(reps, func() error { return s.Read(dst, db, 0) })
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(src[:1<<20], dst[:1<<20]) || !bytes.Equal(src[n-1<<20:], dst[n-1<<20:]) {
						t.Fatalf("chunk %d KiB, %d workers: wrong data", kib, w)
					}
					host := hostCopyRate(src, hb.Bytes(), kib<<10, w, reps)
					// D2H into memory never touched: page faults on first touch.
					fresh := make([]byte, n)
					start := time.Now()
					if err := s.Read(fresh, db, 0); err != nil {
						t.Fatal(err)
					}
					freshD := time.Since(start)
					fmt.Fprintf(&b, "%6d KiB %7d %5d KiB %6v %9.1f %9.1f %9.1f %9.1f\n", kib, w, piece, guided == 1, gbpsOf(n, h2d), gbpsOf(n, d2h), host, gbpsOf(n, freshD))
				}
			}
		}
	}
	dropStaging(d)
	stageChunk, stageWorkers, stageCopyPiece = 2<<20, defaultStageWorkers(), 512<<10
	stageGuidedRead, stageGuidedWrite = true, false
	// The default geometry again, through other paths to the same copy: the
	// public API (what gpu bench measures), and sources filled in other ways.
	fmt.Fprintf(&b, "default geometry (%d KiB, %d workers):\n", stageChunk>>10, stageWorkers)
	h2dOf := func(write func() error) float64 {
		dur, err := sweepMedian(reps, func() error {
			if err := write(); err != nil {
				return err
			}
			return sync()
		})
		if err != nil {
			t.Fatal(err)
		}
		return gbpsOf(n, dur)
	}
	fmt.Fprintf(&b, "  backend, serial-filled source       %6.1f GB/s\n", h2dOf(func() error { return s.Write(db, 0, src) }))
	par := make([]byte, n)
	parallelFill(par)
	fmt.Fprintf(&b, "  backend, parallel-filled source     %6.1f GB/s\n", h2dOf(func() error { return s.Write(db, 0, par) }))
	dev := openGPU(t)
	pb, err := dev.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := dev.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	pubH2D := func(src []byte) float64 {
		dur, err := sweepMedian(reps, func() error {
			if err := ps.Write(pb, 0, src); err != nil {
				return err
			}
			return ps.Synchronize(ctx)
		})
		if err != nil {
			t.Fatal(err)
		}
		return gbpsOf(n, dur)
	}
	fmt.Fprintf(&b, "  gpu.Stream.Write, serial-filled     %6.1f GB/s\n", pubH2D(src))
	fmt.Fprintf(&b, "  gpu.Stream.Write, parallel-filled   %6.1f GB/s\n", pubH2D(par))
	fmt.Fprintf(&b, "  backend again, serial-filled        %6.1f GB/s\n", h2dOf(func() error { return s.Write(db, 0, src) }))
	odev, err := gpu.Open(ctx, gpu.WithBackends(Name), gpu.WithFallback(false))
	if err != nil {
		t.Fatal(err)
	}
	defer odev.Close()
	if pb, err = odev.Alloc(n); err != nil {
		t.Fatal(err)
	}
	if ps, err = odev.NewStream(); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "  gpu.Open device, parallel-filled    %6.1f GB/s\n", pubH2D(par))
	logTable(t, "staging_sweep.txt", b.String())
}

// hostCopyRate is the host alone: w goroutines copying src into chunk-sized
// pieces of pinned memory, each goroutine its own chunks (as the staging
// workers do), GB/s.
func hostCopyRate(src, pinned []byte, chunk, w, reps int) float64 {
	n := len(src)
	chunks := (n + chunk - 1) / chunk
	d, _ := sweepMedian(reps, func() error {
		var wg sync.WaitGroup
		for i := range w {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k := 0
				for c := i; c < chunks; c += w {
					slot := (2*i + k&1) % max(1, len(pinned)/chunk)
					k++
					lo := c * chunk
					m := min(chunk, n-lo)
					copy(pinned[slot*chunk:slot*chunk+m], src[lo:lo+m])
				}
			}()
		}
		wg.Wait()
		return nil
	})
	return gbpsOf(n, d)
}

// dropStaging frees the device's free staging sets.
func dropStaging(d *device) {
	d.mu.Lock()
	sets := d.staging
	d.staging = nil
	d.mu.Unlock()
	fr := cu.NewFrame()
	if d.enter(fr, "free staging") == nil {
		for _, sp := range sets {
			sp.free(d, fr)
		}
		d.leave()
	}
}

// TestReadFromSweep measures Buffer.ReadFrom of 256 MiB from an in-memory
// reader (bytes.Reader), a bytes.Buffer, a file in the page cache and a
// plain io.Reader, against the pinned H2D copy, with progress counted. It runs
// only when ANYGPU_STAGING_SWEEP is set.
func TestReadFromSweep(t *testing.T) {
	skipUnlessSet(t, envSweep, "the ReadFrom sweep")
	dev := openGPU(t)
	ctx := context.Background()
	const n = 256 << 20
	const reps = 5
	buf, err := dev.Alloc(n)
	require.NoError(t, err)
	defer buf.Close()
	hb, err := dev.AllocHost(n)
	require.NoError(t, err)
	defer hb.Close()
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i*13 + i>>20)
	}
	copy(hb.Bytes(), data)
	st := dev.DefaultStream()
	pinned, err := sweepMedian(reps, func() error {
		if err := st.WriteHost(buf, 0, hb, 0, n); err != nil {
			return err
		}
		return st.Synchronize(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "data.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, _ = io.Copy(io.Discard, f) // into the page cache
	var b strings.Builder
	fmt.Fprintf(&b, "\nReadFrom 256 MiB, median of %d, wall clock; pinned H2D %.1f GB/s\n", reps, gbpsOf(n, pinned))
	for _, tc := range []struct {
		name   string
		reader func() io.Reader
	}{
		{"bytes.Reader", func() io.Reader { return bytes.NewReader(data) }},
		{"bytes.Buffer", func() io.Reader { return bytes.NewBuffer(data) }},
		{"file (page cache)", func() io.Reader { _, _ = f.Seek(0, io.SeekStart); return f }},
		{"plain io.Reader", func() io.Reader { return struct{ io.Reader }{bytes.NewReader(data)} }},
	} {
		var calls int
		var last int64
		d, err := sweepMedian(reps, func() error {
			calls, last = 0, 0
			got, err := buf.ReadFromContext(ctx, tc.reader(), func(done, total int64) { calls++; last = done })
			if err == nil && got != n {
				err = fmt.Errorf("read %d bytes", got)
			}
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		check := make([]byte, 4096)
		if _, err := buf.ReadAt(check, n-4096); err != nil || !bytes.Equal(check, data[n-4096:]) {
			t.Fatalf("%s: wrong data (%v)", tc.name, err)
		}
		fmt.Fprintf(&b, "%-18s %7.1f GB/s  %.2f× pinned  progress calls %d, last %d\n", tc.name, gbpsOf(n, d), float64(pinned)/float64(d), calls, last)
	}
	logTable(t, "readfrom_sweep.txt", b.String())
}

// TestKernelSweep times the built-in axpy (64 Mi float32s, 12 bytes per
// element) with each element-wise mode of the CUDA dialect
// (ANYGPU_CUDA_EW_MODE) and several grids, with device events, median of 20,
// and checks each mode's result. It runs only when ANYGPU_STAGING_SWEEP is set.
func TestKernelSweep(t *testing.T) {
	skipUnlessSet(t, envSweep, "the kernel sweep")
	dev := openGPU(t)
	ctx := context.Background()
	st, err := dev.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const n = 64 << 20
	const reps = 20
	x, _ := gpu.AllocSlice[float32](dev, n)
	y, _ := gpu.AllocSlice[float32](dev, n)
	defer x.Close()
	defer y.Close()
	units := dev.Info().Units
	var b strings.Builder
	fmt.Fprintf(&b, "\naxpy 64 Mi float32, GB/s (12 B/element), events, median of %d\n%6s", reps, "mode")
	grids := []struct {
		name string
		g    int
	}{{"SMs*8", units * 8}, {"SMs*16", units * 16}, {"n/1024", n / 1024}, {"n/256", n / 256}}
	for _, g := range grids {
		fmt.Fprintf(&b, " %9s", g.name)
	}
	b.WriteString("\n")
	for _, mode := range []string{"2", "3", "6", "7"} {
		mod, err := dev.Compile(ctx, kernels.Source(), gpu.Define("ANYGPU_CUDA_EW_MODE", mode))
		if err != nil {
			t.Fatalf("mode %s: %v", mode, err)
		}
		axpy, _ := mod.Kernel(kernels.OpAxpy)
		fmt.Fprintf(&b, "%6s", mode)
		for _, g := range grids {
			_ = st.Fill(x, 0, 4*n, 0x3f800000) // 1
			_ = st.Fill(y, 0, 4*n, 0)
			launch := func() error {
				return st.Launch(axpy, gpu.D1(g.g), gpu.D1(256), gpu.Buf(y), gpu.Buf(x), gpu.U32(n), gpu.F32(0.5))
			}
			var ds []time.Duration
			for i := 0; i <= reps; i++ {
				if d := backendtest.DeviceTime(t, st, launch); i > 0 {
					ds = append(ds, d)
				}
			}
			slices.Sort(ds)
			all, err := gpu.ToSlice[float32](ctx, y)
			if err != nil {
				t.Fatal(err)
			}
			want := float32(0.5 * (reps + 1))
			for _, i := range []int{0, 1, 2, 3, 4, n / 2, n - 5, n - 1} {
				if all[i] != want {
					t.Fatalf("mode %s grid %s: y[%d] = %v, want %v", mode, g.name, i, all[i], want)
				}
			}
			fmt.Fprintf(&b, " %9.1f", 12*float64(n)/ds[len(ds)/2].Seconds()/1e9)
		}
		b.WriteString("\n")
		_ = mod.Close()
	}
	logTable(t, "kernel_sweep.txt", b.String())
}

// envSweep turns on the sweeps: they take seconds of a GPU.
const envSweep = "ANYGPU_STAGING_SWEEP"

// skipUnlessSet skips t unless the environment variable env is set: the
// diagnostics that take a GPU for seconds run only when asked for.
func skipUnlessSet(t *testing.T, env, what string) {
	t.Helper()
	if os.Getenv(env) == "" {
		t.Skipf("set %s=1 to run %s", env, what)
	}
}

// logTable logs a diagnostic's table and, where OUT names a folder (as on
// the GPU machine), writes it there as name.
func logTable(t *testing.T, name, table string) {
	t.Helper()
	t.Log(table)
	if dir := os.Getenv("OUT"); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(table), 0o644))
	}
}

// parallelFill writes b from GOMAXPROCS goroutines at once, as gpu bench
// fills its data.
func parallelFill(b []byte) {
	w := runtime.GOMAXPROCS(0)
	per := (len(b) + w - 1) / w
	var wg sync.WaitGroup
	for i := range w {
		lo, hi := min(i*per, len(b)), min((i+1)*per, len(b))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := lo; j < hi; j++ {
				b[j] = byte(j*13 + j>>9)
			}
		}()
	}
	wg.Wait()
}
