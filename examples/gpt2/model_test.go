package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/internal/testreq"
	"github.com/anygpu/gpu/tensor"
	"github.com/stretchr/testify/require"
)

// testBackends are the backends the model is checked on; those without a
// device are skipped (failed when ANYGPU_TEST_REQUIRE names them).
var testBackends = []string{"cpu", "vulkan", "opengl", "webgpu", "cuda", "metal"}

// forEachDevice runs f on a device of every available backend.
func forEachDevice(t *testing.T, f func(t *testing.T, dev *gpu.Device)) {
	t.Helper()
	for _, b := range testBackends {
		t.Run(b, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			dev, err := gpu.Open(ctx, gpu.WithBackends(b), gpu.WithFallback(false), gpu.WithFake(""))
			if err != nil {
				if testreq.Required(b) {
					t.Fatalf("backend %s is required but unavailable: %v", b, err)
				}
				t.Skipf("backend %s unavailable: %v", b, err)
			}
			defer dev.Close()
			defer tensor.Release(context.Background(), dev)
			f(t, dev)
		})
	}
}

// smallConfig is the shape of the tests' model: odd enough (3 heads of 8,
// a vocabulary across matmul tiles) to catch index errors.
var smallConfig = Config{Layers: 2, Heads: 3, Embd: 24, Vocab: 131, Positions: 40, Eps: 1e-5}

// loadTemp writes ts as a safetensors file of dtype and loads it on dev, a
// model computing in float32.
func loadTemp(t *testing.T, dev *gpu.Device, c Config, dtype string, ts map[string]hostTensor) *Model {
	t.Helper()
	return loadTempAs(t, dev, c, dtype, tensor.Float32, ts)
}

// loadTempAs is loadTemp for a model computing in d.
func loadTempAs(t *testing.T, dev *gpu.Device, c Config, dtype string, d tensor.DType, ts map[string]hostTensor) *Model {
	t.Helper()
	path := filepath.Join(t.TempDir(), "model.safetensors")
	writeSafetensors(t, path, dtype, ts)
	st, err := openSafetensors(path)
	require.NoError(t, err)
	defer st.Close()
	m, err := LoadAs(context.Background(), dev, st, c, d)
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// collect runs Generate and returns the ids and each step's logits (step 0:
// every prompt position).
func collect(t *testing.T, m *Model, prompt []int32, n int) ([]int32, [][]float32) {
	t.Helper()
	ctx := context.Background()
	var steps [][]float32
	ids, _, err := m.Generate(ctx, prompt, n, func(step int, logits *tensor.Tensor) error {
		v, err := logits.ToFloat32(ctx)
		steps = append(steps, v)
		return err
	})
	require.NoError(t, err)
	require.Len(t, ids, n)
	require.Len(t, steps, n)
	return ids, steps
}

// checkAgainst compares a generation with the float64 reference forward
// over the same tokens: prefill logits at every prompt position, each
// decode step's at its position, and the greedy ids where the reference's
// lead is clear of the tolerance.
func checkAgainst(t *testing.T, c Config, w map[string]hostTensor, prompt, ids []int32, steps [][]float32, rel float64) {
	t.Helper()
	seq := append(append([]int32{}, prompt...), ids[:len(ids)-1]...)
	want := referenceLogits(c, w, seq)
	P := len(prompt)
	requireLogits(t, want[:P], steps[0], rel, "prefill")
	for i := 1; i < len(steps); i++ {
		requireLogits(t, want[P-1+i:P+i], steps[i], rel, "decode step")
	}
	for i, id := range ids {
		best, lead := argmax64(want[P-1+i])
		if lead > 1e-3 {
			require.Equal(t, int32(best), id, "greedy token %d", i)
		}
	}
}

func TestModelMatchesFloat64Reference(t *testing.T) {
	prompt := []int32{5, 130, 0, 77, 77, 12, 64}
	untied := randomWeights(smallConfig, 7)
	untied["lm_head.weight"] = randomWeights(smallConfig, 8)["transformer.wte.weight"]
	tests := []struct {
		name      string
		partBytes int
		w         map[string]hostTensor
	}{
		{name: "tied head, vocabulary in one part", partBytes: maxPartBytes, w: randomWeights(smallConfig, 1)},
		// 4 KiB parts of 42 rows: 42+42+42+5.
		{name: "tied head, vocabulary in four parts", partBytes: 4096, w: randomWeights(smallConfig, 1)},
		{name: "untied head in parts", partBytes: 4096, w: untied},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func(old int) { maxPartBytes = old }(maxPartBytes)
			maxPartBytes = tc.partBytes
			forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
				m := loadTemp(t, dev, smallConfig, "F32", tc.w)
				require.Len(t, m.wte.parts, (smallConfig.Vocab+tc.partBytes/(4*smallConfig.Embd)-1)/(tc.partBytes/(4*smallConfig.Embd)))
				ids, steps := collect(t, m, prompt, 6)
				// float32 throughout: within 1e-4 of the row's largest logit.
				checkAgainst(t, smallConfig, tc.w, prompt, ids, steps, 1e-4)

				// A second generation reuses the caches and the captured
				// decode step: the same tokens.
				require.NotNil(t, m.step)
				require.NotNil(t, m.step.graph, "steps 2.. replay a captured step")
				again, _ := collect(t, m, prompt, 6)
				require.Equal(t, ids, again)

				// Every step launched op by op at host positions: the
				// same check, the same tokens.
				m.NoGraph = true
				eager, esteps := collect(t, m, prompt, 6)
				checkAgainst(t, smallConfig, tc.w, prompt, eager, esteps, 1e-4)
				require.Equal(t, ids, eager)
			})
		})
	}
}

