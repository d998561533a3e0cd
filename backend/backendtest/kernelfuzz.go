package backendtest

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/internal/kernelfuzz"
	"github.com/anygpu/gpu/kernel"
	"github.com/stretchr/testify/require"
)

// EnvKernelFuzz sets how long the KernelFuzz subtest generates kernels, as
// a Go duration (ANYGPU_KERNEL_FUZZ=2m) or a number of seeds
// (ANYGPU_KERNEL_FUZZ=200), starting from EnvKernelFuzzStart or a seed
// taken from the clock; "0" or "off" skips it. Unset, it runs a fixed
// handful of seeds so an ordinary test run stays fast.
const EnvKernelFuzz = "ANYGPU_KERNEL_FUZZ"

// EnvKernelFuzzSeed replays one seed of the KernelFuzz subtest (the one a
// failure names): ANYGPU_KERNEL_FUZZ_SEED=42.
const EnvKernelFuzzSeed = "ANYGPU_KERNEL_FUZZ_SEED"

// EnvKernelFuzzSource names a Go file that replaces the generated source of
// the seed EnvKernelFuzzSeed replays (its inputs and geometry stay), to
// shrink a failure by hand: keep each kernel's signature, cut the body.
const EnvKernelFuzzSource = "ANYGPU_KERNEL_FUZZ_SOURCE"

// EnvKernelFuzzStart is the first seed of a timed or counted run (default:
// from the clock, printed in the test's log).
const EnvKernelFuzzStart = "ANYGPU_KERNEL_FUZZ_START"

// EnvKernelFuzzSeedTimeout bounds the time one seed may take on the backend
// (translating, compiling, creating pipelines, running, reading back), as a
// Go duration; default kernelFuzzSeedTimeout. A seed that takes longer is
// reported with its source and fails the run, which goes on with the next
// seed: the seeds run in a child process that is killed then, since a
// driver busy compiling (lavapipe creating the pipeline of some kernels, see
// internal/kernelfuzz's doc) cannot be interrupted from Go.
const EnvKernelFuzzSeedTimeout = "ANYGPU_KERNEL_FUZZ_SEED_TIMEOUT"

// envKernelFuzzChild marks the child process that runs the seeds for the
// parent's watchdog (kernelfuzz_watchdog.go).
const envKernelFuzzChild = "ANYGPU_KERNEL_FUZZ_CHILD"

// kernelFuzzDefaultSeeds is how many seeds run when EnvKernelFuzz is unset.
const kernelFuzzDefaultSeeds = 10

// kernelFuzzMaxFailures stops a run after this many failing seeds.
const kernelFuzzMaxFailures = 3

// kernelFuzzSeedTimeout is the default of EnvKernelFuzzSeedTimeout: a seed
// takes a few seconds at most on lavapipe and llvmpipe on 2 busy cores.
const kernelFuzzSeedTimeout = 30 * time.Second

// kernelFuzzPlan is which seeds to run: one seed to replay, count seeds from
// start, or seeds from start on while the budget lasts.
type kernelFuzzPlan struct {
	replay bool // start only (EnvKernelFuzzSeed)
	start  uint64
	count  uint64
	budget time.Duration
}

// fuzzPlan reads the plan from the environment.
func fuzzPlan() (plan kernelFuzzPlan, skip bool, err error) {
	if env := os.Getenv(EnvKernelFuzzSeed); env != "" {
		seed, err := strconv.ParseUint(env, 10, 64)
		if err != nil {
			return plan, false, fmt.Errorf("%s=%q: want a seed (an unsigned integer): %w", EnvKernelFuzzSeed, env, err)
		}
		return kernelFuzzPlan{replay: true, start: seed, count: 1}, false, nil
	}
	env := os.Getenv(EnvKernelFuzz)
	switch env {
	case "":
		return kernelFuzzPlan{count: kernelFuzzDefaultSeeds}, false, nil
	case "0", "off":
		return plan, true, nil
	}
	plan.start = uint64(time.Now().UnixNano()) % 1_000_000_000
	if env := os.Getenv(EnvKernelFuzzStart); env != "" {
		if plan.start, err = strconv.ParseUint(env, 10, 64); err != nil {
			return plan, false, fmt.Errorf("%s=%q: want a seed (an unsigned integer): %w", EnvKernelFuzzStart, env, err)
		}
	}
	if count, err := strconv.ParseUint(env, 10, 32); err == nil {
		plan.count = count
		return plan, count == 0, nil
	}
	d, err := time.ParseDuration(env)
	if err != nil {
		return plan, false, fmt.Errorf("%s=%q: want a Go duration (40s, 2m), a number of seeds, or off: %w", EnvKernelFuzz, env, err)
	}
	plan.budget = d
	return plan, d <= 0, nil
}

