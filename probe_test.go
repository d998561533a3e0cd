package gpu_test

import (
	"context"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProbeStates(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	rep := gpu.Probe(ctx)
	require.Less(t, time.Since(start), 5*time.Second, "a blocking probe is bounded by the context")
	for _, tc := range []struct {
		name  string
		state gpu.State
		inMsg string
	}{
		{"cpu", gpu.Available, ""},
		{"test-ok", gpu.Available, ""},
		{"test-broken", gpu.Unavailable, "cannot open shared object"},
		{"test-notcompiled", gpu.NotCompiled, "built without cgo"},
		{"test-empty", gpu.NoDevices, "no device"},
		{"test-slow", gpu.Unavailable, "deadline"},
		{"test-panic", gpu.Unavailable, "panicked"},
		{"cuda", gpu.NotCompiled, "not linked"},
		{"vulkan", gpu.NotCompiled, "not linked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, ok := rep.Backend(tc.name)
			require.True(t, ok, "report lists %s", tc.name)
			assert.Equal(t, tc.state, st.State, "state of %s: %+v", tc.name, st)
			assert.Contains(t, st.Reason, tc.inMsg)
			if tc.state != gpu.Available {
				assert.NotEmpty(t, st.Hint, "every unavailable backend has a hint")
				assert.Empty(t, st.Devices)
			}
		})
	}
	ok, _ := rep.Backend("test-ok")
	require.Len(t, ok.Devices, 2)
	require.Equal(t, 1, ok.Devices[1].Ordinal)
	require.Equal(t, "test-ok", ok.Devices[1].Backend)
	broken, _ := rep.Backend("test-broken")
	require.Equal(t, "install the test driver", broken.Hint)
	require.Equal(t, "libtest.so: cannot open shared object file", broken.Reason, "the reason carries neither backend prefix nor hint")
	// The default order comes first, then the others sorted.
	require.Equal(t, "cuda", rep.Backends[0].Name)
	text := rep.String()
	for _, want := range []string{"BACKEND", "test-ok device", "available", "hint: install the test driver"} {
		require.Contains(t, text, want)
	}
}

func TestStateStrings(t *testing.T) {
	for s, want := range map[gpu.State]string{gpu.Available: "available", gpu.NoDevices: "no devices", gpu.Unavailable: "unavailable", gpu.NotCompiled: "not compiled", gpu.State(0): "unknown"} {
		require.Equal(t, want, s.String())
		b, err := s.MarshalText()
		require.NoError(t, err)
		require.Equal(t, want, string(b))
	}
}
