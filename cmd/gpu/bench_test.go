package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBenchQuickJSON(t *testing.T) {
	code, stdout, stderr := runArgs(t, "bench", "--backend", "cpu", "--quick", "--json")
	require.Equal(t, exitOK, code, "stderr:\n%s", stderr)
	assert.Empty(t, stderr, "no progress line when stderr is not a terminal")
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	for _, name := range metricNames() {
		if isLibraryMetric(name) && name != mMatMulF32 {
			assert.Nil(t, got[name], "the CPU backend's matrix library multiplies float32 only: %s is left out", name)
			continue
		}
		v, ok := got[name].(float64)
		if assert.True(t, ok, "%s is a number: %v", name, got[name]) {
			assert.Positive(t, v, name)
		}
	}
	assert.Len(t, metricNames(), 15)
	assert.Equal(t, "cpu", got["backend"])
	assert.Equal(t, "anygpu", got["tool"])
	assert.Equal(t, true, got["quick"])
	assert.NotEmpty(t, got["device"])
	assert.EqualValues(t, 16<<20, got["transfer_bytes"])
	assert.EqualValues(t, 4<<20, got["saxpy_n"])
	assert.EqualValues(t, 512, got["sgemm_n"])
	assert.NotContains(t, got, "errors")
	assert.NotContains(t, got, "results", "one backend: a flat object")
}

func TestBenchQuickTable(t *testing.T) {
	t.Setenv(gpu.EnvBackend, "cpu") // the default device, as gpu.Open picks it
	code, stdout, stderr := runArgs(t, "bench", "--quick")
	require.Equal(t, exitOK, code, "stderr:\n%s", stderr)
	assert.Contains(t, stdout, "cpu:0")
	assert.Contains(t, stdout, "sgemm 512³")
	for _, name := range metricNames() {
		line := lineStarting(stdout, name+" ")
		if isLibraryMetric(name) && name != mMatMulF32 {
			assert.Empty(t, line, "no row for %s, which the CPU backend cannot measure (its library multiplies float32 only)", name)
			continue
		}
		if assert.NotEmpty(t, line, "a row for %s", name) {
			assert.NotContains(t, line, "error")
		}
	}
	assert.NotContains(t, stdout, "/cuda", "no ratio column without cuda")
}

func lineStarting(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func TestBenchUnknownBackend(t *testing.T) {
	code, stdout, stderr := runArgs(t, "bench", "--backend", "nosuch", "--quick")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, `unknown backend "nosuch"`)
	assert.Contains(t, stderr, "cpu", "the error lists the known backends")
}

func TestBenchUnavailableBackend(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var name string
	for _, st := range gpu.Probe(ctx).Backends {
		if st.State != gpu.Available {
			name = st.Name
			break
		}
	}
	if name == "" {
		t.Skip("every backend is available here")
	}
	code, stdout, stderr := runArgs(t, "bench", "--backend", name, "--quick", "--json")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "gpu bench: "+name+": ")
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	assert.Equal(t, name, got["backend"])
	assert.NotEmpty(t, got["error"])
	assert.Nil(t, got[mSaxpy])
}

// fakeResults are results as bench would produce them, for the output tests.
func fakeResults() []*result {
	vals := func(scale float64) map[string]float64 {
		m := map[string]float64{}
		for i, n := range metricNames() {
			m[n] = scale * float64(i+1)
		}
		return m
	}
	sz := sizesFor(gpu.DeviceInfo{}, false, false)
	cpuSz := sizesFor(gpu.DeviceInfo{Type: backend.TypeCPU}, false, false)
	return []*result{
		{Backend: "vulkan", DeviceName: "vulkan:0", Device: "H100", DeviceType: "discrete GPU", Sizes: sz, Clock: clockEvents,
			Values: vals(0.5), Errors: map[string]string{}},
		{Backend: "cuda", DeviceName: "cuda:0", Device: "H100", DeviceType: "discrete GPU", Sizes: sz, Clock: clockEvents,
			Values: vals(1), Errors: map[string]string{}},
		{Backend: "cpu", DeviceName: "cpu:0", Device: "EPYC", DeviceType: "CPU", Sizes: cpuSz, Clock: clockEvents,
			Values: map[string]float64{mLaunch: 12}, Errors: map[string]string{mSgemm: "sgemm C[0,0] is 1, want 2"}},
		{Backend: "opengl", Err: errors.New("no EGL")},
	}
}

func TestTableRatioToCUDA(t *testing.T) {
	var b strings.Builder
	writeTable(&b, fakeResults())
	out := b.String()
	assert.Contains(t, out, "opengl: not measured: no EGL")
	assert.Contains(t, out, "vulkan/cuda")
	assert.Contains(t, out, "cpu/cuda")
	assert.NotContains(t, out, "cuda/cuda")
	// vulkan has half cuda's throughput (0.5× as fast) and half its times
	// (2× as fast); cpu has twice cuda's launch time (0.5× as fast).
	assert.Regexp(t, `^h2d_pinned_gbps\s+GB/s\s+0\.500\s+0\.500×\s+1\.000\s+-\s+-$`, lineStarting(out, mH2DPinned))
	assert.Regexp(t, `^launch_us\s+µs\s+3\.000\s+2\.000×\s+6\.000\s+12\.00\s+0\.500×$`, lineStarting(out, mLaunch))
	assert.Contains(t, lineStarting(out, mSgemm), "error")
	assert.Contains(t, out, "cpu sgemm_tflops: sgemm C[0,0] is 1, want 2")
	assert.Contains(t, out, "sgemm 2048³ (not 4096³")
}

