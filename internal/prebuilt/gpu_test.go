package prebuilt_test

// The tests of this file need the GPU machine: TestRegenerate needs NVRTC,
// TestColdStart and BenchmarkColdStart a CUDA device. They skip elsewhere.
// TestRegenerate comes first, so that one run can regenerate the set and
// measure it (see the package documentation).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda"
	"github.com/anygpu/gpu/internal/prebuilt"
	"github.com/anygpu/gpu/internal/testreq"
	"github.com/anygpu/gpu/kernels"
	"github.com/anygpu/gpu/nvrtc"
	"github.com/stretchr/testify/require"
)

const (
	// envWrite names the directory TestRegenerate writes the set into.
	envWrite = "ANYGPU_PREBUILT_WRITE"
	// envTargets replaces prebuilt.DefaultTargets for TestRegenerate
	// ("sm_90,compute_75").
	envTargets = "ANYGPU_PREBUILT_TARGETS"
	// envChild makes the test binary a cold-start child (TestMain).
	envChild = "ANYGPU_COLDSTART_CHILD"
	// envT0 is the parent's clock just before it started the child, in Unix
	// nanoseconds: the child's process start.
	envT0 = "ANYGPU_COLDSTART_T0"
	// envSet names a set directory the child uses instead of the shipped set.
	envSet = "ANYGPU_COLDSTART_SET"
)

func TestMain(m *testing.M) {
	if os.Getenv(envChild) != "" {
		os.Exit(coldChild())
	}
	os.Exit(m.Run())
}

// TestRegenerate compiles every built-in CUDA text with NVRTC for each
// target the NVRTC offers (prebuilt.DefaultTargets, or ANYGPU_PREBUILT_TARGETS)
// and writes the set into $ANYGPU_PREBUILT_WRITE. It skips unless that is
// set; NVRTC must then be there.
func TestRegenerate(t *testing.T) {
	dir := os.Getenv(envWrite)
	if dir == "" {
		t.Skipf("set %s=<dir> to compile the built-in kernels with NVRTC and write the prebuilt set there", envWrite)
	}
	regenerate(t, dir)
}

// regenerate is TestRegenerate into dir.
func regenerate(t *testing.T, dir string) {
	require.NoError(t, nvrtc.Available(), "regenerating needs NVRTC")
	major, minor, err := nvrtc.Version()
	require.NoError(t, err)
	version := fmt.Sprintf("%d.%d", major, minor)
	supported, err := nvrtc.SupportedArchs()
	require.NoError(t, err)
	targets, explicit := prebuilt.DefaultTargets, false
	if s := os.Getenv(envTargets); s != "" {
		targets, explicit = strings.Split(s, ","), true
	}
	var use []string
	for _, s := range targets {
		s = strings.TrimSpace(s)
		tg, err := prebuilt.ParseTarget(s)
		require.NoError(t, err)
		if !slices.Contains(supported, tg.Major*10+tg.Minor) {
			require.False(t, explicit, "NVRTC %s does not compile for %s (it does for %v)", version, s, supported)
			t.Logf("NVRTC %s does not compile for %s: left out", version, s)
			continue
		}
		use = append(use, s)
	}
	require.NotEmpty(t, use, "no target left")

	type job struct {
		p      program
		target string
	}
	var jobs []job
	for _, p := range builtinPrograms() {
		ok, why := prebuilt.Eligible(p.src.CUDA, prebuilt.NVRTCOptions(p.src, backend.CompileOptions{}, nil))
		require.True(t, ok, "%s cannot be prebuilt: %s", p.origin, why)
		for _, target := range use {
			jobs = append(jobs, job{p, target})
		}
	}
	compiler := nvrtc.NewCompiler(nil) // no kernel cache: always NVRTC's own output
	images := make([]prebuilt.Compiled, len(jobs))
	took := make([]time.Duration, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i, j := range jobs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			o := prebuilt.NVRTCOptions(j.p.src, backend.CompileOptions{}, nil)
			o.Arch = j.target
			r, err := compiler.Compile(j.p.src.CUDA, o)
			if err != nil {
				errs[i] = err
				return
			}
			img := r.CUBIN
			if strings.HasPrefix(j.target, "compute_") {
				img = []byte(r.PTX)
			}
			took[i] = r.Duration
			images[i] = prebuilt.Compiled{Key: j.p.key, Program: j.p.src.Name, Origin: j.p.origin, Source: j.p.src.CUDA,
				Target: j.target, NVRTC: version, Image: img}
		})
	}
	wg.Wait()
	var done []prebuilt.Compiled
	for i, j := range jobs {
		if errs[i] != nil {
			// The others are still written: a target that does not compile
			// can be dropped with ANYGPU_PREBUILT_TARGETS.
			t.Errorf("%s for %s: %v", j.p.origin, j.target, errs[i])
			continue
		}
		done = append(done, images[i])
	}
	require.NoError(t, prebuilt.Write(dir, done))

	set, err := prebuilt.Open(os.DirFS(dir))
	require.NoError(t, err)
	var total int64
	for i, e := range set.Entries() {
		total += e.Stored
		t.Logf("%-2d %-40s %-10s %8d bytes, %7d stored", i, e.Origin, e.Target, e.Size, e.Stored)
	}
	for i, j := range jobs {
		if errs[i] == nil {
			t.Logf("%s for %s: compiled in %v", j.p.origin, j.target, took[i].Round(time.Millisecond))
		}
	}
	t.Logf("wrote %d images of NVRTC %s into %s: %s of %d bytes, %s", set.Len(), version, dir, prebuilt.PackFile, total, prebuilt.IndexFile)
	for _, p := range builtinPrograms() {
		for _, im := range set.Images(p.key, 9, 0, 0) {
			_, err := im.Bytes()
			require.NoError(t, err, "%s %s reads back", p.origin, im)
		}
	}
}

