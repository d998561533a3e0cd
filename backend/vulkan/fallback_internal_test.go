//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
)

// TestConformanceFallbacks runs the conformance suite again with the
// optional features off: fences instead of timeline semaphores and
// descriptor pools instead of push descriptors, timestamp queries reset in
// command buffers, as on a bare Vulkan 1.1 driver.
func TestConformanceFallbacks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	backendtest.Run(t, Driver{NoTimeline: true, NoPushDescriptors: true, noHostQueryReset: true})
}

// TestConformanceTransferLane runs the suite with large host transfers on a
// second lane of the stream (on lavapipe, which has no transfer queue, the
// lane shares the compute queue), so switching lanes is tested everywhere.
func TestConformanceTransferLane(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	backendtest.Run(t, Driver{transferOnCompute: true})
}
