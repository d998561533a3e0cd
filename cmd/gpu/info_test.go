package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInfo(t *testing.T) {
	code, stdout, stderr := runArgs(t, "info")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, regexp.MustCompile(`(?m)^cpu\s+available\s+0: `), stdout)
	assert.Contains(t, stdout, "\ncpu:0  ")
	for _, title := range []string{"identity", "compute", "memory", "features"} {
		assert.Contains(t, stdout, "\n  "+title+"\n")
	}
	// Every backend of the default order has a line, whatever its state.
	for _, name := range gpu.DefaultOrder {
		assert.Regexp(t, regexp.MustCompile(`(?m)^`+name+`\s`), stdout)
	}
}

// infoJSON mirrors the parts of gpu.Report the tests read.
type infoJSON struct {
	Backends []struct {
		Name    string `json:"name"`
		State   string `json:"state"`
		Reason  string `json:"reason"`
		Devices []struct {
			Backend     string `json:"backend"`
			Name        string `json:"name"`
			Type        string `json:"type"`
			Units       int    `json:"units"`
			MemoryBytes int64  `json:"memory_bytes"`
		} `json:"devices"`
	} `json:"backends"`
}

func TestInfoJSON(t *testing.T) {
	code, stdout, stderr := runArgs(t, "info", "--json")
	require.Equal(t, exitOK, code, stderr)
	var rep infoJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep), stdout)
	var found bool
	for _, b := range rep.Backends {
		if b.State != "available" {
			assert.NotEmpty(t, b.Reason, "backend %s is %s and says why", b.Name, b.State)
		}
		if b.Name != "cpu" {
			continue
		}
		found = true
		assert.Equal(t, "available", b.State)
		require.NotEmpty(t, b.Devices)
		d := b.Devices[0]
		assert.Equal(t, "cpu", d.Backend)
		assert.Equal(t, "CPU", d.Type)
		assert.NotEmpty(t, d.Name)
		assert.Positive(t, d.Units)
		assert.Positive(t, d.MemoryBytes)
	}
	assert.True(t, found, "the cpu backend is in the report")
}

func TestDeviceGroupsSkipUnknownFields(t *testing.T) {
	st := gpu.BackendStatus{Name: "cuda", State: gpu.Available}
	d := gpu.DeviceInfo{
		Backend: "cuda", Name: "NVIDIA H100", Type: backend.TypeDiscreteGPU, Units: 132,
		ComputeMajor: 9, ComputeMinor: 0, WarpSize: 32, MemoryBytes: 80 << 30, MemoryBusBits: 5120,
		SharedMemPerBlock: 48 << 10, BF16: true, FP64: true, ECC: true, AsyncEngines: 2,
		Extra: map[string]string{"mig": "off"},
	}
	var b strings.Builder
	writeDevice(&b, st, d)
	out := b.String()
	for _, want := range []string{"SMs", "132", "compute capability", "9.0", "48 KiB", "80 GiB", "5120 bits", "BF16 FP64", "ECC", "async engines", "mig"} {
		assert.Contains(t, out, want)
	}
	for _, absent := range []string{"clock", "uuid", "L2", "FP16", "unified", "registers"} {
		assert.NotContains(t, out, absent, "zero fields are left out")
	}
}

func TestByteSize(t *testing.T) {
	assert.Equal(t, "512 B", byteSize(512))
	assert.Equal(t, "1 KiB", byteSize(1024))
	assert.Equal(t, "1.5 MiB", byteSize(3<<19))
	assert.Equal(t, "256 MiB", byteSize(256<<20))
	assert.Equal(t, "80 GiB", byteSize(80<<30))
}
