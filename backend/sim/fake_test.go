package sim_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/sim"
	"github.com/anygpu/gpu/errors"
)

// TestSimulateStrict hands Simulate (what the root package calls for each
// backend ANYGPU_FAKE names) unknown and malformed entries: each is an
// InvalidArgument naming ANYGPU_FAKE, the entry and the accepted presets,
// with a "did you mean" for a near miss.
func TestSimulateStrict(t *testing.T) {
	for _, tc := range []struct {
		name    string
		backend string
		presets []string
		want    []string // substrings of the message
		not     string   // a substring the message must not have
	}{
		{"unknown preset", "cuda", []string{"nonsense"}, []string{"ANYGPU_FAKE", `"cuda:nonsense"`, "h100", "a100"}, "did you mean"},
		{"near preset", "cuda", []string{"h10"}, []string{"ANYGPU_FAKE", `"cuda:h10"`, `did you mean "h100"?`}, ""},
		{"swapped preset", "vulkan", []string{"rtx4009"}, []string{`"vulkan:rtx4009"`, `did you mean "rtx4090"?`}, ""},
		{"second of two", "cuda", []string{"h100", "a10O"}, []string{`"cuda:a10O"`, `did you mean "a100"?`}, ""},
		{"near fault", "cuda", []string{"h100+oon@3"}, []string{`"cuda:h100+oon@3"`, "oom@N", `did you mean "oom"?`}, ""},
		{"fault as preset", "cuda", []string{"nocompil"}, []string{`"cuda:nocompil"`, `did you mean "nocompile"?`}, ""},
		{"bad count", "cuda", []string{"h100+lose@x"}, []string{"ANYGPU_FAKE", `"cuda:h100+lose@x"`, `"x" is not a count`}, ""},
		{"empty fault", "cuda", []string{"h100+"}, []string{"ANYGPU_FAKE", `"cuda:h100+"`, "empty fault"}, ""},
		{"near backend", "cdua", []string{"h100"}, []string{"ANYGPU_FAKE", `"cdua:h100"`, "cannot be simulated", `did you mean "cuda"?`}, ""},
		{"unknown backend", "nonsense", nil, []string{"ANYGPU_FAKE", `"nonsense"`, "cuda, metal, opengl, vulkan, webgpu"}, "did you mean"},
		{"the simulator itself", "sim", []string{"x"}, []string{"ANYGPU_FAKE", `"sim:x"`, "stands in for another backend"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sim.Driver{}.Simulate(tc.backend, tc.presets)
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			if tc.not != "" {
				assert.NotContains(t, err.Error(), tc.not)
			}
		})
	}
}

// TestFakeStrictOpen opens through the root package with ANYGPU_FAKE naming
// an unknown preset of a known backend: Open fails with InvalidArgument
// naming the variable, instead of running on another device.
func TestFakeStrictOpen(t *testing.T) {
	cleanEnv(t)
	for _, fake := range []string{"cuda:nonsense", "cuda:h10", "cuda:h100+oon@3"} {
		t.Run(fake, func(t *testing.T) {
			t.Setenv(gpu.EnvFake, fake)
			dev, err := gpu.Open(context.Background())
			if dev != nil {
				_ = dev.Close()
			}
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
			assert.Contains(t, err.Error(), "ANYGPU_FAKE")
			assert.Contains(t, err.Error(), fake)
		})
	}
}
