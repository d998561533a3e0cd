package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// peersScript is peers.py: the figures of PyTorch/CuPy (GPU) and NumPy (CPU)
// under gpu bench's metric names. It is embedded so that `gpu bench --peers`
// works from an installed binary, with no checkout.
//
//go:embed peers.py
var peersScript []byte

// envPython names the Python interpreter --peers runs (default python3).
const envPython = "ANYGPU_PYTHON"

// peersTimeout bounds one run of the peers script: a full run on an H100
// takes about a minute, most of it CuPy's cold compile and torch's start.
const peersTimeout = 5 * time.Minute

// peerFigures is what peers.py measured: the GPU peers' metrics (PyTorch,
// CuPy) and NumPy's, each by gpu bench metric name, and why a peer is
// missing.
type peerFigures struct {
	GPUDevice string             // torch.cuda.get_device_name
	GPU       map[string]float64 // by metric name; empty without torch/cupy
	CPUDevice string             // NumPy's machine and BLAS
	CPU       map[string]float64 // NumPy's metrics; empty without numpy
	Errors    map[string]string  // "gpu" or "numpy" → why it was not measured
	Raw       json.RawMessage    // the script's whole output, for --json
}

// peerFor returns the peer figures a backend is compared with: NumPy for a
// CPU device, the GPU peers otherwise, and the peer's name.
func (p *peerFigures) peerFor(r *result) (string, map[string]float64) {
	if r.DeviceType == "CPU" {
		return "numpy", p.CPU
	}
	return "pytorch/cupy", p.GPU
}

// runPeers runs the embedded peers.py with the sizes gpu bench used, so that
// both sides measure the same problems, and parses its output. A peer
// library that is missing is not an error (peerFigures.Errors says why);
// a script that cannot run or prints no JSON is.
func runPeers(ctx context.Context, quick bool, sz sizes, stderr io.Writer) (*peerFigures, error) {
	python := os.Getenv(envPython)
	if python == "" {
		python = "python3"
	}
	dir, err := os.MkdirTemp("", "anygpu-peers-")
	if err != nil {
		return nil, fmt.Errorf("peers: %w", err)
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "peers.py")
	if err := os.WriteFile(script, peersScript, 0o600); err != nil {
		return nil, fmt.Errorf("peers: %w", err)
	}
	args := []string{script,
		"--transfer-bytes", strconv.FormatInt(sz.TransferBytes, 10),
		"--elements", strconv.Itoa(sz.Elements),
		"--sgemm-n", strconv.Itoa(sz.gpuSgemmN()),
		"--cpu-sgemm-n", strconv.Itoa(sz.cpuSgemmN()),
	}
	if quick {
		args = append(args, "--quick")
	}
	ctx, cancel := context.WithTimeout(ctx, peersTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, stderr
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("peers: %s %s did not finish in %v", python, filepath.Base(script), peersTimeout)
	}
	p, err := parsePeers(out.Bytes())
	if err != nil {
		if runErr != nil {
			return nil, fmt.Errorf("peers: %s: %w (set %s to another interpreter)", python, runErr, envPython)
		}
		return nil, err
	}
	return p, nil
}

// parsePeers reads peers.py's JSON: the GPU peers' metrics at the top level,
// NumPy's under "numpy", reasons under "errors".
func parsePeers(data []byte) (*peerFigures, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("peers: the script printed no JSON object: %w", err)
	}
	p := &peerFigures{GPU: map[string]float64{}, CPU: map[string]float64{}, Errors: map[string]string{}, Raw: data}
	_ = json.Unmarshal(top["errors"], &p.Errors)
	_ = json.Unmarshal(top["device"], &p.GPUDevice)
	numbers := func(obj map[string]json.RawMessage, into map[string]float64) {
		for _, name := range metricNames() {
			var v float64
			if raw, ok := obj[name]; ok && json.Unmarshal(raw, &v) == nil && v > 0 {
				into[name] = v
			}
		}
	}
	numbers(top, p.GPU)
	if raw, ok := top["numpy"]; ok {
		var np map[string]json.RawMessage
		if err := json.Unmarshal(raw, &np); err != nil {
			return nil, fmt.Errorf("peers: \"numpy\" is not an object: %w", err)
		}
		numbers(np, p.CPU)
		var version, device, blas string
		_ = json.Unmarshal(np["version"], &version)
		_ = json.Unmarshal(np["device"], &device)
		_ = json.Unmarshal(np["blas"], &blas)
		p.CPUDevice = fmt.Sprintf("NumPy %s", version)
		if blas != "" {
			p.CPUDevice += " (" + blas + ")"
		}
		if device != "" {
			p.CPUDevice += " on " + device
		}
	}
	if len(p.GPU) == 0 && len(p.CPU) == 0 {
		return nil, fmt.Errorf("peers: no peer was measured: %v", p.Errors)
	}
	return p, nil
}

// gpuSgemmN and cpuSgemmN are the sgemm sizes the peers use: the size gpu
// bench used on GPUs and on CPUs.
func (s sizes) gpuSgemmN() int {
	if s.SgemmReduced {
		return fullSgemmN
	}
	return s.SgemmN
}

func (s sizes) cpuSgemmN() int {
	if s.SgemmN < slowSgemmN {
		return s.SgemmN // --quick
	}
	return slowSgemmN
}

// writePeerTable prints, for every measured backend, each metric beside its
// peer's figure and the ratio (above 1: anygpu is ahead; for times the
// inverse), then why a peer is missing.
func writePeerTable(w io.Writer, results []*result, p *peerFigures) {
	fmt.Fprintln(w, "\nagainst the peers (peers.py, run right after on this machine; above 1: anygpu is ahead):")
	if p.GPUDevice != "" {
		fmt.Fprintf(w, "  pytorch/cupy: %s\n", p.GPUDevice)
	}
	if p.CPUDevice != "" {
		fmt.Fprintf(w, "  numpy: %s\n", p.CPUDevice)
	}
	rows := [][]string{{"backend", "metric", "ours", "peer", "theirs", "ours/theirs"}}
	for _, r := range results {
		if r.Err != nil {
			continue
		}
		name, figures := p.peerFor(r)
		for _, metric := range metricNames() {
			v, have := r.Values[metric]
			ref, peerHas := figures[metric]
			if !have || !peerHas {
				continue
			}
			rows = append(rows, []string{r.Backend, metric, formatValue(v), name, formatValue(ref), speedup(metric, v, ref)})
		}
	}
	if len(rows) > 1 {
		writeColumns(w, rows)
	} else {
		fmt.Fprintln(w, "  no metric was measured by both")
	}
	for _, k := range []string{"gpu", "numpy"} {
		if why, ok := p.Errors[k]; ok {
			fmt.Fprintf(w, "  %s peer not measured: %s\n", k, why)
		}
	}
}

// speedup is how many times better v is than ref on a metric (ref/v for
// times).
func speedup(metric string, v, ref float64) string {
	if v == 0 || ref == 0 {
		return "-"
	}
	x := v / ref
	if lowerIsBetter(metric) {
		x = ref / v
	}
	return formatValue(x) + "×"
}
