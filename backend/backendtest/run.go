package backendtest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/testreq"
	"github.com/stretchr/testify/require"
)

// EnvRequire lists the backends that must be available when tests run.
const EnvRequire = testreq.EnvRequire

// Required reports whether ANYGPU_TEST_REQUIRE names backend name.
func Required(name string) bool { return testreq.Required(name) }

// SkipUnlessAvailable probes d and skips t with the probe's reason when it has
// no device, or fails t when ANYGPU_TEST_REQUIRE names the backend. It
// returns the devices the probe found.
func SkipUnlessAvailable(t testing.TB, d backend.Driver) []backend.DeviceInfo {
	t.Helper()
	return testreq.SkipUnlessAvailable(t, d)
}

// suite is the state the subtests share.
type suite struct {
	driver  backend.Driver
	ordinal int
	dev     *gpu.Device
	info    gpu.DeviceInfo
}

// Run runs the conformance suite against device 0 of d (or ANYGPU_DEVICE).
func Run(t *testing.T, d backend.Driver) {
	devs := SkipUnlessAvailable(t, d)
	ordinal := 0
	if env := os.Getenv(gpu.EnvDevice); env != "" {
		n, err := strconv.Atoi(env)
		require.NoError(t, err, "%s=%q", gpu.EnvDevice, env)
		require.Less(t, n, len(devs), "%s=%d but %s has %d devices", gpu.EnvDevice, n, d.Name(), len(devs))
		ordinal = n
	}
	s := &suite{driver: d, ordinal: ordinal}
	s.dev = s.open(t)
	s.info = s.dev.Info()
	t.Logf("conformance on %s: %s (%s)", s.dev.Name(), s.info.Name, s.info.Type)

	t.Run("Info", s.testInfo)
	t.Run("RoundTrip", s.testRoundTrip)
	t.Run("ReaderWriterAt", s.testReaderWriterAt)
	t.Run("ReadFrom", s.testReadFrom)
	t.Run("HostBuffers", s.testHostBuffers)
	t.Run("Typed", s.testTyped)
	t.Run("CopyD2D", s.testCopy)
	t.Run("Fill", s.testFill)
	t.Run("Kernels", s.testKernels)
	t.Run("KernelLanguage", s.testKernelLanguage)
	t.Run("KernelFuzz", s.testKernelFuzz)
	t.Run("KernelFuzzRepros", s.testKernelFuzzRepros)
	t.Run("StreamOrdering", s.testStreamOrdering)
	t.Run("CrossStreamWait", s.testCrossStreamWait)
	t.Run("Events", s.testEvents)
	t.Run("Graphs", s.testGraphs)
	t.Run("Concurrency", s.testConcurrency)
	t.Run("CloseTwice", s.testCloseTwice)
	t.Run("UseAfterClose", s.testUseAfterClose)
	t.Run("BadRanges", s.testBadRanges)
	t.Run("BadSizes", s.testBadSizes)
	t.Run("OversizeAlloc", s.testOversize)
	t.Run("CompileErrors", s.testCompileErrors)
	t.Run("BadLaunches", s.testBadLaunches)
	t.Run("CrossDevice", s.testCrossDevice)
	t.Run("Cancellation", s.testCancellation)
	t.Run("PoolAndStats", s.testPoolAndStats)
	t.Run("Profiler", s.testProfiler)
	t.Run("ErrorHistory", s.testErrorHistory)
	// Last: a faulting kernel may leave a GPU context unusable.
	t.Run("KernelFault", s.testKernelFault)
}

// open opens another Device on the suite's device; it is closed with t.
func (s *suite) open(t testing.TB, opts ...gpu.Option) *gpu.Device {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dev, err := gpu.OpenDriver(ctx, s.driver, s.ordinal, opts...)
	require.NoError(t, err, "open %s device %d", s.driver.Name(), s.ordinal)
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// requireCategory fails t unless err has category want.
func requireCategory(t testing.TB, err error, want errors.Category, msgAndArgs ...any) {
	t.Helper()
	require.Error(t, err, msgAndArgs...)
	require.Equalf(t, want, errors.CategoryOf(err), "error %q: category %v, want %v", err, errors.CategoryOf(err), want)
	require.NotEmpty(t, errors.Hint(err), "error %q has no hint", err)
}

func (s *suite) testInfo(t *testing.T) {
	i := s.info
	require.Equal(t, s.driver.Name(), i.Backend)
	require.Equal(t, s.ordinal, i.Ordinal)
	require.NotEmpty(t, i.Name)
	require.Positive(t, i.Units, "compute units")
	require.Positive(t, i.MemoryBytes, "memory")
	require.Positive(t, i.MaxThreadsPerBlock, "max threads per block")
	require.Positive(t, i.MaxBlockDim.X)
	require.Positive(t, i.MaxGridDim.X)
	require.NotEqual(t, backend.TypeUnknown, i.Type)
	require.Equal(t, fmt.Sprintf("%s:%d", s.driver.Name(), s.ordinal), s.dev.Name())
}