// seedTimeout reads EnvKernelFuzzSeedTimeout.
func seedTimeout() (time.Duration, error) {
	env := os.Getenv(EnvKernelFuzzSeedTimeout)
	if env == "" {
		return kernelFuzzSeedTimeout, nil
	}
	d, err := time.ParseDuration(env)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive Go duration (30s, 2m)", EnvKernelFuzzSeedTimeout, env)
	}
	return d, nil
}

// kernelFuzzOptions is the generator's options on a backend: everything,
// less the constructs of known, not yet fixed translator or driver bugs
// (none now: Abs of a uint32, a constant signed remainder on OpenGL and
// arithmetic on GroupSizeX on WebGPU were found by this fuzzer and fixed).
func kernelFuzzOptions(backendName string) kernelfuzz.Options {
	return kernelfuzz.Default()
}

// testKernelFuzz generates random valid kernels (internal/kernelfuzz),
// translates each with kernel.Translate, runs it on the backend and on
// the CPU backend, and compares every buffer: integers exactly, floats
// (integral and exact by construction) exactly. The seeds run in a child
// process under a per-seed watchdog (kernelfuzz_watchdog.go), so that no
// kernel can hang the run.
func (s *suite) testKernelFuzz(t *testing.T) {
	plan, skip, err := fuzzPlan()
	require.NoError(t, err)
	if skip {
		t.Skipf("%s=%s", EnvKernelFuzz, os.Getenv(EnvKernelFuzz))
	}
	if os.Getenv(envKernelFuzzChild) == "" {
		timeout, err := seedTimeout()
		require.NoError(t, err)
		s.watchKernelFuzz(t, plan, timeout)
		return
	}
	ctx := ctxT(t)
	ref, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = ref.Close() })
	opt := kernelFuzzOptions(s.driver.Name())

	failures, ran := 0, 0
	runSeed := func(seed uint64) {
		ran++
		if !t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { s.fuzzSeed(t, ref, seed, opt) }) {
			failures++
		}
	}
	deadline := time.Now().Add(plan.budget)
	for seed := plan.start; failures < kernelFuzzMaxFailures; seed++ {
		if plan.budget > 0 && !time.Now().Before(deadline) || plan.budget == 0 && seed-plan.start >= plan.count {
			break
		}
		runSeed(seed)
	}
	t.Logf("%d seeds from %d, %d failed", ran, plan.start, failures)
}

// testKernelFuzzRepros runs every shrunk kernel of a seed that once failed
// (kernelfuzz.Repros: internal/kernelfuzz/testdata) with its seed's cases,
// on the backend and the CPU, so that the bugs they found stay fixed.
func (s *suite) testKernelFuzzRepros(t *testing.T) {
	repros, err := kernelfuzz.Repros()
	require.NoError(t, err)
	ctx := ctxT(t)
	ref, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = ref.Close() })
	opt := kernelFuzzOptions(s.driver.Name())
	for _, r := range repros {
		t.Run(r.Name, func(t *testing.T) {
			p := kernelfuzz.Generate(r.Seed, opt)
			p.Source = r.Source
			if !r.DriverBug(s.info.Name) {
				s.fuzzProgram(t, ref, r.Seed, p)
				return
			}
			// A known driver bug on this device: its result is reported, the
			// test does not fail on it (everything before the comparison must
			// still work).
			if err := s.fuzzRun(t, ref, r.Seed, p); err != nil {
				t.Logf("%s: the known driver bug of this repro shows on %s (%s): %v", r.Name, s.dev.Name(), s.info.Name, err)
			} else {
				t.Logf("%s: %s (%s) gives the right results now: the driver bug of this repro is fixed here", r.Name, s.dev.Name(), s.info.Name)
			}
		})
	}
}

