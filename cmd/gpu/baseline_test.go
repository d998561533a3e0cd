package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeFile writes data to a new file in a test directory and returns its path.
func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
	return path
}

func TestLoadBaseline(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    baseline
		wantErr string
	}{
		{name: "one backend", in: `{"backend": "cuda", "saxpy_gbps": 4000, "launch_us": 2, "sgemm_tflops": null}`,
			want: baseline{"cuda": {mSaxpy: 4000, mLaunch: 2}}},
		{name: "several", in: `{"backend": "cuda", "saxpy_gbps": 1, "results": [{"backend": "cuda", "saxpy_gbps": 4000}, {"backend": "cpu", "reduce_gbps": 20}]}`,
			want: baseline{"cuda": {mSaxpy: 4000}, "cpu": {mReduce: 20}}},
		{name: "not JSON", in: `saxpy 4000`, wantErr: "not the JSON of gpu bench --json"},
		{name: "no backend", in: `{"saxpy_gbps": 4000}`, wantErr: `without "backend"`},
		{name: "bad results", in: `{"backend": "cuda", "results": 3}`, wantErr: `"results" is not a list`},
		{name: "empty results", in: `{"backend": "cuda", "results": []}`, wantErr: "no results"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := loadBaseline(writeFile(t, "base.json", tt.in))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := loadBaseline(filepath.Join(t.TempDir(), "missing.json"))
	require.ErrorContains(t, err, "baseline:")
}

func TestCompareBaseline(t *testing.T) {
	now := []*result{
		{Backend: "cuda", Values: map[string]float64{mSaxpy: 90, mReduce: 96, mLaunch: 2.2, mSgemm: 50, mD2D: 10}},
		{Backend: "cpu", Values: map[string]float64{mSaxpy: 1}},
	}
	base := baseline{
		"cuda":   {mSaxpy: 100, mReduce: 100, mLaunch: 2, mSgemm: 40},
		"vulkan": {mSaxpy: 1000},
	}
	regs, compared := compareBaseline(now, base, 5)
	assert.Equal(t, 4, compared, "cuda's four shared metrics; d2d, cpu and vulkan are on one side only")
	require.Len(t, regs, 2)
	// saxpy 90 against 100: the baseline was 11.1% faster; launch 2.2 µs
	// against 2: 10% slower; reduce 96 (4.2%) is within 5%; sgemm improved.
	assert.Equal(t, mSaxpy, regs[0].Metric)
	assert.InDelta(t, 11.11, regs[0].Worse, 0.01)
	assert.Equal(t, mLaunch, regs[1].Metric)
	assert.InDelta(t, 10, regs[1].Worse, 0.01)

	regs, _ = compareBaseline(now, base, 15)
	assert.Empty(t, regs, "a wider tolerance lets both through")
}

// TestBenchBaseline: a baseline far better than this machine fails the run
// with the regressions listed; one far worse passes.
func TestBenchBaseline(t *testing.T) {
	better := writeFile(t, "better.json", `{"backend": "cpu", "d2d_gbps": 1e9}`)
	code, stdout, stderr := runArgs(t, "bench", "--backend", "cpu", "--quick", "--metrics", "d2d_gbps", "--baseline", better)
	assert.Equal(t, exitFail, code, "stderr:\n%s", stderr)
	assert.Contains(t, stdout, "1 of 1 metrics more than 5% worse")
	assert.Regexp(t, `(?m)^cpu\s+d2d_gbps\s+\S+\s+1000000000\s+\S+%$`, stdout)

	worse := writeFile(t, "worse.json", `{"backend": "cpu", "d2d_gbps": 1e-9}`)
	code, stdout, stderr = runArgs(t, "bench", "--backend", "cpu", "--quick", "--metrics", "d2d_gbps", "--baseline", worse, "--json")
	require.Equal(t, exitOK, code, "stderr:\n%s", stderr)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	b := got["baseline"].(map[string]any)
	assert.EqualValues(t, 1, b["compared"])
	assert.Empty(t, b["regressions"])

	code, _, stderr = runArgs(t, "bench", "--backend", "cpu", "--quick", "--baseline", filepath.Join(t.TempDir(), "none.json"))
	assert.Equal(t, exitUsage, code)
	assert.True(t, strings.Contains(stderr, "baseline:"), stderr)

	code, _, stderr = runArgs(t, "bench", "--tolerance", "-1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--tolerance -1")
}
