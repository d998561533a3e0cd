package kernelcorpus_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	_ "github.com/anygpu/gpu/backend/all"
	"github.com/anygpu/gpu/internal/kernelcorpus"
	"github.com/anygpu/gpu/internal/testreq"
	"github.com/anygpu/gpu/kernel"
)

// halfValue is the value of 16-bit pattern h of precision p.
func halfValue(h uint32, p kernel.Precision) float64 {
	h &= 0xffff
	if p == kernel.PrecisionBFloat16 {
		return float64(math.Float32frombits(h << 16))
	}
	return float64(kernel.ToFloat32(kernel.Float16(h)))
}

// wordHalf is the value of the half of words[at] that holds index k of a
// pair (k even: the low half).
func wordHalf(words []uint32, at int, k int, p kernel.Precision) float64 {
	return halfValue(words[at]>>(16*(k%2)), p)
}

// mmaChainReference is MMAChain's result for the case's arguments in
// float64, with the bound on the magnitudes summed (for the tolerance).
func mmaChainReference(c0 []float32, a, b []uint32, steps int, p kernel.Precision) (want, bound []float64) {
	want, bound = make([]float64, len(c0)), make([]float64, len(c0))
	for u := range len(c0) / 256 {
		for i := range 16 {
			for j := range 16 {
				at := u*256 + i*16 + j
				sum, mag := float64(c0[at]), math.Abs(float64(c0[at]))
				for s := range steps {
					w := (u*steps + s) * 128
					for k := range 16 {
						x := wordHalf(a, w+i*8+k/2, k, p) * wordHalf(b, w+(k/2)*16+j, k, p)
						sum += x
						mag += math.Abs(x)
					}
				}
				want[at], bound[at] = sum, mag
			}
		}
	}
	return want, bound
}

// mmaReuseReference is MMAReuse's result in float64: P = A·B rounded to
// bfloat16, times B2; bound is Σ|P||B2|.
func mmaReuseReference(units int, a, b []uint32) (want, bound []float64) {
	p := kernel.PrecisionBFloat16
	want, bound = make([]float64, units*128), make([]float64, units*128)
	for u := range units {
		w := u * 256
		var pr [16][16]float64
		for i := range 16 {
			for j := range 16 {
				var s float64
				for k := range 16 {
					s += wordHalf(a, w+i*8+k/2, k, p) * wordHalf(b, w+(k/2)*16+j, k, p)
				}
				pr[i][j] = halfValue(kernel.PackHalves(float32(s), 0, p), p)
			}
		}
		for i := range 16 {
			for j := range 8 {
				var s, mag float64
				for k := range 16 {
					x := pr[i][k] * wordHalf(b, w+128+(k/2)*16+j, k, p)
					s += x
					mag += math.Abs(x)
				}
				want[u*128+i*8+j], bound[u*128+i*8+j] = s, mag
			}
		}
	}
	return want, bound
}

// mmaRowMaxReference is SubgroupMMARowMax's result in float64, with the
// tolerance of a float32 sum of 16 products.
func mmaRowMaxReference(units int, a, b []uint32) (want, bound []float64) {
	p := kernel.PrecisionBFloat16
	want, bound = make([]float64, units*16), make([]float64, units*16)
	for u := range units {
		w := u * 128
		for i := range 16 {
			best, tol := math.Inf(-1), 0.0
			for j := range 8 {
				var s, mag float64
				for k := range 16 {
					x := wordHalf(a, w+i*8+k/2, k, p) * wordHalf(b, w+(k/2)*16+j, k, p)
					s += x
					mag += math.Abs(x)
				}
				best, tol = max(best, s), max(tol, mag*0x1p-18)
			}
			want[u*16+i], bound[u*16+i] = best, tol
		}
	}
	return want, bound
}