// coldMode is one way a cold-start child opens the first built-in kernel.
type coldMode struct {
	name     string
	prebuilt bool     // NVRTC must stay unloaded
	env      []string // the child's environment, over the parent's
	warmup   bool     // one unmeasured run first (to fill a cache)
}

// coldResult is what a child reports: the time from its process start
// (the parent's clock just before starting it) to each step.
type coldResult struct {
	Marks       []coldMark `json:"marks"`
	NVRTCLoaded bool       `json:"nvrtc_loaded"`
	Device      string     `json:"device"`
}

type coldMark struct {
	Step string  `json:"step"`
	Ms   float64 `json:"ms"`
}

func (r coldResult) at(step string) float64 {
	for _, m := range r.Marks {
		if m.Step == step {
			return m.Ms
		}
	}
	return -1
}

// TestColdStart starts fresh processes (this test binary again) that open
// the CUDA device, compile kernels.Source() and run its fill kernel once,
// and logs the time from process start to each step, for: the prebuilt CUBIN
// (NVRTC made unloadable, so a miss fails), the prebuilt PTX alone (compiled
// by the driver, as on a GPU the set has no CUBIN for), and NVRTC with an
// empty and a warm kernel cache (the prebuilt set turned off). Each child
// gets empty kernel and driver (CUDA_CACHE_PATH) caches. The set is the one
// just written by TestRegenerate when ANYGPU_PREBUILT_WRITE holds one, else
// the shipped one. No timing is asserted; that NVRTC stays unloaded is.
func TestColdStart(t *testing.T) {
	devs := testreq.SkipUnlessAvailable(t, cuda.Driver{})
	modes, notes := coldModes(t, devs[0])
	for _, n := range notes {
		t.Log(n)
	}
	const runs = 3
	t.Logf("%-34s %3s %8s %8s %8s %8s %8s  %s", "mode", "run", "main", "open", "compile", "kernel", "done", "NVRTC loaded")
	for _, m := range modes {
		if m.warmup {
			_, err := runChild(m.env)
			require.NoError(t, err, m.name)
		}
		for i := range runs {
			r, err := runChild(m.env)
			require.NoError(t, err, m.name)
			t.Logf("%-34s %3d %8.1f %8.1f %8.1f %8.1f %8.1f  %v   (%s)", m.name, i+1, r.at("main"), r.at("open"), r.at("compile"),
				r.at("kernel"), r.at("done"), r.NVRTCLoaded, r.Device)
			if m.prebuilt {
				require.False(t, r.NVRTCLoaded, "%s: the first built-in kernel ran without loading NVRTC", m.name)
			}
		}
	}
	t.Logf("milliseconds from process start: main = the test binary's TestMain, open = gpu.Open, compile = Device.Compile(kernels.Source()), " +
		"kernel = Module.Kernel(fill), done = fill launched and its result read back")
}

