package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/cuda"
	"github.com/anygpu/gpu/backend/cuda/cudatest"
	"github.com/anygpu/gpu/tensor"
	"github.com/stretchr/testify/require"
)

// gpt2Small124M is GPT-2 124M's shape.
var gpt2Small124M = Config{Layers: 12, Heads: 12, Embd: 768, Vocab: 50257, Positions: 1024, Eps: 1e-5}

// BenchmarkDecodeHostPath times GPT-2's decode step (Generate's loop body:
// the forward pass of one token, the argmax, the 4-byte read: ops launched
// one by one, or graph: the captured step replayed) on the CUDA
// backend over the stand-in libraries of package cudatest, whose launches
// and products do nothing: what it measures is the host's time per token,
// and per launch (kernel launches and library products together). On a GPU
// a step takes the longer of this and the device's own time;
// driver-allocs/token counts the buffers the memory pool could not serve. The cpu-
// figures are the process's CPU time (user and system) over the same steps,
// which other programs on a shared machine disturb less than the wall time.
//
//	go test ./examples/gpt2 -run '^$' -bench DecodeHostPath -cpu 1 -count 5
func BenchmarkDecodeHostPath(b *testing.B) {
	dir := b.TempDir()
	if err := cudatest.Install(dir, b.Setenv, false); err != nil {
		b.Skipf("no stand-in CUDA libraries: %v", err)
	}
	ctx := context.Background()
	dev, err := gpu.OpenDriver(ctx, cuda.Driver{}, 0)
	require.NoError(b, err)
	defer dev.Close()
	defer tensor.Release(ctx, dev)
	for _, shape := range []struct {
		name string
		cfg  Config
	}{{"small", smallConfig}, {"124M", gpt2Small124M}} {
		path := filepath.Join(dir, shape.name+".safetensors")
		writeSafetensors(b, path, "F32", randomWeights(shape.cfg, 7))
		for _, d := range []tensor.DType{tensor.Float32, tensor.BFloat16} {
			for _, replay := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s/ops", shape.name, d)
				if replay {
					name = fmt.Sprintf("%s/%s/graph", shape.name, d)
				}
				b.Run(name, func(b *testing.B) {
					benchmarkDecode(b, dev, path, shape.cfg, d, replay)
				})
			}
		}
		require.NoError(b, os.Remove(path))
	}
}

// benchmarkDecode times decode steps: each op launched at a host position
// (Forward, ArgMax, the read), or, replay, the model's captured step
// replayed (Generate's loop: the graph's launch and the read).
func benchmarkDecode(b *testing.B, dev *gpu.Device, path string, cfg Config, d tensor.DType, replay bool) {
	ctx := context.Background()
	st, err := openSafetensors(path)
	require.NoError(b, err)
	m, err := LoadAs(ctx, dev, st, cfg, d)
	require.NoError(b, st.Close())
	require.NoError(b, err)
	defer m.Close()
	const first = 8 // decode positions cycle through first..Positions-1
	ids, err := tensor.FromSlice(ctx, dev, []int32{1}, 1)
	require.NoError(b, err)
	defer func() { _ = ids.Close() }()
	step := func(pos int) {
		logits, err := m.Forward(ids, pos, false)
		require.NoError(b, err)
		next, err := tensor.ArgMax(logits, -1)
		_ = logits.Close()
		require.NoError(b, err)
		_, err = tensor.ToHost[int32](ctx, next)
		require.NoError(b, err)
		_ = ids.Close()
		ids = next
	}
	for pos := 0; pos < first; pos++ { // the prompt, and warming up
		step(pos)
	}
	if replay {
		prompt := make([]int32, first)
		_, _, err := m.Generate(ctx, prompt, 3, nil) // captures the step
		require.NoError(b, err)
		st := m.step
		require.NotNil(b, st.graph)
		step = func(int) {
			require.NoError(b, st.graph.Launch(dev.DefaultStream()))
			_, err := tensor.ToHost[int32](ctx, st.ids)
			require.NoError(b, err)
			if st.at++; st.at == cfg.Positions {
				require.NoError(b, tensor.Advance(st.pos, first-st.at))
				st.at = first
			}
		}
	}
	before := dev.Stats()
	pos := first
	b.ReportAllocs()
	cpu0 := cpuTime()
	start := time.Now()
	for b.Loop() {
		step(pos)
		if pos++; pos == cfg.Positions {
			pos = first
		}
	}
	elapsed := time.Since(start)
	cpu := cpuTime() - cpu0
	after := dev.Stats()
	launches := float64(after.KernelLaunches-before.KernelLaunches) / float64(b.N)
	driverAllocs := after.Pool.Misses + after.Pool.Bypassed - before.Pool.Misses - before.Pool.Bypassed
	b.ReportMetric(float64(elapsed.Microseconds())/float64(b.N), "µs/token")
	b.ReportMetric(launches, "launches/token")
	b.ReportMetric(float64(driverAllocs)/float64(b.N), "driver-allocs/token")
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N)/launches/1000, "µs/launch")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/token")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/launches/1000, "cpu-µs/launch")
}