// TestModelHalfWeights loads F16 and BF16 files (converted on the host):
// the reference is run on the same rounded weights, so float32 tolerances
// hold.
func TestModelHalfWeights(t *testing.T) {
	dev := openCPU(t)
	for _, dtype := range []string{"F16", "BF16"} {
		t.Run(dtype, func(t *testing.T) {
			w := randomWeights(smallConfig, 2)
			rounded := map[string]hostTensor{}
			for n, h := range w {
				d := make([]float32, len(h.data))
				for i, v := range h.data {
					if dtype == "F16" {
						d[i] = tensor.Float16ToFloat32(tensor.Float16FromFloat32(v))
					} else {
						d[i] = tensor.BFloat16ToFloat32(tensor.BFloat16FromFloat32(v))
					}
				}
				rounded[n] = hostTensor{shape: h.shape, data: d}
			}
			m := loadTemp(t, dev, smallConfig, dtype, w)
			prompt := []int32{1, 2, 3}
			ids, steps := collect(t, m, prompt, 3)
			checkAgainst(t, smallConfig, rounded, prompt, ids, steps, 1e-4)
		})
	}
}

// openCPU is a CPU device for the tests that do not depend on the backend.
func openCPU(t *testing.T) *gpu.Device {
	t.Helper()
	dev, err := gpu.Open(context.Background(), gpu.WithBackends("cpu"), gpu.WithFallback(false), gpu.WithFake(""))
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = tensor.Release(context.Background(), dev)
		_ = dev.Close()
	})
	return dev
}

// TestDecodeOneD2HPerToken: the generation uploads the prompt once and
// reads 4 bytes per token, nothing else (the picked id feeds the next step
// on the device).
func TestDecodeOneD2HPerToken(t *testing.T) {
	defer func(old int) { maxPartBytes = old }(maxPartBytes)
	maxPartBytes = 4096 // the vocabulary in parts: their lookups and logits stay on the device too
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		for _, d := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
			t.Run(d.String(), func(t *testing.T) { checkOneD2HPerToken(t, dev, d) })
		}
	})
}

