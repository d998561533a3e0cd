package tensor

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	_ "github.com/anygpu/gpu/backend/all"
	"github.com/anygpu/gpu/internal/testreq"
)

// testBackends are the backends every op is checked on; those without a
// device here are skipped (failed when ANYGPU_TEST_REQUIRE names them).
var testBackends = []string{"cpu", "vulkan", "opengl", "webgpu", "cuda", "metal"}

// simDevice is a simulated CUDA H100 (backend/sim): the CPU computes, but
// launches are chosen from the H100's DeviceInfo (132 units, 1024 threads),
// so the kernels run with many more groups than on the CPU device.
const simDevice = "sim-cuda-h100"

// testDevice is an opened device of one backend, shared by the tests.
type testDevice struct {
	name string
	dev  *gpu.Device
	err  error
}

var devices []testDevice

func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	for _, b := range testBackends {
		dev, err := gpu.Open(ctx, gpu.WithBackends(b), gpu.WithFallback(false), gpu.WithFake(""))
		devices = append(devices, testDevice{name: b, dev: dev, err: err})
	}
	dev, err := gpu.Open(ctx, gpu.WithBackends("cuda"), gpu.WithFallback(false), gpu.WithFake("cuda:h100"))
	devices = append(devices, testDevice{name: simDevice, dev: dev, err: err})
	cancel()
	code := m.Run()
	for _, d := range devices {
		if d.dev != nil {
			_ = Release(context.Background(), d.dev)
			_ = d.dev.Close()
		}
	}
	os.Exit(code)
}

// forEachDevice runs f as a subtest on every backend's device, skipping the
// backends that have none.
func forEachDevice(t *testing.T, f func(t *testing.T, dev *gpu.Device)) {
	t.Helper()
	for _, d := range devices {
		t.Run(d.name, func(t *testing.T) {
			if d.err != nil {
				if testreq.Required(d.name) {
					t.Fatalf("backend %s is required but unavailable: %v", d.name, d.err)
				}
				t.Skipf("backend %s unavailable: %v", d.name, d.err)
			}
			f(t, d.dev)
		})
	}
}

// cpuDevice is the CPU backend's device, for tests of what does not depend
// on the backend.
func cpuDevice(t *testing.T) *gpu.Device {
	t.Helper()
	for _, d := range devices {
		if d.name == "cpu" && d.dev != nil {
			return d.dev
		}
	}
	t.Fatal("no cpu device")
	return nil
}

// hostND is a reference array on the host: float64 values, row-major. Its
// view methods make copies by index arithmetic of their own, independent of
// the package's strides.
type hostND struct {
	shape []int
	data  []float64
}

func (h hostND) String() string { return fmt.Sprintf("hostND%v", h.shape) }

// index is the row-major position of coordinates idx.
func index(shape, idx []int) int {
	p := 0
	for i, s := range shape {
		p = p*s + idx[i]
	}
	return p
}

// coords is the coordinates of row-major position p.
func coords(shape []int, p int) []int {
	idx := make([]int, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] > 0 {
			idx[i] = p % shape[i]
			p /= shape[i]
		}
	}
	return idx
}

// build is the array of shape whose element at idx is f(idx).
func build(shape []int, f func(idx []int) float64) hostND {
	n := numel(shape)
	h := hostND{shape: slices.Clone(shape), data: make([]float64, n)}
	for p := range n {
		h.data[p] = f(coords(shape, p))
	}
	return h
}

func (h hostND) permute(perm ...int) hostND {
	shape := make([]int, len(perm))
	for i, p := range perm {
		shape[i] = h.shape[p]
	}
	return build(shape, func(idx []int) float64 {
		src := make([]int, len(perm))
		for i, p := range perm {
			src[p] = idx[i]
		}
		return h.data[index(h.shape, src)]
	})
}

func (h hostND) slice(dim, start, end int) hostND {
	shape := slices.Clone(h.shape)
	shape[dim] = end - start
	return build(shape, func(idx []int) float64 {
		src := slices.Clone(idx)
		src[dim] += start
		return h.data[index(h.shape, src)]
	})
}

func (h hostND) expand(shape ...int) hostND {
	pad := len(shape) - len(h.shape)
	return build(shape, func(idx []int) float64 {
		src := make([]int, len(h.shape))
		for i := range src {
			if h.shape[i] != 1 {
				src[i] = idx[i+pad]
			}
		}
		return h.data[index(h.shape, src)]
	})
}

func (h hostND) float32s() []float32 {
	out := make([]float32, len(h.data))
	for i, v := range h.data {
		out[i] = float32(v)
	}
	return out
}

// zerosFor is a zero tensor of dtype d and shape on dev, closed when t ends.
func zerosFor(t *testing.T, dev *gpu.Device, d DType, shape ...int) *Tensor {
	t.Helper()
	x, err := Zeros(context.Background(), dev, d, shape...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = x.Close() })
	return x
}
