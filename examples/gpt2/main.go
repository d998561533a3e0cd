// Command gpt2 runs the GPT-2 architecture on any backend from a
// safetensors file with Hugging Face's tensor names: the prompt's forward
// pass (prefill), then token-by-token decode over a KV cache, greedy. It
// has no tokenizer: token ids go in and come out.
//
//	go run ./examples/gpt2 -weights model.safetensors -prompt-ids 464,3290,318 -tokens 20 -backend vulkan
//
// The config comes from -config (a Hugging Face config.json) or, without
// it, from the weights' shapes (heads of 64). -prompt-len N makes a prompt
// of N synthetic ids for benchmarks; -runs N times N generations and keeps
// the fastest. It prints the generated ids, then one JSON line of timings:
// prefill and decode tokens per second. -dtype float32 (the default),
// float16 or bfloat16 is the dtype the model computes in: the weights are
// converted on the host as they are uploaded (a BF16 file read as bfloat16
// is kept bit for bit), the KV caches and activations are of that dtype,
// and every op computes in float32 inside, rounding its result to it.
//
// Decode steps after the first replay one captured step (gpu.Graph: one
// CUDA graph launch per token on CUDA, the recorded ops elsewhere), whose
// token and position live on the device; -graph=false launches every op
// of every step instead, at host positions.
//
// testdata/make_reference.py writes seeded random weights and PyTorch's
// logits for the tests, and times PyTorch eager for comparison (--bench).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/anygpu/gpu"
	_ "github.com/anygpu/gpu/backend/all"
	"github.com/anygpu/gpu/profiling"
	"github.com/anygpu/gpu/tensor"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gpt2:", err)
		os.Exit(1)
	}
}

// report is the timing line main prints.
type report struct {
	Backend         string  `json:"backend"`
	Device          string  `json:"device"`
	PromptTokens    int     `json:"prompt_tokens"`
	PrefillSeconds  float64 `json:"prefill_s"`
	PrefillTokensPS float64 `json:"prefill_tokens_per_s"`
	DecodeTokens    int     `json:"decode_tokens"`
	DecodeSeconds   float64 `json:"decode_s"`
	DecodeTokensPS  float64 `json:"decode_tokens_per_s"`
	// DecodeLaunches is the decode's launches per token (kernels and
	// matrix-library products); DecodeMicrosPerLaunch its time per launch.
	DecodeLaunches        float64 `json:"decode_launches_per_token,omitempty"`
	DecodeMicrosPerLaunch float64 `json:"decode_us_per_launch,omitempty"`
	// DecodeGraphs is the decode's graph launches per token (replays of
	// the captured step); CaptureMillis the capture's time, taken once per
	// model (in the warm-up when there is one).
	DecodeGraphs  float64 `json:"decode_graphs_per_token,omitempty"`
	CaptureMillis float64 `json:"capture_ms,omitempty"`
	LoadSeconds   float64 `json:"load_s"`
	DType         string  `json:"dtype"`
}

// parseDType is the compute dtype a -dtype value names.
func parseDType(s string) (tensor.DType, error) {
	switch s {
	case "float32", "f32":
		return tensor.Float32, nil
	case "float16", "f16", "half":
		return tensor.Float16, nil
	case "bfloat16", "bf16":
		return tensor.BFloat16, nil
	}
	return 0, fmt.Errorf("-dtype %q: want float32, float16 or bfloat16", s)
}