func checkOneD2HPerToken(t *testing.T, dev *gpu.Device, d tensor.DType) {
	m := loadTempAs(t, dev, smallConfig, "F32", d, randomWeights(smallConfig, 3))
	require.Greater(t, len(m.wte.parts), 1)
	for _, n := range []int{1, 2, 9} {
		tensor.ResetDeviceTransfers(dev)
		ids, tm, err := m.Generate(context.Background(), []int32{4, 8, 15, 16, 23, 42}, n, nil)
		require.NoError(t, err)
		require.Len(t, ids, n)
		tr := tensor.DeviceTransfers(dev)
		require.Equal(t, int64(n), tr.D2H.Count, "D2H count for %d tokens", n)
		require.Equal(t, int64(4*n), tr.D2H.Bytes, "D2H bytes for %d tokens", n)
		require.Equal(t, int64(1), tr.H2D.Count, "H2D: the prompt only")
		require.Zero(t, tr.D2D.Count)
		require.Equal(t, n-1, tm.DecodeTokens)
		require.Equal(t, 6, tm.PromptTokens)
		// Each decode step launches at least eight ops per layer (two
		// norms, four products, the KV append and attention), replayed or
		// not; the prefill's launches are not counted.
		if n == 1 {
			require.Zero(t, tm.DecodeLaunches)
		} else {
			require.GreaterOrEqual(t, tm.DecodeLaunches, int64((n-1)*8*smallConfig.Layers))
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	dev := openCPU(t)
	m := loadTemp(t, dev, smallConfig, "F32", randomWeights(smallConfig, 4))
	ctx := context.Background()
	tests := []struct {
		name   string
		prompt []int32
		n      int
		msg    string
	}{
		{"empty prompt", nil, 1, "want at least 1 of each"},
		{"no tokens", []int32{1}, 0, "want at least 1 of each"},
		{"past the context", make([]int32, 38), 4, "exceed the context of 40"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := m.Generate(ctx, tc.prompt, tc.n, nil)
			require.ErrorContains(t, err, tc.msg)
		})
	}
}

func TestLoadErrors(t *testing.T) {
	dev := openCPU(t)
	w := randomWeights(smallConfig, 5)
	path := filepath.Join(t.TempDir(), "m.safetensors")
	writeSafetensors(t, path, "F32", w)
	st, err := openSafetensors(path)
	require.NoError(t, err)
	defer st.Close()
	c := smallConfig
	c.Embd = 30 // a multiple of 3 heads, but not the weights' width
	_, err = Load(context.Background(), dev, st, c)
	require.ErrorContains(t, err, "has shape [131 24]; the config wants [131 30]")
	c = smallConfig
	c.Heads = 5
	_, err = Load(context.Background(), dev, st, c)
	require.ErrorContains(t, err, "n_embd a multiple of n_head")

	inferred, err := inferConfig(st)
	require.NoError(t, err)
	require.Equal(t, Config{Layers: 2, Heads: 1, Embd: 24, Vocab: 131, Positions: 40, Eps: 1e-5}, inferred)
}

// TestModelLowPrecision: the model computing in bfloat16 and float16 on
// every backend against this package's own float32 forward over the same
// tokens (the greedy ids of the low-precision run, fed back), on the same
// weights rounded to the dtype: every op rounds its result once, so the
// logits are within a few roundings of the row's largest logit.
func TestModelLowPrecision(t *testing.T) {
	prompt := []int32{5, 130, 0, 77, 77, 12, 64}
	w := randomWeights(smallConfig, 4)
	tests := []struct {
		d   tensor.DType
		rel float64 // of the row's largest logit
	}{
		{tensor.BFloat16, 2e-2},
		{tensor.Float16, 4e-3},
	}
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		for _, tc := range tests {
			t.Run(tc.d.String(), func(t *testing.T) {
				rounded := roundWeights(w, tc.d)
				low := loadTempAs(t, dev, smallConfig, "F32", tc.d, w)
				ids, steps := collect(t, low, prompt, 6)
				f32 := loadTemp(t, dev, smallConfig, "F32", rounded)
				seq := append(append([]int32{}, prompt...), ids[:len(ids)-1]...)
				want := forwardAll(t, f32, seq)
				P := len(prompt)
				requireLogits(t, want[:P], steps[0], tc.rel, "prefill vs float32")
				for i := 1; i < len(steps); i++ {
					requireLogits(t, want[P-1+i:P+i], steps[i], tc.rel, "decode step vs float32")
				}
				// The decode steps over the cache agree with one pass over
				// the whole sequence, and the rounding is real: the logits
				// are not float32's.
				same := true
				for i, v := range steps[0] {
					same = same && float64(v) == want[i/smallConfig.Vocab][i%smallConfig.Vocab]
				}
				require.False(t, same, "%s logits equal float32's", tc.d)
			})
		}
	})
}

// roundWeights is w with every value rounded to d.
func roundWeights(w map[string]hostTensor, d tensor.DType) map[string]hostTensor {
	out := map[string]hostTensor{}
	for n, h := range w {
		r := make([]float32, len(h.data))
		for i, v := range h.data {
			switch d {
			case tensor.Float16:
				r[i] = tensor.Float16ToFloat32(tensor.Float16FromFloat32(v))
			case tensor.BFloat16:
				r[i] = tensor.BFloat16ToFloat32(tensor.BFloat16FromFloat32(v))
			default:
				r[i] = v
			}
		}
		out[n] = hostTensor{shape: h.shape, data: r}
	}
	return out
}

// forwardAll is m's logits at every position of tokens, from position 0, in
// one pass.
func forwardAll(t *testing.T, m *Model, tokens []int32) [][]float64 {
	t.Helper()
	ctx := context.Background()
	ids, err := tensor.FromSlice(ctx, m.dev, tokens, len(tokens))
	require.NoError(t, err)
	defer ids.Close()
	logits, err := m.Forward(ids, 0, true)
	require.NoError(t, err)
	defer logits.Close()
	v, err := logits.ToFloat32(ctx)
	require.NoError(t, err)
	V := m.Cfg.Vocab
	out := make([][]float64, len(tokens))
	for r := range out {
		out[r] = make([]float64, V)
		for j := range V {
			out[r][j] = float64(v[r*V+j])
		}
	}
	return out
}
