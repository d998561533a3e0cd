package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor"
	"github.com/stretchr/testify/require"
)

// torchIndex is testdata/reference.json, written by make_reference.py.
type torchIndex struct {
	Config  string  `json:"config"`
	Prompt  []int32 `json:"prompt"`
	Greedy  []int32 `json:"greedy"`
	Rows    []int   `json:"rows"`
	Vocab   int     `json:"vocab"`
	Float32 struct {
		Weights string `json:"weights"`
		Logits  string `json:"logits"`
	} `json:"float32"`
	BFloat16 *struct {
		Weights      string  `json:"weights"`
		Logits       string  `json:"logits"`
		DecodeInputs []int32 `json:"decode_inputs"`
	} `json:"bfloat16"`
}

// loadTorch reads the index in dir, or skips the test when the files are
// absent.
func loadTorch(t *testing.T, testdata string) (torchIndex, Config) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testdata, "reference.json"))
	if os.IsNotExist(err) {
		t.Skip("testdata/reference.json absent: run `cd examples/gpt2/testdata && python3 make_reference.py --out .` " +
			"where torch is installed and commit the small files it writes")
	}
	require.NoError(t, err)
	var idx torchIndex
	require.NoError(t, json.Unmarshal(raw, &idx))
	cfg, err := loadConfig(filepath.Join(testdata, idx.Config))
	require.NoError(t, err)
	return idx, cfg
}

// torchSteps reads a logits file: per step, rows×vocab float32s.
func torchSteps(t *testing.T, testdata string, idx torchIndex, name string) [][][]float64 {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testdata, name))
	require.NoError(t, err)
	total := 0
	for _, r := range idx.Rows {
		total += r * idx.Vocab
	}
	require.Len(t, raw, 4*total, "%s: the index's rows × vocab float32s", name)
	var steps [][][]float64
	off := 0
	for _, r := range idx.Rows {
		rows := make([][]float64, r)
		for i := range rows {
			rows[i] = make([]float64, idx.Vocab)
			for j := range rows[i] {
				rows[i][j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*off:])))
				off++
			}
		}
		steps = append(steps, rows)
	}
	return steps
}

func openTorchModel(t *testing.T, dev *gpu.Device, testdata string, cfg Config, weights string, d tensor.DType) (*Model, *safetensors) {
	t.Helper()
	st, err := openSafetensors(filepath.Join(testdata, weights))
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	m, err := LoadAs(context.Background(), dev, st, cfg, d)
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	return m, st
}

// TestMatchesPyTorchFloat32: PyTorch's logits (prefill at every prompt
// position, then each greedy decode step) and greedy ids, from the same
// safetensors file, within 1e-4 of each row's largest logit, on every
// backend.
func TestMatchesPyTorchFloat32(t *testing.T) { checkTorchFloat32(t, "testdata") }

func checkTorchFloat32(t *testing.T, testdata string) {
	idx, cfg := loadTorch(t, testdata)
	want := torchSteps(t, testdata, idx, idx.Float32.Logits)
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		m, _ := openTorchModel(t, dev, testdata, cfg, idx.Float32.Weights, tensor.Float32)
		ids, steps := collect(t, m, idx.Prompt, len(idx.Greedy))
		require.Len(t, steps, len(want))
		for i := range want {
			requireLogits(t, want[i], steps[i], 1e-4, "step vs PyTorch")
		}
		require.Equal(t, idx.Greedy, ids, "greedy ids vs PyTorch")
	})
}

// TestFloat64ReferenceMatchesPyTorch ties the float64 forward the other
// tests use to PyTorch's.
func TestFloat64ReferenceMatchesPyTorch(t *testing.T) { checkTorchFloat64(t, "testdata") }

func checkTorchFloat64(t *testing.T, testdata string) {
	idx, cfg := loadTorch(t, testdata)
	want := torchSteps(t, testdata, idx, idx.Float32.Logits)
	st, err := openSafetensors(filepath.Join(testdata, idx.Float32.Weights))
	require.NoError(t, err)
	defer st.Close()
	w := map[string]hostTensor{}
	for _, n := range st.names() {
		d, shape, err := st.float32s(n)
		require.NoError(t, err)
		w[n] = hostTensor{shape: shape, data: d}
	}
	seq := append(append([]int32{}, idx.Prompt...), idx.Greedy[:len(idx.Greedy)-1]...)
	ref := referenceLogits(cfg, w, seq)
	P := len(idx.Prompt)
	got := func(rows [][]float64) []float32 {
		var out []float32
		for _, r := range rows {
			for _, v := range r {
				out = append(out, float32(v))
			}
		}
		return out
	}
	requireLogits(t, ref[:P], got(want[0]), 1e-4, "PyTorch prefill vs float64")
	for i := 1; i < len(want); i++ {
		requireLogits(t, ref[P-1+i:P+i], got(want[i]), 1e-4, "PyTorch decode vs float64")
	}
}

