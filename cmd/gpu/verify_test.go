package main

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernels"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A backend whose kernels are fast but wrong must not post a number: each
// kernel metric fails its check, and the other metrics still run.
func TestWrongKernelsFailTheirMetric(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	require.NoError(t, err)
	defer dev.Close()
	sz := sizesFor(dev.Info(), false, true)
	r, err := newRunner(ctx, dev, sz)
	require.NoError(t, err)
	defer r.close()

	nothing := func(backend.Group, []backend.Arg) {}
	// Group 0's partial sum is NaN. (Only group 0 touches it afterwards:
	// the CPU's tuned reduction lets the first group of a batch of
	// consecutive groups write the whole batch's partials, so another
	// group's partial is not its own to change.)
	right := r.source.Go[kernels.OpReduceSum]
	r.source.Go[kernels.OpReduceSum] = func(g backend.Group, args []backend.Arg) {
		right(g, args)
		if out := args[0].Float32s(); g.ID.X == 0 && len(out) > 0 {
			out[0] = float32(math.NaN())
		}
	}
	r.source.Go[kernels.OpAxpy] = nothing
	// (sgemm_tflops on the CPU runs through its matrix library,
	// Stream.MatMul, not the sgemm kernel: it is not one of these.)

	byName := map[string]metric{}
	for _, m := range metrics {
		byName[m.name] = m
	}
	for name, want := range map[string]string{
		mSaxpy:  "axpy result is wrong",
		mReduce: "reduce_sum of",
	} {
		_, err := r.measure(byName[name])
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), want, name)
		}
		r.endGroup()
	}
	v, err := r.measure(byName[mLaunch])
	require.NoError(t, err, "fill is still right")
	assert.Positive(t, v)
}

func TestPanickingMetricIsAnError(t *testing.T) {
	r := &runner{}
	_, err := r.measure(metric{name: "boom", run: func(*runner) (float64, error) { panic("kaboom") }})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "kaboom")
	_, err = r.measure(metric{name: "zero", run: func(*runner) (float64, error) { return 0, nil }})
	assert.Error(t, err, "a zero measurement is not a result")
}
