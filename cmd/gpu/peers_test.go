package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anygpu/gpu/internal/testreq"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakePython writes an executable standing in for python3 that records its
// arguments in args.txt next to it and prints out, and points ANYGPU_PYTHON
// at it.
func fakePython(t *testing.T, out string, exit int) (argsFile string) {
	t.Helper()
	dir := t.TempDir()
	argsFile = filepath.Join(dir, "args.txt")
	script := "#!/bin/sh\necho \"$@\" > " + argsFile + "\ncat <<'EOF'\n" + out + "\nEOF\nexit " + map[bool]string{true: "1", false: "0"}[exit != 0] + "\n"
	path := filepath.Join(dir, "python")
	require.NoError(t, os.WriteFile(path, []byte(script), 0o700))
	t.Setenv(envPython, path)
	return argsFile
}

func TestParsePeers(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		gpu     map[string]float64
		cpu     map[string]float64
		errs    map[string]string
		wantErr string
	}{
		{name: "both", in: `{"device": "NVIDIA H200", "saxpy_gbps": 4000, "launch_us": 2.5, "sgemm_tf32_tflops": 300,
			"numpy": {"version": "2.1", "blas": "openblas", "device": "x86_64", "sgemm_tflops": 0.35, "reduce_gbps": 12}}`,
			gpu: map[string]float64{mSaxpy: 4000, mLaunch: 2.5}, cpu: map[string]float64{mSgemm: 0.35, mReduce: 12}},
		{name: "numpy only", in: `{"numpy": {"d2d_gbps": 9}, "errors": {"gpu": "ModuleNotFoundError: No module named 'torch'"}}`,
			gpu: map[string]float64{}, cpu: map[string]float64{mD2D: 9}, errs: map[string]string{"gpu": "ModuleNotFoundError: No module named 'torch'"}},
		{name: "a null or negative figure is not a figure", in: `{"saxpy_gbps": null, "reduce_gbps": -1, "d2d_gbps": 3}`,
			gpu: map[string]float64{mD2D: 3}, cpu: map[string]float64{}},
		{name: "nothing measured", in: `{"errors": {"gpu": "no torch", "numpy": "no numpy"}}`, wantErr: "no peer was measured"},
		{name: "not JSON", in: `Traceback (most recent call last):`, wantErr: "printed no JSON"},
		{name: "numpy not an object", in: `{"saxpy_gbps": 1, "numpy": 3}`, wantErr: `"numpy" is not an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parsePeers([]byte(tt.in))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.gpu, p.GPU)
			assert.Equal(t, tt.cpu, p.CPU)
			if tt.errs != nil {
				assert.Equal(t, tt.errs, p.Errors)
			}
		})
	}
}

func TestPeerTable(t *testing.T) {
	p, err := parsePeers([]byte(`{"device": "NVIDIA H200", "h2d_pinned_gbps": 2, "launch_us": 1.5,
		"numpy": {"version": "2.1", "blas": "openblas", "launch_us": 24}}`))
	require.NoError(t, err)
	var b strings.Builder
	writePeerTable(&b, fakeResults(), p)
	out := b.String()
	assert.Contains(t, out, "pytorch/cupy: NVIDIA H200")
	assert.Contains(t, out, "numpy: NumPy 2.1 (openblas)")
	// cuda's h2d_pinned is 1 against the peer's 2 (0.5×); its launch is 6 µs
	// against 1.5 (0.25×: a time, lower is better); the cpu's launch is 12 µs
	// against NumPy's 24 (2×); vulkan's h2d is 0.5 against 2.
	assert.Regexp(t, `(?m)^cuda\s+h2d_pinned_gbps\s+1\.000\s+pytorch/cupy\s+2\.000\s+0\.500×$`, out)
	assert.Regexp(t, `(?m)^cuda\s+launch_us\s+6\.000\s+pytorch/cupy\s+1\.500\s+0\.250×$`, out)
	assert.Regexp(t, `(?m)^vulkan\s+h2d_pinned_gbps\s+0\.500\s+pytorch/cupy\s+2\.000\s+0\.250×$`, out)
	assert.Regexp(t, `(?m)^cpu\s+launch_us\s+12\.00\s+numpy\s+24\.00\s+2\.000×$`, out)
	assert.NotContains(t, out, "opengl", "a backend that did not open has no rows")
}

// TestBenchPeersRunsTheScript: --peers runs the embedded script with the
// interpreter ANYGPU_PYTHON names, passing the sizes bench used, and prints
// the comparison; a script that fails is exit status 1 with its reason.
func TestBenchPeersRunsTheScript(t *testing.T) {
	argsFile := fakePython(t, `{"numpy": {"version": "9.9", "reduce_gbps": 0.001, "d2d_gbps": 0.001}}`, 0)
	code, stdout, stderr := runArgs(t, "bench", "--backend", "cpu", "--quick", "--metrics", "reduce_gbps,d2d_gbps", "--peers")
	require.Equal(t, exitOK, code, "stderr:\n%s", stderr)
	assert.Contains(t, stdout, "against the peers")
	assert.Regexp(t, `(?m)^cpu\s+reduce_gbps\s+\S+\s+numpy\s+0\.001`, stdout)
	assert.Regexp(t, `(?m)^cpu\s+d2d_gbps\s+\S+\s+numpy\s+0\.001`, stdout)
	args, err := os.ReadFile(argsFile)
	require.NoError(t, err)
	assert.Contains(t, string(args), "peers.py --transfer-bytes 16777216 --elements 4194304 --sgemm-n 512 --cpu-sgemm-n 512 --quick")

	t.Run("json", func(t *testing.T) {
		code, stdout, stderr := runArgs(t, "bench", "--backend", "cpu", "--quick", "--metrics", "d2d_gbps", "--peers", "--json")
		require.Equal(t, exitOK, code, "stderr:\n%s", stderr)
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
		assert.Equal(t, map[string]any{"version": "9.9", "reduce_gbps": 0.001, "d2d_gbps": 0.001}, got["peers"].(map[string]any)["numpy"])
	})
	t.Run("failing script", func(t *testing.T) {
		fakePython(t, `Traceback: boom`, 1)
		code, _, stderr := runArgs(t, "bench", "--backend", "cpu", "--quick", "--metrics", "d2d_gbps", "--peers")
		assert.Equal(t, exitFail, code)
		assert.Contains(t, stderr, "gpu bench: peers:")
		assert.Contains(t, stderr, envPython, "the error says how to pick another interpreter")
	})
}

// TestPeersScriptWithNumPy runs the real script where NumPy is installed
// (required when ANYGPU_TEST_REQUIRE names numpy): it measures NumPy and
// reports the missing GPU peers instead of failing.
func TestPeersScriptWithNumPy(t *testing.T) {
	python := os.Getenv(envPython)
	if python == "" {
		python = "python3"
	}
	if err := exec.Command(python, "-c", "import numpy").Run(); err != nil {
		if testreq.Required("numpy") {
			t.Fatalf("%s with numpy is required (%s names numpy): %v", python, testreq.EnvRequire, err)
		}
		t.Skipf("no %s with numpy: %v", python, err)
	}
	t.Setenv(envPython, python)
	code, stdout, stderr := runArgs(t, "bench", "--backend", "cpu", "--quick", "--metrics", "reduce_gbps,sgemm_tflops", "--peers")
	require.Equal(t, exitOK, code, "stderr:\n%s", stderr)
	assert.Regexp(t, `(?m)^cpu\s+reduce_gbps\s+\S+\s+numpy\s+\S+\s+\S+×$`, stdout)
	assert.Regexp(t, `(?m)^cpu\s+sgemm_tflops\s+\S+\s+numpy\s+\S+\s+\S+×$`, stdout)
}

func TestBenchPeersScriptFlag(t *testing.T) {
	code, stdout, _ := runArgs(t, "bench", "--peers-script")
	require.Equal(t, exitOK, code)
	assert.Equal(t, string(peersScript), stdout)
	assert.Contains(t, stdout, "torch.mm")
}