func run(args []string) error {
	fs := flag.NewFlagSet("gpt2", flag.ContinueOnError)
	weights := fs.String("weights", "", "safetensors file (F32, F16 or BF16) with Hugging Face GPT-2 names")
	config := fs.String("config", "", "config.json (default: inferred from the weights, heads of 64)")
	promptIDs := fs.String("prompt-ids", "", "prompt token ids, comma-separated")
	promptLen := fs.Int("prompt-len", 0, "without -prompt-ids: a synthetic prompt of this many ids")
	tokens := fs.Int("tokens", 20, "tokens to generate (the first from the prefill)")
	backendName := fs.String("backend", "", "backend (cpu, cuda, vulkan, opengl, webgpu, metal); default: the best available")
	warmup := fs.Bool("warmup", true, "run a short generation first, so that kernel compilation is not timed")
	runs := fs.Int("runs", 1, "generations to time; the fastest prefill and decode are reported")
	cpuProfile := fs.String("cpuprofile", "", "write a Go CPU profile of the timed generations to this file (go tool pprof)")
	deviceProfile := fs.String("profile", "", "profile every device operation of the timed generations and write the text report to this file (slows the run)")
	graph := fs.Bool("graph", true, "replay a captured decode step per token (gpu.Graph); false launches every op of every step")
	dtypeName := fs.String("dtype", "float32", "compute dtype: float32, float16 or bfloat16 (the weights are converted on load)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dtype, err := parseDType(*dtypeName)
	if err != nil {
		return err
	}
	if *weights == "" {
		return errors.New("-weights is required")
	}
	ctx := context.Background()
	var opts []gpu.Option
	if *backendName != "" {
		opts = append(opts, gpu.WithBackends(*backendName), gpu.WithFallback(false))
	}
	var prof *profiling.Profiler
	if *deviceProfile != "" {
		prof = profiling.New()
		opts = append(opts, gpu.WithProfiler(prof))
	}
	dev, err := gpu.Open(ctx, opts...)
	if err != nil {
		return err
	}
	defer dev.Close()
	defer tensor.Release(ctx, dev)

	loadStart := time.Now()
	st, err := openSafetensors(*weights)
	if err != nil {
		return err
	}
	defer st.Close()
	var cfg Config
	if *config != "" {
		cfg, err = loadConfig(*config)
	} else {
		cfg, err = inferConfig(st)
	}
	if err != nil {
		return err
	}
	m, err := LoadAs(ctx, dev, st, cfg, dtype)
	if err != nil {
		return err
	}
	defer m.Close()
	m.NoGraph = !*graph
	var capture time.Duration
	if err := tensor.Synchronize(ctx, dev); err != nil {
		return err
	}
	load := time.Since(loadStart)

	prompt, err := parseIDs(*promptIDs)
	if err != nil {
		return err
	}
	if len(prompt) == 0 {
		if *promptLen <= 0 {
			return errors.New("give -prompt-ids or -prompt-len")
		}
		for i := range *promptLen {
			prompt = append(prompt, int32((i*7919+13)%cfg.Vocab))
		}
	}
	if *warmup {
		_, t, err := m.Generate(ctx, prompt[:min(len(prompt), 4)], min(3, cfg.Positions-min(len(prompt), 4)+1), nil)
		if err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		capture = t.Capture
		// The full prompt once more, so that its launch shapes are compiled too.
		if _, _, err := m.Generate(ctx, prompt, 1, nil); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	if prof != nil {
		prof.Reset() // the timed generations only
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	var ids []int32
	var tm Timing
	for r := range max(1, *runs) {
		got, t, err := m.Generate(ctx, prompt, *tokens, nil)
		if err != nil {
			return err
		}
		capture = max(capture, t.Capture)
		if r == 0 {
			ids, tm = got, t
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(ids) {
			return fmt.Errorf("run %d generated %v, run 0 %v", r, got, ids)
		}
		tm.Prefill, tm.Decode = min(tm.Prefill, t.Prefill), min(tm.Decode, t.Decode)
		tm.DecodeLaunches, tm.DecodeGraphs = t.DecodeLaunches, t.DecodeGraphs
	}
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if prof != nil {
		if err := writeProfile(ctx, dev, prof, *deviceProfile); err != nil {
			return err
		}
	}
	fmt.Println("ids:", formatIDs(ids))
	r := report{Backend: dev.Backend(), Device: dev.Name(), PromptTokens: tm.PromptTokens, PrefillSeconds: tm.Prefill.Seconds(),
		DecodeTokens: tm.DecodeTokens, DecodeSeconds: tm.Decode.Seconds(), LoadSeconds: load.Seconds(), DType: dtype.String()}
	if tm.Prefill > 0 {
		r.PrefillTokensPS = float64(tm.PromptTokens) / tm.Prefill.Seconds()
	}
	if tm.Decode > 0 && tm.DecodeTokens > 0 {
		r.DecodeTokensPS = float64(tm.DecodeTokens) / tm.Decode.Seconds()
	}
	if tm.DecodeTokens > 0 && tm.DecodeLaunches > 0 {
		r.DecodeLaunches = float64(tm.DecodeLaunches) / float64(tm.DecodeTokens)
		r.DecodeMicrosPerLaunch = float64(tm.Decode.Microseconds()) / float64(tm.DecodeLaunches)
	}
	if tm.DecodeTokens > 0 {
		r.DecodeGraphs = float64(tm.DecodeGraphs) / float64(tm.DecodeTokens)
	}
	r.CaptureMillis = float64(capture.Microseconds()) / 1000
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	fmt.Println(string(line))
	return nil
}

// writeProfile writes prof's text report to path once the device's work
// has been recorded.
func writeProfile(ctx context.Context, dev *gpu.Device, prof *profiling.Profiler, path string) error {
	if err := dev.Synchronize(ctx); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := prof.WriteText(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func formatIDs(ids []int32) string {
	s := ""
	for i, v := range ids {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprint(v)
	}
	return s
}
