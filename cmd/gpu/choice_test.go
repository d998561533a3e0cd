package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
)

// TestChooseDevice checks how `gpu info` shows gpu.Report.Choose's answer
// (the policy itself is tested with Choose, in package gpu): which device,
// which available backends were skipped and why, or why Open would fail.
func TestChooseDevice(t *testing.T) {
	sw := gpu.DeviceInfo{Backend: "vulkan", Name: "llvmpipe", Type: backend.TypeSoftware}
	cpu := gpu.DeviceInfo{Backend: "cpu", Name: "AMD EPYC", Type: backend.TypeCPU}
	rep := gpu.Report{Backends: []gpu.BackendStatus{
		{Name: "cuda", State: gpu.Unavailable, Reason: "no libcuda.so.1"},
		{Name: "vulkan", State: gpu.Available, Devices: []gpu.DeviceInfo{sw}},
		{Name: "cpu", State: gpu.Available, Devices: []gpu.DeviceInfo{cpu}},
	}}
	tests := []struct {
		name    string
		opts    []gpu.Option
		want    string   // the line gpu info prints
		skipped []string // fragments of its "skipped" lines, in order
	}{
		{"software skipped", []gpu.Option{gpu.WithFallback(true)},
			"gpu.Open picks cpu:0  AMD EPYC (no GPU backend is usable: the CPU fallback)\n",
			[]string{"vulkan: only a software renderer (llvmpipe), slower than the CPU backend; name the backend (ANYGPU_BACKEND=vulkan)"}},
		{"software named", []gpu.Option{gpu.WithBackends("vulkan")},
			"gpu.Open picks vulkan:0  llvmpipe (the first usable backend of WithBackends(vulkan))\n", nil},
		{"ordinal missing", []gpu.Option{gpu.WithBackends("vulkan", "cpu"), gpu.WithDevice(1)},
			"gpu.Open would fail: choose: no usable device: vulkan: device 1 requested, 1 present; cpu: device 1 requested, 1 present",
			[]string{}},
		{"nothing", []gpu.Option{gpu.WithBackends("cuda"), gpu.WithFallback(false)},
			"gpu.Open would fail: choose: no usable device: cuda: no libcuda.so.1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(gpu.EnvBackend, "")
			t.Setenv(gpu.EnvDevice, "")
			c := chooseDevice(rep, tt.opts...)
			var out bytes.Buffer
			c.write(&out)
			lines := strings.SplitAfter(out.String(), "\n")
			assert.Contains(t, lines[0], tt.want)
			require.Len(t, c.Skipped, len(tt.skipped), out.String())
			for i, s := range tt.skipped {
				assert.Contains(t, c.Skipped[i], s)
				assert.Equal(t, "  skipped "+c.Skipped[i]+"\n", lines[i+1])
			}
			if c.Err == "" {
				assert.True(t, c.is(c.Backend, gpu.DeviceInfo{Ordinal: c.Ordinal}))
			}
		})
	}
}

// TestChooseDeviceMatchesOpen checks `gpu info`'s mark against what gpu.Open
// opens on this machine, under this process's environment.
func TestChooseDeviceMatchesOpen(t *testing.T) {
	ctx := context.Background()
	c := chooseDevice(gpu.Probe(ctx))
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
			assert.Contains(t, stdout, "  skipped "+st.Name+": only a software renderer", "software renderers are said to be skipped")
			assert.Contains(t, stdout, "slower than the CPU backend")
		}
	}
}
