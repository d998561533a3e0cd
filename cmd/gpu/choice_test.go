package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
)

func TestChooseDevice(t *testing.T) {
	sw := gpu.DeviceInfo{Name: "llvmpipe", Type: backend.TypeSoftware}
	dgpu := gpu.DeviceInfo{Name: "NVIDIA H200", Type: backend.TypeDiscreteGPU}
	cpu := gpu.DeviceInfo{Name: "AMD EPYC", Type: backend.TypeCPU}
	report := func(bs ...gpu.BackendStatus) gpu.Report { return gpu.Report{Backends: bs} }
	avail := func(name string, ds ...gpu.DeviceInfo) gpu.BackendStatus {
		for i := range ds {
			ds[i].Ordinal = i
		}
		return gpu.BackendStatus{Name: name, State: gpu.Available, Devices: ds}
	}
	down := gpu.BackendStatus{Name: "cuda", State: gpu.Unavailable}
	tests := []struct {
		name    string
		rep     gpu.Report
		env     map[string]string
		want    string // "backend:ordinal", "" for an error
		skipped []string
		err     string
	}{
		{"gpu first", report(avail("cuda", dgpu, dgpu), avail("vulkan", dgpu), avail("cpu", cpu)), nil, "cuda:0", nil, ""},
		{"software skipped", report(down, avail("vulkan", sw), avail("opengl", sw), avail("cpu", cpu)), nil, "cpu:0",
			[]string{"vulkan:0 llvmpipe is a software renderer", "opengl:0 llvmpipe is a software renderer"}, ""},
		{"software named", report(avail("vulkan", sw), avail("cpu", cpu)), map[string]string{gpu.EnvBackend: "Vulkan"}, "vulkan:0", nil, ""},
		{"device ordinal", report(avail("cuda", dgpu, dgpu), avail("cpu", cpu)), map[string]string{gpu.EnvDevice: "1"}, "cuda:1", nil, ""},
		{"ordinal past every device", report(avail("cuda", dgpu), avail("cpu", cpu)), map[string]string{gpu.EnvDevice: "3"}, "", nil, "no usable device"},
		{"named, unusable: cpu fallback", report(down, avail("cpu", cpu)), map[string]string{gpu.EnvBackend: "cuda"}, "cpu:0", nil, ""},
		{"bad ordinal", report(avail("cpu", cpu)), map[string]string{gpu.EnvDevice: "x"}, "", nil, "ANYGPU_DEVICE=\"x\""},
		{"nothing", report(down), nil, "", nil, "no usable device"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := chooseDevice(tt.rep, func(k string) string { return tt.env[k] })
			if tt.want == "" {
				assert.Contains(t, c.Err, tt.err)
				return
			}
			require.Empty(t, c.Err)
			assert.Equal(t, tt.want, c.Backend+":"+string(rune('0'+c.Ordinal)))
			assert.NotEmpty(t, c.Why)
			require.Len(t, c.Skipped, len(tt.skipped))
			for i, s := range tt.skipped {
				assert.Contains(t, c.Skipped[i], s)
			}
		})
	}
}

// TestChooseDeviceMatchesOpen checks `gpu info`'s reading of the report
// against what gpu.Open opens on this machine.
func TestChooseDeviceMatchesOpen(t *testing.T) {
	ctx := context.Background()
	c := chooseDevice(gpu.Probe(ctx), os.Getenv)
	require.Empty(t, c.Err)
	d, err := gpu.Open(ctx, gpu.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	require.NoError(t, err)
	defer d.Close()
	info := d.Info()
	assert.Equal(t, info.Backend+":"+info.Name, c.Backend+":"+c.Name)
	assert.Equal(t, info.Ordinal, c.Ordinal)
}

func TestInfoMarksChoice(t *testing.T) {
	code, stdout, stderr := runArgs(t, "info")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "\ngpu.Open picks ")
	assert.Equal(t, 1, strings.Count(stdout, "[gpu.Open picks this one]"), stdout)
	rep := gpu.Probe(context.Background())
	for _, st := range rep.Backends {
		if st.State == gpu.Available && st.Devices[0].Type == backend.TypeSoftware {
			assert.Contains(t, stdout, "  skipped "+st.Name+":0 ", "software renderers are said to be skipped")
			assert.Contains(t, stdout, "slower than the CPU backend")
		}
	}
}
