package sgemm_test

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	_ "github.com/anygpu/gpu/backend/all"
	"github.com/anygpu/gpu/backend/opengl"
	"github.com/anygpu/gpu/kernels"
)

// target is a device the tests run on: a backend, and for OpenGL the client
// API (desktop GL, or GLES, where the kernels compile as GLSL ES).
type target struct {
	name    string
	backend string
	glAPI   string // ANYGPU_OPENGL_API, for OpenGL
}

// targets are every backend this machine may have; those it has not are
// skipped.
var targets = []target{
	{name: "cpu", backend: "cpu"},
	{name: "vulkan", backend: "vulkan"},
	{name: "opengl", backend: "opengl", glAPI: "gl"},
	{name: "opengl-gles", backend: "opengl", glAPI: "gles"},
	{name: "webgpu", backend: "webgpu"},
	{name: "cuda", backend: "cuda"},
	{name: "metal", backend: "metal"},
}

// open opens tg's device, closed with the test, or skips the test when this
// machine does not have it.
func open(t testing.TB, tg target) *gpu.Device {
	t.Helper()
	if tg.glAPI != "" {
		t.Setenv(opengl.EnvAPI, tg.glAPI)
	}
	dev, err := gpu.Open(context.Background(), gpu.WithBackends(tg.backend), gpu.WithFallback(false))
	if err != nil {
		t.Skipf("%s: %v", tg.name, err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

// upload copies x into a new buffer of dev (one float for an empty x),
// closed with the test.
func upload(t testing.TB, dev *gpu.Device, x []float32) *gpu.Buffer {
	t.Helper()
	if len(x) == 0 {
		x = []float32{0}
	}
	buf, err := dev.Alloc(int64(4 * len(x)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = buf.Close() })
	raw := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	st := dev.DefaultStream()
	require.NoError(t, st.Write(buf, 0, raw))
	require.NoError(t, st.Synchronize(context.Background()))
	return buf
}

// download reads the first n floats of buf.
func download(t testing.TB, buf *gpu.Buffer, n int) []float32 {
	t.Helper()
	raw := make([]byte, 4*n)
	st := buf.Device().DefaultStream()
	require.NoError(t, st.Read(raw, buf, 0))
	require.NoError(t, st.Synchronize(context.Background()))
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}

// ints returns n small integers in [lo, hi] as float32s: products of them
// add up exactly, so every kernel's result is the reference's bit for bit.
func ints(rng *rand.Rand, n, lo, hi int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(lo + rng.IntN(hi-lo+1))
	}
	return x
}

// floats returns n uniform floats in [lo, hi).
func floats(rng *rand.Rand, n int, lo, hi float32) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = lo + (hi-lo)*rng.Float32()
	}
	return x
}

// modules are the built-ins (OpSgemm) and sgemm's variants compiled for
// one device.
type modules struct{ builtins, variants *gpu.Module }

// compileBoth compiles kernels.Source and kernels.SgemmSource for dev,
// closed with the test.
func compileBoth(t testing.TB, dev *gpu.Device) modules {
	t.Helper()
	var m modules
	for _, c := range []struct {
		mod **gpu.Module
		src gpu.Source
	}{{&m.builtins, kernels.Source()}, {&m.variants, kernels.SgemmSource()}} {
		mod, err := dev.Compile(context.Background(), c.src)
		require.NoError(t, err, c.src.Name)
		t.Cleanup(func() { _ = mod.Close() })
		*c.mod = mod
	}
	return m
}

// kernel returns the sgemm entry point name from the module that has it.
func (m modules) kernel(name string) (*gpu.Kernel, error) {
	if name == kernels.OpSgemm {
		return m.builtins.Kernel(name)
	}
	return m.variants.Kernel(name)
}
