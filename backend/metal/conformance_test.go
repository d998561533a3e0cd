package metal_test

import (
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/metal"
)

// TestConformance runs the conformance suite on a Mac; elsewhere it skips
// with the probe's reason (Metal exists only on Apple platforms), unless
// ANYGPU_TEST_REQUIRE lists metal.
func TestConformance(t *testing.T) { backendtest.Run(t, metal.Driver{}) }

// TestConformancePrivate runs it again with private storage, the mode of
// discrete GPUs, so both transfer paths run on any Mac.
func TestConformancePrivate(t *testing.T) {
	backendtest.Run(t, metal.Driver{Storage: metal.StoragePrivate})
}