// openBackend opens backend name, or skips (fails when ANYGPU_TEST_REQUIRE
// names it).
func openBackend(t *testing.T, ctx context.Context, name string) *gpu.Device {
	t.Helper()
	dev, err := gpu.Open(ctx, gpu.WithBackends(name), gpu.WithFallback(false), gpu.WithFake(""))
	if err != nil {
		if testreq.Required(name) {
			t.Fatalf("backend %s is required but unavailable: %v", name, err)
		}
		t.Skipf("backend %s unavailable: %v", name, err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

// runMMACase launches c on dev from mod and returns its first buffer.
func runMMACase(t *testing.T, ctx context.Context, dev *gpu.Device, mod *gpu.Module, c kernelcorpus.Case) []uint32 {
	t.Helper()
	k, err := mod.Kernel(c.Kernel)
	require.NoError(t, err)
	args := make([]gpu.Arg, len(c.Args))
	bufs := make([]*gpu.Buffer, len(c.Args))
	for i, a := range c.Args {
		if a.IsScalar {
			args[i] = a.Scalar
			continue
		}
		var b *gpu.Buffer
		if a.F32 != nil {
			b, err = gpu.FromSlice(ctx, dev, a.F32)
		} else {
			b, err = gpu.FromSlice(ctx, dev, a.U32)
		}
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		bufs[i], args[i] = b, gpu.Buf(b)
	}
	st := dev.DefaultStream()
	require.NoError(t, st.Launch(k, c.Grid, c.Block, args...))
	require.NoError(t, st.Synchronize(ctx))
	out, err := gpu.ToSlice[uint32](ctx, bufs[0])
	require.NoError(t, err)
	return out
}

// TestMMAAgainstFloat64 runs the corpus's MMA and PackHalves cases on every
// backend present, from the generated Source and from kernel.Translate (the
// CPU's closure compiler), and checks them against the definitions: the
// products of the 16-bit operands in float64 (within float32 summation
// error, in any order), and PackHalves bit for bit against package
// kernel's plain Go.
func TestMMAAgainstFloat64(t *testing.T) {
	cases, translated := corpusPart(t, "mma.go", 7, "mma_", "subgroup_mma_", "pack_halves_")

	for _, backend := range []string{"cpu", "vulkan", "opengl", "webgpu", "cuda", "metal"} {
		t.Run(backend, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			dev := openBackend(t, ctx, backend)
			for _, from := range []struct {
				name string
				src  gpu.Source
			}{{"generated", kernelcorpus.Kernels}, {"translated", translated}} {
				mod, err := dev.Compile(ctx, from.src)
				require.NoError(t, err)
				t.Cleanup(func() { _ = mod.Close() })
				for _, c := range cases {
					t.Run(from.name+"/"+c.Name, func(t *testing.T) {
						checkMMACase(t, c, runMMACase(t, ctx, dev, mod, c))
					})
				}
				for _, c := range nanCases() {
					t.Run(from.name+"/"+c.Name, func(t *testing.T) {
						checkNaNCase(t, c, runMMACase(t, ctx, dev, mod, c), backend != "cuda")
					})
				}
			}
		})
	}
}

// nanCases are PackHalvesWords of NaNs (quiet, signalling, negative, with
// payloads) between ordinary values, in both precisions.
func nanCases() []kernelcorpus.Case {
	xs := []float32{float32(math.NaN()), 1, math.Float32frombits(0x7f800001), -2, math.Float32frombits(0xffc00001),
		math.Float32frombits(0x7fbfffff), 0.5, math.Float32frombits(0xff800001)}
	var cases []kernelcorpus.Case
	for _, p := range []kernel.Precision{kernel.PrecisionBFloat16, kernel.PrecisionFloat16} {
		cases = append(cases, kernelcorpus.Case{Name: "pack_halves_nan_" + map[kernel.Precision]string{1: "bf16", 2: "f16"}[p],
			Kernel: "PackHalvesWords", Grid: gpu.D1(1), Block: gpu.D1(64),
			Args: []kernelcorpus.Arg{{U32: make([]uint32, len(xs)/2)}, {F32: xs},
				{Scalar: gpu.U32(uint32(len(xs) / 2)), IsScalar: true}, {Scalar: gpu.U32(uint32(p)), IsScalar: true}}})
	}
	return cases
}

// checkNaNCase checks a nanCases run: each NaN packed as a NaN of its sign
// and each other value exactly, and, when exact, every bit as package
// kernel's plain Go (CUDA's packed conversions may canonicalize NaNs).
func checkNaNCase(t *testing.T, c kernelcorpus.Case, got []uint32, exact bool) {
	x, p := c.Args[1].F32, kernel.Precision(c.Args[3].Scalar.Bits())
	expMask, manMask := uint32(0x7f80), uint32(0x7f)
	if p == kernel.PrecisionFloat16 {
		expMask, manMask = 0x7c00, 0x3ff
	}
	for i, w := range got {
		want := kernel.PackHalves(x[2*i], x[2*i+1], p)
		if exact {
			require.Equal(t, want, w, "PackHalves(%#x, %#x)", math.Float32bits(x[2*i]), math.Float32bits(x[2*i+1]))
		}
		for h := range 2 {
			in, half, wantHalf := x[2*i+h], (w>>(16*h))&0xffff, (want>>(16*h))&0xffff
			if !math.IsNaN(float64(in)) {
				require.Equal(t, wantHalf, half, "PackHalves of %g", in)
				continue
			}
			assert.True(t, half&expMask == expMask && half&manMask != 0, "NaN %#x packed as %#x, not a NaN", math.Float32bits(in), half)
		}
	}
}

// checkMMACase checks the first buffer of case c after its run, got.
func checkMMACase(t *testing.T, c kernelcorpus.Case, got []uint32) {
	var want, bound []float64
	switch c.Kernel {
	case "PackHalvesWords":
		x, p := c.Args[1].F32, kernel.Precision(c.Args[3].Scalar.Bits())
		for i, w := range got {
			require.Equal(t, kernel.PackHalves(x[2*i], x[2*i+1], p), w, "PackHalves(%g, %g) (%#x, %#x)", x[2*i], x[2*i+1],
				math.Float32bits(x[2*i]), math.Float32bits(x[2*i+1]))
		}
		return
	case "MMAChain":
		want, bound = mmaChainReference(c.Args[0].F32, c.Args[1].U32, c.Args[2].U32, int(c.Args[3].Scalar.Bits()),
			kernel.Precision(c.Args[4].Scalar.Bits()))
		for i := range bound {
			bound[i] *= 1.0 / (1 << 16) // float32 sums of 49 terms, in any order (tensor cores included)
		}
	case "SubgroupMMARowMax":
		want, bound = mmaRowMaxReference(len(got)/16, c.Args[1].U32, c.Args[2].U32)
	case "MMAReuse":
		want, bound = mmaReuseReference(len(got)/128, c.Args[1].U32, c.Args[2].U32)
		for i := range bound {
			bound[i] *= 1.0 / 128 // P's rounding to bfloat16 may go the other way after float32 sums
		}
	default:
		t.Fatalf("no reference for %s", c.Kernel)
	}
	require.Len(t, got, len(want))
	bad := 0
	for i, w := range got {
		g := float64(math.Float32frombits(w))
		if !assert.InDelta(t, want[i], g, bound[i]+1e-6, "element %d", i) {
			if bad++; bad > 5 {
				t.FailNow()
			}
		}
	}
}

// corpusPart is the corpus's cases whose names start with one of prefixes
// (want of them) and its file file translated at run time.
func corpusPart(t *testing.T, file string, want int, prefixes ...string) ([]kernelcorpus.Case, gpu.Source) {
	t.Helper()
	var cases []kernelcorpus.Case
	for _, c := range kernelcorpus.Cases() {
		for _, p := range prefixes {
			if strings.HasPrefix(c.Name, p) {
				cases = append(cases, c)
				break
			}
		}
	}
	require.Len(t, cases, want)
	var src string
	for _, f := range kernelcorpus.Files() {
		if f.Name == file {
			src = f.Src
		}
	}
	require.NotEmpty(t, src, "the corpus's %s", file)
	translated, err := kernel.Translate(src)
	require.NoError(t, err)
	return cases, translated
}
