package sim_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/sim"
)

// TestConformance runs the conformance suite every backend runs on simulated
// devices: they must behave like real ones. cuda:h100 is the reference;
// metal:m2-max adds another backend's errors and an integrated GPU.
func TestConformance(t *testing.T) {
	for _, c := range []struct{ backend, preset string }{
		{"cuda", "h100"},
		{"metal", "m2-max"},
	} {
		t.Run(c.backend+":"+c.preset, func(t *testing.T) {
			cleanEnv(t)
			drv, err := sim.NewDriver(c.backend, []string{c.preset}, sim.Faults{})
			require.NoError(t, err)
			backendtest.Run(t, drv)
		})
	}
}
