package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/prebuilt"
	"github.com/anygpu/gpu/kernels"
)

func TestDriverAPI(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{{"13.0", 13000}, {"12.8", 12080}, {"", 0}, {"13", 0}, {"x.y", 0}} {
		assert.Equal(t, c.want, driverAPI(c.in), c.in)
	}
}

// TestBuiltinsOrigin: gpu info names the image the CUDA backend would load
// for the built-ins, or says NVRTC compiles them.
func TestBuiltinsOrigin(t *testing.T) {
	src := kernels.Source()
	key := prebuilt.Key(src.CUDA, prebuilt.NVRTCOptions(src, backend.CompileOptions{}, nil))
	dir := t.TempDir()
	require.NoError(t, prebuilt.Write(dir, []prebuilt.Compiled{{
		Key: key, Program: src.Name, Origin: "kernels.Source", Source: src.CUDA,
		Target: "sm_90", NVRTC: "13.0", Image: []byte("not a real cubin"),
	}}))
	set, err := prebuilt.Open(os.DirFS(dir))
	require.NoError(t, err)
	defer prebuilt.SetDefault(set)()

	cuda := gpu.BackendStatus{Name: "cuda"}
	for _, c := range []struct {
		name string
		st   gpu.BackendStatus
		info gpu.DeviceInfo
		want string
	}{
		{"hopper", cuda, gpu.DeviceInfo{ComputeMajor: 9, ComputeMinor: 0, APIVersion: "13.0"}, "precompiled, sm_90 CUBIN (NVRTC 13.0)"},
		{"ampere", cuda, gpu.DeviceInfo{ComputeMajor: 8, ComputeMinor: 0, APIVersion: "13.0"}, "NVRTC on first use (no precompiled image for compute capability 8.0)"},
		{"vulkan", gpu.BackendStatus{Name: "vulkan"}, gpu.DeviceInfo{ComputeMajor: 9}, ""},
		{"no capability", cuda, gpu.DeviceInfo{}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, builtinsOrigin(c.st, c.info))
		})
	}
}