// BenchmarkColdStart is TestColdStart's first prebuilt mode (the CUBIN, else
// the PTX) as a benchmark: ms-to-kernel is the time from a fresh process's
// start to its first built-in kernel's result.
func BenchmarkColdStart(b *testing.B) {
	devs := testreq.SkipUnlessAvailable(b, cuda.Driver{})
	modes, notes := coldModes(b, devs[0])
	if len(modes) == 0 || !modes[0].prebuilt {
		b.Skipf("no prebuilt image for this GPU: %v", notes)
	}
	var total float64
	for b.Loop() {
		r, err := runChild(modes[0].env)
		if err != nil {
			b.Fatal(err)
		}
		total += r.at("done")
	}
	b.ReportMetric(total/float64(b.N), "ms-to-kernel")
}

// coldModes are the modes TestColdStart measures on the GPU dev, and notes
// on those it leaves out.
func coldModes(t testing.TB, dev backend.DeviceInfo) ([]coldMode, []string) {
	major, minor := dev.ComputeMajor, dev.ComputeMinor
	var apiMajor, apiMinor int
	if _, err := fmt.Sscanf(dev.APIVersion, "%d.%d", &apiMajor, &apiMinor); err != nil {
		t.Fatalf("the driver's API version %q: %v", dev.APIVersion, err)
	}
	set, err := prebuilt.Shipped()
	require.NoError(t, err)
	var setEnv []string
	if dir := os.Getenv(envWrite); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, prebuilt.IndexFile)); err == nil {
			set, err = prebuilt.Open(os.DirFS(dir))
			require.NoError(t, err)
			abs, err := filepath.Abs(dir)
			require.NoError(t, err)
			setEnv = []string{envSet + "=" + abs}
		}
	}
	// Empty values: runChild makes new empty directories for each run.
	fresh := []string{nvrtc.EnvCacheDir + "=", "CUDA_CACHE_PATH="}
	noNVRTC := nvrtc.EnvLibrary + "=" + filepath.Join(t.TempDir(), "no-libnvrtc.so.13")
	var modes []coldMode
	var notes []string
	src := kernels.Source()
	key := prebuilt.Key(src.CUDA, prebuilt.NVRTCOptions(src, backend.CompileOptions{}, nil))
	var ptx []prebuilt.Compiled
	hasCUBIN := false
	for _, im := range set.Images(key, major, minor, apiMajor*1000+apiMinor*10) {
		if !im.PTX() {
			hasCUBIN = true
			continue
		}
		data, err := im.Bytes()
		require.NoError(t, err)
		e := im.Entry()
		ptx = append(ptx, prebuilt.Compiled{Key: e.Key, Program: e.Program, Origin: e.Origin, Source: src.CUDA, Target: e.Target, NVRTC: e.NVRTC, Image: data})
	}
	if hasCUBIN {
		modes = append(modes, coldMode{name: "prebuilt CUBIN", prebuilt: true, env: slices.Concat(fresh, setEnv, []string{noNVRTC})})
	} else {
		notes = append(notes, fmt.Sprintf("no prebuilt CUBIN of kernels.Source for %d.%d: regenerate the set (package doc)", major, minor))
	}
	if len(ptx) > 0 {
		dir := t.TempDir()
		require.NoError(t, prebuilt.Write(dir, ptx[:1]))
		modes = append(modes, coldMode{name: "prebuilt PTX (driver compiles it)", prebuilt: true,
			env: slices.Concat(fresh, []string{envSet + "=" + dir, noNVRTC})})
	} else {
		notes = append(notes, fmt.Sprintf("no prebuilt PTX of kernels.Source that %d.%d and driver API %s take", major, minor, dev.APIVersion))
	}
	if err := nvrtc.Available(); err == nil {
		off := cuda.EnvPrebuilt + "=off"
		modes = append(modes, coldMode{name: "NVRTC, empty kernel cache", env: slices.Concat(fresh, []string{off})})
		warm := []string{nvrtc.EnvCacheDir + "=" + t.TempDir(), "CUDA_CACHE_PATH=" + t.TempDir(), off}
		modes = append(modes, coldMode{name: "NVRTC, warm kernel cache", env: warm, warmup: true})
	} else {
		notes = append(notes, fmt.Sprintf("NVRTC unavailable, its modes left out: %v", err))
	}
	return modes, notes
}