// TestMatchesPyTorchBFloat16: the bfloat16 weights computed in bfloat16
// (every op's result rounded to bfloat16, float32 inside), on every
// backend, against PyTorch computing in bfloat16, fed the same tokens:
// within 2e-2 of each row's largest logit. The same weights computed in
// float32 are held to it too.
func TestMatchesPyTorchBFloat16(t *testing.T) { checkTorchBFloat16(t, "testdata") }

func checkTorchBFloat16(t *testing.T, testdata string) {
	idx, cfg := loadTorch(t, testdata)
	if idx.BFloat16 == nil {
		t.Skip("reference.json has no bfloat16 references (the torch that wrote it had no CPU bfloat16)")
	}
	want := torchSteps(t, testdata, idx, idx.BFloat16.Logits)
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		for _, d := range []tensor.DType{tensor.BFloat16, tensor.Float32} {
			t.Run(d.String(), func(t *testing.T) {
				m, _ := openTorchModel(t, dev, testdata, cfg, idx.BFloat16.Weights, d)
				checkTorchSteps(t, m, idx, want)
			})
		}
	})
}

// checkTorchSteps runs the prompt, then the bfloat16 reference's decode
// inputs one at a time, and checks each step's logits against want.
func checkTorchSteps(t *testing.T, m *Model, idx torchIndex, want [][][]float64) {
	t.Helper()
	dev := m.dev
	ctx := context.Background()
	run := func(tokens []int32, pos int, all bool) []float32 {
		ids, err := tensor.FromSlice(ctx, dev, tokens, len(tokens))
		require.NoError(t, err)
		defer ids.Close()
		logits, err := m.Forward(ids, pos, all)
		require.NoError(t, err)
		defer logits.Close()
		v, err := logits.ToFloat32(ctx)
		require.NoError(t, err)
		return v
	}
	requireLogits(t, want[0], run(idx.Prompt, 0, true), 2e-2, "bfloat16 prefill")
	for i, tok := range idx.BFloat16.DecodeInputs {
		requireLogits(t, want[i+1], run([]int32{tok}, len(idx.Prompt)+i, false), 2e-2, "bfloat16 decode step")
	}
}

// TestTorchChecksOnGoWrittenFiles runs the PyTorch comparisons on files in
// make_reference.py's layout written here, the float64 forward standing in
// for PyTorch (bfloat16: on the rounded weights), so that the checks are
// known to read that layout before PyTorch's files arrive.
func TestTorchChecksOnGoWrittenFiles(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Layers: 2, Heads: 4, Embd: 32, Vocab: 70, Positions: 16, Eps: 1e-5}
	w := randomWeights(cfg, 9)
	prompt := []int32{3, 69, 0, 12, 12}
	const decode = 3
	// The greedy ids of the float64 forward, one at a time.
	seq := append([]int32{}, prompt...)
	var greedy []int32
	for range decode + 1 {
		ref := referenceLogits(cfg, w, seq)
		best, _ := argmax64(ref[len(ref)-1])
		greedy = append(greedy, int32(best))
		seq = append(seq, int32(best))
	}
	logitsFile := func(name string, w map[string]hostTensor) {
		ref := referenceLogits(cfg, w, seq[:len(prompt)+decode])
		var raw []byte
		for _, row := range ref {
			for _, v := range row {
				raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(float32(v)))
			}
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), raw, 0o644))
	}
	writeSafetensors(t, filepath.Join(dir, "model-small.safetensors"), "F32", w)
	writeSafetensors(t, filepath.Join(dir, "model-small-bf16.safetensors"), "BF16", w)
	logitsFile("reference-f32.bin", w)
	rounded := map[string]hostTensor{}
	for n, h := range w {
		d := make([]float32, len(h.data))
		for i, v := range h.data {
			d[i] = tensor.BFloat16ToFloat32(tensor.BFloat16FromFloat32(v))
		}
		rounded[n] = hostTensor{shape: h.shape, data: d}
	}
	logitsFile("reference-bf16.bin", rounded)
	cj, err := json.Marshal(map[string]any{"n_layer": cfg.Layers, "n_head": cfg.Heads, "n_embd": cfg.Embd,
		"vocab_size": cfg.Vocab, "n_positions": cfg.Positions, "layer_norm_epsilon": cfg.Eps})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model-small.json"), cj, 0o644))
	rows := []int{len(prompt)}
	for range decode {
		rows = append(rows, 1)
	}
	ij, err := json.Marshal(map[string]any{"config": "model-small.json", "prompt": prompt, "greedy": greedy, "rows": rows, "vocab": cfg.Vocab,
		"float32":  map[string]any{"weights": "model-small.safetensors", "logits": "reference-f32.bin"},
		"bfloat16": map[string]any{"weights": "model-small-bf16.safetensors", "logits": "reference-bf16.bin", "decode_inputs": greedy[:decode]}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "reference.json"), ij, 0o644))

	t.Run("float32", func(t *testing.T) { checkTorchFloat32(t, dir) })
	t.Run("float64", func(t *testing.T) { checkTorchFloat64(t, dir) })
	t.Run("bfloat16", func(t *testing.T) { checkTorchBFloat16(t, dir) })
}
