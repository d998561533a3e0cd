package sim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend/sim"
	"github.com/anygpu/gpu/errors"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		backend, spec string
		preset        string
		faults        sim.Faults
	}{
		{"cuda", "", "h100", sim.Faults{}},
		{"cuda", "h100", "h100", sim.Faults{}},
		{"cuda", " A100 ", "a100", sim.Faults{}},
		{"cuda", "h100+oom@3", "h100", sim.Faults{FailAllocAt: 3}},
		{"cuda", "h100+oom%4", "h100", sim.Faults{FailAllocEvery: 4}},
		{"cuda", "h100+oom@3+lose@10+nocompile+memlimit=1GiB", "h100",
			sim.Faults{FailAllocAt: 3, LoseAfterLaunches: 10, FailCompile: true, MemoryLimit: 1 << 30}},
		{"cuda", "t4 + NoCompile + LOSE@2", "t4", sim.Faults{FailCompile: true, LoseAfterLaunches: 2}},
		{"cuda", "+oom@1", "h100", sim.Faults{FailAllocAt: 1}},
		{"cuda", "unavailable", "h100", sim.Faults{Unavailable: "libcuda.so.1: cannot open shared object file: No such file or directory (simulated)"}},
		{"vulkan", "rtx4090+unavailable", "rtx4090", sim.Faults{Unavailable: "libvulkan.so.1: cannot open shared object file: No such file or directory (simulated)"}},
		{"cuda", "a100+unavailable=driver 470 is too old", "a100", sim.Faults{Unavailable: "driver 470 is too old"}},
		{"cuda", "h100+memlimit=512MiB", "h100", sim.Faults{MemoryLimit: 512 << 20}},
		{"cuda", "h100+memlimit=64KB", "h100", sim.Faults{MemoryLimit: 64000}},
		{"cuda", "h100+memlimit=1.5g", "h100", sim.Faults{MemoryLimit: 3 << 29}},
		{"cuda", "h100+memlimit=4096", "h100", sim.Faults{MemoryLimit: 4096}},
		{"metal", "m3-pro+nocompile", "m3-pro", sim.Faults{FailCompile: true}},
		{"webgpu", "", "rtx4090", sim.Faults{}},
	}
	for _, tt := range tests {
		t.Run(tt.backend+":"+tt.spec, func(t *testing.T) {
			preset, f, err := sim.ParseSpec(tt.backend, tt.spec)
			require.NoError(t, err)
			assert.Equal(t, tt.preset, preset)
			assert.Equal(t, tt.faults, f)

			// String writes the faults back in the spec syntax.
			preset2, f2, err := sim.ParseSpec(tt.backend, preset+f.String())
			require.NoError(t, err, "round trip of %q", preset+f.String())
			assert.Equal(t, preset, preset2)
			assert.Equal(t, f, f2)
		})
	}
}

func TestParseSpecErrors(t *testing.T) {
	tests := []struct {
		backend, spec string
		want          []string // substrings of the message: the bad token first
	}{
		{"cuda", "h900", []string{`"h900"`, "h100", "a100", "oom@N"}},
		{"cuda", "h100+oops", []string{`"oops"`, "oom@N", "nocompile"}},
		{"cuda", "h100+oom@", []string{`"oom@"`, "count"}},
		{"cuda", "h100+oom@0", []string{`"oom@0"`, "at least 1"}},
		{"cuda", "h100+oom@-2", []string{`"oom@-2"`}},
		{"cuda", "h100+lose@x", []string{`"lose@x"`}},
		{"cuda", "h100+oom%0", []string{`"oom%0"`}},
		{"cuda", "h100+memlimit=lots", []string{`"memlimit=lots"`, "size"}},
		{"cuda", "h100+memlimit=0", []string{`"memlimit=0"`}},
		{"cuda", "h100+memlimit=1XB", []string{`"memlimit=1XB"`}},
		{"cuda", "h100+oom@1+oom@2", []string{`"oom@2"`, "twice"}},
		{"cuda", "h100++nocompile", []string{"empty fault"}},
		{"cuda", "h100+", []string{"empty fault"}},
		{"cuda", "h100+unavailable=", []string{`"unavailable="`}},
		{"cuda", "h100+nocompile=yes", []string{`"nocompile=yes"`}},
		{"vulkan", "h100", []string{`"h100"`, "rtx4090", "lavapipe"}},
		{"directx", "rtx4090", []string{`"directx"`, "cuda", "vulkan"}},
	}
	for _, tt := range tests {
		t.Run(tt.backend+":"+tt.spec, func(t *testing.T) {
			_, _, err := sim.ParseSpec(tt.backend, tt.spec)
			require.Error(t, err)
			assert.True(t, errors.Is(err, errors.InvalidArgument), "category of %v", err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestFaultsString(t *testing.T) {
	tests := []struct {
		f    sim.Faults
		want string
	}{
		{sim.Faults{}, ""},
		{sim.Faults{FailAllocAt: 3}, "+oom@3"},
		{sim.Faults{FailAllocEvery: 2, MemoryLimit: 3 << 20}, "+oom%2+memlimit=3MiB"},
		{sim.Faults{MemoryLimit: 1000}, "+memlimit=1000"},
		{sim.Faults{FailCompile: true, LoseAfterLaunches: 7}, "+nocompile+lose@7"},
		{sim.Faults{Unavailable: "driver too old"}, "+unavailable=driver too old"},
		{sim.Faults{Unavailable: "a+b"}, "+unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.f.String())
			assert.Equal(t, tt.want == "", tt.f.IsZero())
		})
	}
}
