// Package backendtest is the conformance suite every backend runs:
//
//	func TestConformance(t *testing.T) { backendtest.Run(t, mybackend.Driver{}) }
//
// It drives the backend through the public API of github.com/anygpu/gpu, so
// the root package's argument checks and bookkeeping are part of what is
// tested, and every backend is judged by the same subtests: round trips at
// sizes from 1 byte to 256 MiB at odd offsets, device-to-device copies, fills,
// every built-in kernel against the CPU reference, stream ordering,
// cross-stream waits, events and timing, 32 goroutines on 32 streams, double
// Close, use after Close, out-of-range offsets and sizes, zero and negative
// sizes, oversize allocations, kernels that do not compile, and wrong kernel
// arguments.
//
// A backend that is unavailable on this machine is skipped with the probe's
// reason, unless ANYGPU_TEST_REQUIRE lists it ("cpu,vulkan"): then the skip is
// a failure. Under -short the largest round trips are left out.
//
// The package also holds what the backends' own tests share: Bench, the
// benchmark harness every backend's bench test calls with its driver and
// sizes (launch round trip and throughput, pageable transfers, saxpy, sgemm,
// reduce, device work timed between events, as `gpu bench` measures), and
// the helpers CheckFloats and RunConcurrently.
package backendtest
