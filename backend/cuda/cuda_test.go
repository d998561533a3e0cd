package cuda_test

import (
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/cuda"
)

// TestConformance runs the backend conformance suite on CUDA device 0 (or
// ANYGPU_DEVICE). Without a CUDA driver it skips with the probe's reason,
// unless ANYGPU_TEST_REQUIRE names cuda.
func TestConformance(t *testing.T) { backendtest.Run(t, cuda.Driver{}) }
