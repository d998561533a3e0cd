//go:build linux

package cuda

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/internal/dl"
	"github.com/anygpu/gpu/kernels"
)

// TestLaunchVsC compares gpu.Stream.Launch with a C loop of cuLaunchKernel
// in the same process: cmd/gpu/testdata/launch_loop.c, built here as a
// library, runs its rounds on the same stream, context and OS thread, with
// the same kernel (fill, grid 1, block 1), alternating with rounds through
// the public API, the backend's Launch, and bare driver calls (cu.Lib: cgo,
// or purego without cgo). Separate processes differ from one another by up
// to 30% on the GPU machine (the driver's launch cost is 3-4 µs there and
// moves from process to process), which hides a 10% difference;
// alternating rounds in one process does not. It needs a C compiler and
// ANYGPU_LAUNCH_VS_C=1; the result goes to the log and to
// $OUT/launch_vs_c.json. It reports and asserts nothing about the timings.
func TestLaunchVsC(t *testing.T) {
	skipUnlessSet(t, "ANYGPU_LAUNCH_VS_C", "the comparison of launches with a C loop in this process")
	launches, rounds := 10000, 15
	if v := envInts("ANYGPU_LAUNCH_VS_C_ROUNDS", nil); len(v) == 1 {
		rounds = v[0]
	}
	ctx := context.Background()
	lib := buildLaunchLoop(t)
	run := dl.Sym(lib, "launch_loop_run")
	require.NotZero(t, run, "launch_loop_run")

	// The public path: what gpu bench's launch_us measures.
	dev := openGPU(t)
	mod, err := dev.Compile(ctx, kernels.Source())
	require.NoError(t, err)
	fill, err := mod.Kernel(kernels.OpFill)
	require.NoError(t, err)
	y, err := dev.Alloc(4)
	require.NoError(t, err)
	st, err := dev.NewStream()
	require.NoError(t, err)
	defer st.Close()
	sh, err := st.NativeHandle()
	require.NoError(t, err)
	yp, err := y.NativeHandle()
	require.NoError(t, err)

	// The same kernel as a CUfunction for the C loop and the bare calls,
	// from the same primary context.
	d := openRaw(t)
	m, err := d.Compile(ctx, kernels.Source(), backend.CompileOptions{})
	require.NoError(t, err)
	kk, err := m.Kernel(kernels.OpFill)
	require.NoError(t, err)
	fn := kk.(*kernel).fn
	vals := &struct {
		y uint64
		n uint32
		v float32
	}{uint64(yp), 1, 1.5}
	params := &[3]unsafe.Pointer{unsafe.Pointer(&vals.y), unsafe.Pointer(&vals.n), unsafe.Pointer(&vals.v)}

	goRound := func() (time.Duration, error) {
		start := time.Now()
		for range launches {
			if err := st.Launch(fill, gpu.D1(1), gpu.D1(1), gpu.Buf(y), gpu.U32(1), gpu.F32(1.5)); err != nil {
				return 0, err
			}
		}
		err := st.Synchronize(ctx)
		return time.Since(start), err
	}
	// The same launches from a goroutine locked to its thread, as the C and
	// bare rounds are: the difference is what an unlocked goroutine costs.
	goLockedRound := func() (time.Duration, error) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		return goRound()
	}
	// The backend's Launch without package gpu, on the same stream (a second
	// wrapper of the handle, never closed).
	bst := newStream(d, cu.Stream(sh))
	bargs := []backend.Arg{{Kind: backend.ArgBuffer, Buffer: &buffer{dev: d, ptr: cu.DevicePtr(yp), size: 4}},
		{Kind: backend.ArgU32, Bits: 1}, {Kind: backend.ArgF32, Bits: uint64(math.Float32bits(1.5))}}
	one := backend.Dim3{X: 1, Y: 1, Z: 1}
	backendRound := func() (time.Duration, error) {
		start := time.Now()
		for range launches {
			if err := bst.Launch(kk, one, one, bargs); err != nil {
				return 0, err
			}
		}
		err := bst.Synchronize(ctx)
		return time.Since(start), err
	}
	fr := cu.NewFrame()
	// Both locked rounds bind the context on the calling thread first, as
	// launch_loop's main does once.
	cRound := func() (time.Duration, error) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if r := d.lib.CtxSetCurrent(fr, d.ctx); r != cu.Success {
			return 0, r.Err("bind")
		}
		ns, _, _ := purego.SyscallN(run, uintptr(fn), uintptr(unsafe.Pointer(params)), sh, uintptr(launches))
		runtime.KeepAlive(params)
		runtime.KeepAlive(vals)
		if int64(ns) < 0 {
			return 0, fmt.Errorf("launch_loop_run: %d", int64(ns))
		}
		return time.Duration(ns), nil
	}
	rawRound := func() (time.Duration, error) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if r := d.lib.CtxSetCurrent(fr, d.ctx); r != cu.Success {
			return 0, r.Err("bind")
		}
		start := time.Now()
		for range launches {
			if r := d.lib.LaunchKernel(fr, fn, 1, 1, 1, 1, 1, 1, 0, cu.Stream(sh), unsafe.Pointer(params)); r != cu.Success {
				return 0, r.Err("launch")
			}
		}
		r := d.lib.StreamSynchronize(fr, cu.Stream(sh))
		runtime.KeepAlive(params)
		return time.Since(start), d.check(r, "synchronize")
	}
	kinds := []struct {
		name  string
		round func() (time.Duration, error)
	}{{"c", cRound}, {"go", goRound}, {"bare", rawRound}, {"go_locked", goLockedRound}, {"backend", backendRound}}
	per := map[string][]float64{}
	for r := -1; r < rounds; r++ { // round -1 warms up (clocks, caches)
		for _, k := range kinds {
			dur, err := k.round()
			require.NoError(t, err, k.name)
			if r >= 0 {
				per[k.name] = append(per[k.name], dur.Seconds()*1e6/float64(launches))
			}
		}
	}
	med := func(xs []float64) float64 {
		s := slices.Clone(xs)
		slices.Sort(s)
		return s[len(s)/2]
	}
	// ratios of the rounds next to each other, so that drift cancels
	ratios := make([]float64, rounds)
	for i := range ratios {
		ratios[i] = per["go"][i] / per["c"][i]
	}
	out := map[string]any{
		"c_launch_us": med(per["c"]), "go_launch_us": med(per["go"]), "bare_launch_us": med(per["bare"]),
		"go_locked_launch_us": med(per["go_locked"]), "backend_launch_us": med(per["backend"]),
		"go_vs_c": med(per["go"]) / med(per["c"]), "go_vs_c_paired_median": med(ratios),
		"go_vs_c_paired_min": slices.Min(ratios), "go_vs_c_paired_max": slices.Max(ratios),
		"launches": launches, "rounds": rounds, "per_round_us": per,
	}
	for k, v := range out {
		if f, ok := v.(float64); ok {
			out[k] = math.Round(f*1e4) / 1e4
		}
	}
	js, err := json.Marshal(out)
	require.NoError(t, err)
	t.Logf("launch, same process, %d rounds of %d alternating: C %.3f µs, gpu.Stream.Launch %.3f µs (%.3f× C; paired rounds %.3f×, %.3f-%.3f), bare cu.Lib call %.3f µs, gpu.Stream.Launch on a locked thread %.3f µs, the backend's Launch %.3f µs",
		rounds, launches, med(per["c"]), med(per["go"]), med(per["go"])/med(per["c"]), med(ratios), slices.Min(ratios), slices.Max(ratios), med(per["bare"]), med(per["go_locked"]), med(per["backend"]))
	if dir := os.Getenv("OUT"); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "launch_vs_c.json"), append(js, '\n'), 0o644))
	}
}

// buildLaunchLoop compiles cmd/gpu/testdata/launch_loop.c as a library and
// loads it.
func buildLaunchLoop(t *testing.T) uintptr {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		if cc, err = exec.LookPath("gcc"); err != nil {
			t.Fatalf("no C compiler: %v", err)
		}
	}
	src, err := filepath.Abs(filepath.Join("..", "..", "cmd", "gpu", "testdata", "launch_loop.c"))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "launch_loop.so")
	if msg, err := exec.Command(cc, "-O2", "-DLAUNCH_LOOP_LIB", "-shared", "-fPIC", "-o", out, src, "-ldl").CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", src, err, msg)
	}
	lib, err := dl.Open(out, dl.Now)
	require.NoError(t, err)
	return lib
}