// fuzzSeed runs the program of one seed on the backend and the CPU.
func (s *suite) fuzzSeed(t *testing.T, ref *gpu.Device, seed uint64, opt kernelfuzz.Options) {
	p := kernelfuzz.Generate(seed, opt)
	if file := os.Getenv(EnvKernelFuzzSource); file != "" {
		b, err := os.ReadFile(file)
		require.NoError(t, err, "%s", EnvKernelFuzzSource)
		p.Source = string(b)
	}
	s.fuzzProgram(t, ref, seed, p)
}

// fuzzProgram runs p (seed's cases) on the backend and the CPU and fails t
// unless they match.
func (s *suite) fuzzProgram(t *testing.T, ref *gpu.Device, seed uint64, p kernelfuzz.Program) {
	defer func() {
		if t.Failed() {
			t.Logf("replay: %s\n%s", replayCommand(seed, s.driver.Name(), t.Name()), numberLines(p.Source))
		}
	}()
	if err := s.fuzzRun(t, ref, seed, p); err != nil {
		require.Failf(t, "results differ", "%v", err)
	}
}

// fuzzRun runs p (seed's cases) on the backend and the CPU and returns how
// their results differ (nil when they match); a kernel that does not
// translate, compile or launch fails t.
func (s *suite) fuzzRun(t *testing.T, ref *gpu.Device, seed uint64, p kernelfuzz.Program) error {
	ctx := ctxT(t)
	src, err := kernel.Translate(p.Source)
	if err != nil {
		require.Failf(t, "kernel.Translate rejected a generated kernel",
			"seed %d: either a generator bug (the source below is not valid kernel language: fix internal/kernelfuzz) "+
				"or a translator bug (the source is valid: fix the kernel package): %v", seed, err)
	}
	refMod, err := ref.Compile(ctx, src)
	if err != nil {
		require.Failf(t, "the CPU backend rejected a translated kernel", "seed %d: a translator bug (interp): %v", seed, err)
	}
	t.Cleanup(func() { _ = refMod.Close() })
	mod, err := s.dev.Compile(ctx, src)
	if err != nil {
		require.Failf(t, "the backend rejected a translated kernel",
			"seed %d: %s could not compile the translation of a valid kernel: a translator (emitter) bug or a driver bug: %v",
			seed, s.dev.Name(), err)
	}
	t.Cleanup(func() { _ = mod.Close() })
	var diffs []error
	for _, c := range p.Cases {
		want := runCase(t, ref, refMod, c)
		got := runCase(t, s.dev, mod, c)
		if err := c.Compare(got, want); err != nil {
			diffs = append(diffs, fmt.Errorf("seed %d (grid %v, block %v): %w", seed, c.Grid, c.Block, err))
		}
	}
	return errors.Join(diffs...)
}

// numberLines prefixes each line of src with its number, for the
// file:line:col of translation errors.
func numberLines(src string) string {
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	for i, l := range lines {
		lines[i] = fmt.Sprintf("%4d  %s", i+1, l)
	}
	return strings.Join(lines, "\n")
}

// replayCommand is the command line that replays seed on the backend
// named backendName, from the name of the seed's subtest.
func replayCommand(seed uint64, backendName, seedTestName string) string {
	return fmt.Sprintf("%s=%d go test -count=1 ./backend/%s -run '%s'",
		EnvKernelFuzzSeed, seed, backendName, replayPattern(seedTestName))
}

// replayPattern is the go test -run pattern of the KernelFuzz subtest
// that holds the seed subtest named name.
func replayPattern(name string) string {
	parts := strings.Split(name, "/")
	parts = parts[:len(parts)-1] // the seed's own subtest
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