// runChild starts this test binary as a cold-start child with env over the
// parent's environment and returns its report. An empty value of
// ANYGPU_CACHE_DIR or CUDA_CACHE_PATH in env becomes a new empty directory.
func runChild(env []string) (coldResult, error) {
	env = slices.Clone(env)
	for i, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); v == "" && (k == nvrtc.EnvCacheDir || k == "CUDA_CACHE_PATH") {
			d, err := os.MkdirTemp("", "anygpu-coldstart-")
			if err != nil {
				return coldResult{}, err
			}
			defer os.RemoveAll(d)
			env[i] = k + "=" + d
		}
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(append(os.Environ(), env...), envChild+"=1")
	cmd.Env = append(cmd.Env, envT0+"="+strconv.FormatInt(time.Now().UnixNano(), 10))
	if err := cmd.Run(); err != nil {
		return coldResult{}, fmt.Errorf("cold-start child: %v\n%s", err, out.String())
	}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "COLDSTART "); ok {
			var r coldResult
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				return coldResult{}, fmt.Errorf("cold-start child: %v in %q", err, line)
			}
			return r, nil
		}
	}
	return coldResult{}, fmt.Errorf("cold-start child printed no report:\n%s", out.String())
}

// coldChild is the child's whole life: open the CUDA device, compile the
// built-ins, run fill once, print the report; its exit status.
func coldChild() int {
	t0, err := strconv.ParseInt(os.Getenv(envT0), 10, 64)
	if err != nil {
		fmt.Println("cold-start child: no start time:", err)
		return 2
	}
	var r coldResult
	mark := func(step string) {
		r.Marks = append(r.Marks, coldMark{step, float64(time.Now().UnixNano()-t0) / 1e6})
	}
	mark("main")
	if err := coldRun(mark, &r); err != nil {
		fmt.Println("cold-start child:", err)
		return 1
	}
	r.NVRTCLoaded = nvrtc.Loaded()
	b, err := json.Marshal(r)
	if err != nil {
		fmt.Println("cold-start child:", err)
		return 1
	}
	fmt.Println("COLDSTART " + string(b))
	return 0
}

func coldRun(mark func(string), r *coldResult) error {
	if dir := os.Getenv(envSet); dir != "" {
		set, err := prebuilt.Open(os.DirFS(dir))
		if err != nil {
			return err
		}
		prebuilt.SetDefault(set)
		mark("set read")
	}
	ctx := context.Background()
	dev, err := gpu.Open(ctx, gpu.WithBackends(cuda.Name), gpu.WithFallback(false))
	if err != nil {
		return err
	}
	defer dev.Close()
	mark("open")
	mod, err := dev.Compile(ctx, kernels.Source())
	if err != nil {
		return err
	}
	defer mod.Close()
	mark("compile")
	fill, err := mod.Kernel(kernels.OpFill)
	if err != nil {
		return err
	}
	mark("kernel")
	const n = 1024
	buf, err := dev.Alloc(4 * n)
	if err != nil {
		return err
	}
	defer buf.Close()
	if err := dev.DefaultStream().Launch(fill, gpu.D1(n/256), gpu.D1(256), gpu.Buf(buf), gpu.U32(n), gpu.F32(3)); err != nil {
		return err
	}
	out, err := gpu.ToSlice[float32](ctx, buf)
	if err != nil {
		return err
	}
	mark("done")
	for i, v := range out {
		if v != 3 {
			return fmt.Errorf("fill wrote %v at %d, want 3", v, i)
		}
	}
	r.Device = dev.Info().Name
	return nil
}