func TestJSONShape(t *testing.T) {
	var b strings.Builder
	require.NoError(t, writeJSON(&b, fakeResults(), nil))
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(b.String()), &got))
	assert.Equal(t, "cuda", got["backend"], "cuda is the primary result")
	assert.EqualValues(t, 1, got[mH2DPinned])
	assert.NotEqualValues(t, got[mAllocFree], got[mAllocFreePool], "pooled and unpooled allocation are measured separately")
	all, ok := got["results"].([]any)
	require.True(t, ok, "several backends: a results list")
	require.Len(t, all, 4)
	cpu := all[2].(map[string]any)
	assert.Nil(t, cpu[mSgemm], "a failed metric is null")
	assert.EqualValues(t, 2048, cpu["sgemm_n"], "the size used is reported")
	assert.Equal(t, map[string]any{mSgemm: "sgemm C[0,0] is 1, want 2"}, cpu["errors"])
	assert.Equal(t, "no EGL", all[3].(map[string]any)["error"])
}

func TestMedian(t *testing.T) {
	assert.Equal(t, time.Duration(0), median(nil))
	s := time.Second
	assert.Equal(t, 3*s, median([]time.Duration{5 * s, 1 * s, 3 * s}))
	assert.Equal(t, 2500*time.Millisecond, median([]time.Duration{4 * s, 1 * s, 2 * s, 3 * s}))
}

func TestSamples(t *testing.T) {
	s := samples(1000, 16)
	require.Len(t, s, 16)
	assert.Equal(t, 0, s[0])
	assert.Equal(t, 999, s[15])
	for i := 1; i < len(s); i++ {
		assert.Greater(t, s[i], s[i-1], "increasing and distinct")
	}
	assert.Equal(t, []int{0, 1, 2}, samples(3, 16))
}

func TestSizes(t *testing.T) {
	full := sizesFor(gpu.DeviceInfo{}, false, false)
	assert.EqualValues(t, 256<<20, full.TransferBytes)
	assert.Equal(t, 64<<20, full.Elements)
	assert.Equal(t, 4096, full.SgemmN)
	assert.EqualValues(t, 1<<20, full.AllocBytes)
	assert.False(t, full.SgemmReduced)
	cpu := sizesFor(gpu.DeviceInfo{Type: backend.TypeCPU}, false, false)
	assert.True(t, cpu.SgemmReduced)
	assert.Less(t, cpu.SgemmN, 4096)
	sim := sizesFor(gpu.DeviceInfo{Type: backend.TypeDiscreteGPU}, true, false)
	assert.True(t, sim.SgemmReduced, "a simulated GPU computes on the CPU")
}

// A metric that loses the device fails alone: the device is reopened and
// the other metrics still run.
func TestBenchReopensALostDevice(t *testing.T) {
	// Quick launch_us launches fill 100 + 3×1000 times: the device is lost
	// in the middle of it, and no other metric launches that often.
	t.Setenv(gpu.EnvFake, "cuda:h100+lose@1500")
	code, stdout, stderr := runArgs(t, "bench", "--backend", "cuda", "--quick", "--json")
	assert.Equal(t, exitFail, code)
	assert.Contains(t, stderr, "launch_us")
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	assert.Equal(t, "cuda", got["backend"])
	assert.Equal(t, true, got["simulated"])
	assert.Nil(t, got[mLaunch])
	errs, _ := got["errors"].(map[string]any)
	assert.Contains(t, errs[mLaunch], "lose@1500")
	assert.Len(t, errs, 1, "only launch_us failed: %v", errs)
	for _, name := range metricNames() {
		if isLibraryMetric(name) {
			assert.Nil(t, got[name], "a simulated GPU has no matrix library")
			continue
		}
		if name != mLaunch {
			v, _ := got[name].(float64)
			assert.Positive(t, v, name)
		}
	}
}

func TestBenchMetricsFlag(t *testing.T) {
	code, stdout, stderr := runArgs(t, "bench", "--backend", "cpu", "--quick", "--metrics", "launch_us, d2d_gbps")
	require.Equal(t, exitOK, code, stderr)
	assert.NotEmpty(t, lineStarting(stdout, "launch_us"))
	assert.NotEmpty(t, lineStarting(stdout, "d2d_gbps"))
	assert.Empty(t, lineStarting(stdout, "saxpy_gbps"), "metrics not asked for have no row")

	code, stdout, stderr = runArgs(t, "bench", "--backend", "cpu", "--quick", "--metrics", "launch_us", "--json")
	require.Equal(t, exitOK, code, stderr)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.NotNil(t, got["launch_us"])
	assert.Nil(t, got["saxpy_gbps"])

	for _, bad := range []string{"nosuch", ","} {
		code, stdout, stderr = runArgs(t, "bench", "--backend", "cpu", "--metrics", bad)
		assert.Equal(t, exitUsage, code, bad)
		assert.Empty(t, stdout, bad)
		assert.Contains(t, stderr, "metric", bad)
	}
}
