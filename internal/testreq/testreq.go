// Package testreq decides whether a test that needs a backend skips or
// fails: ANYGPU_TEST_REQUIRE lists the backends that must be available (a
// skip is then a failure). Package backendtest re-exports it; packages that
// backendtest itself imports (the kernel translator's) use it directly.
package testreq

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu/backend"
)

// EnvRequire lists the backends that must be available when tests run.
const EnvRequire = "ANYGPU_TEST_REQUIRE"

// Required reports whether ANYGPU_TEST_REQUIRE names backend name.
func Required(name string) bool {
	return slices.Contains(strings.Split(strings.ReplaceAll(os.Getenv(EnvRequire), " ", ""), ","), name)
}

// SkipUnlessAvailable probes d and skips t with the probe's reason when it has
// no device, or fails t when ANYGPU_TEST_REQUIRE names the backend. It
// returns the devices the probe found.
func SkipUnlessAvailable(t testing.TB, d backend.Driver) []backend.DeviceInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	devs, err := d.Probe(ctx)
	if err == nil && len(devs) > 0 {
		return devs
	}
	reason := "no devices"
	if err != nil {
		reason = err.Error()
	}
	if Required(d.Name()) {
		t.Fatalf("backend %s is required (%s=%s) but unavailable: %s", d.Name(), EnvRequire, os.Getenv(EnvRequire), reason)
	}
	t.Skipf("backend %s unavailable: %s", d.Name(), reason)
	return nil
}
