package ops_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	_ "github.com/anygpu/gpu/backend/all"
	"github.com/anygpu/gpu/internal/testreq"
	"github.com/anygpu/gpu/tensor/internal/fp"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// fastDTypes are the float dtypes with the relative error of one rounding to
// them (float32's covers float32 arithmetic).
var fastDTypes = []struct {
	name string
	dt   uint32
	rel  float64
}{{"float32", ops.DTFloat32, 1e-6}, {"bfloat16", ops.DTBFloat16, 1.0 / 256}, {"float16", ops.DTFloat16, 1.0 / 2048}}

// fastGeometries are the launches the fast-path tests cycle through: one
// group, several small ones, and a wide one.
var fastGeometries = [][2]int{{1, 64}, {3, 32}, {5, 64}, {2, 16}}

// forEachOpsDevice runs f on every backend present, with the ops module
// compiled there.
func forEachOpsDevice(t *testing.T, f func(t *testing.T, ctx context.Context, dev *gpu.Device, mod *gpu.Module)) {
	for _, backend := range []string{"cpu", "vulkan", "opengl", "webgpu", "cuda", "metal"} {
		t.Run(backend, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			dev, err := gpu.Open(ctx, gpu.WithBackends(backend), gpu.WithFallback(false), gpu.WithFake(""))
			if err != nil {
				if testreq.Required(backend) {
					t.Fatalf("backend %s is required but unavailable: %v", backend, err)
				}
				t.Skipf("backend %s unavailable: %v", backend, err)
			}
			defer dev.Close()
			mod, err := dev.Compile(ctx, ops.Kernels)
			require.NoError(t, err)
			defer mod.Close()
			f(t, ctx, dev, mod)
		})
	}
}

// packElems is xs rounded to dtype code dt as a buffer's words (two 16-bit
// elements a word, the low half first), and the rounded values.
func packElems(xs []float64, dt uint32) ([]uint32, []float64) {
	vals := make([]float64, len(xs))
	if dt == ops.DTFloat32 {
		words := make([]uint32, len(xs))
		for i, x := range xs {
			words[i] = math.Float32bits(float32(x))
			vals[i] = float64(float32(x))
		}
		return words, vals
	}
	f := halfFormat(dt)
	words := make([]uint32, (len(xs)+1)/2)
	for i, x := range xs {
		b := f.Encode(float32(x))
		words[i/2] |= b << (16 * (i % 2))
		vals[i] = float64(f.Decode(b))
	}
	return words, vals
}

// halfFormat is the fp format of 16-bit dtype code dt.
func halfFormat(dt uint32) fp.Format {
	if dt == ops.DTBFloat16 {
		return fp.BFloat
	}
	return fp.Half
}

// elemAt is element i of a buffer of dtype code dt.
func elemAt(words []uint32, i int, dt uint32) float64 {
	if dt == ops.DTFloat32 {
		return float64(math.Float32frombits(words[i]))
	}
	return float64(halfFormat(dt).Decode(words[i/2] >> (16 * (i % 2)) & 0xffff))
}

// roundTo is v rounded to float32 and then to dtype code dt.
func roundTo(v float64, dt uint32) float64 {
	if dt == ops.DTFloat32 {
		return float64(float32(v))
	}
	f := halfFormat(dt)
	return float64(f.Decode(f.Encode(float32(v))))
}

// randomElems is n values uniform in [-2, 2).
func randomElems(rng *rand.Rand, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = rng.Float64()*4 - 2
	}
	return xs
}

// runOps uploads the buffers, launches kernel name with the scalars after
// them, and returns buffer out's words.
func runOps(t *testing.T, ctx context.Context, dev *gpu.Device, mod *gpu.Module, name string, geo [2]int, out int, bufs [][]uint32, scalars ...gpu.Arg) []uint32 {
	t.Helper()
	k, err := mod.Kernel(name)
	require.NoError(t, err)
	var args []gpu.Arg
	var handles []*gpu.Buffer
	for _, words := range bufs {
		b, err := gpu.FromSlice(ctx, dev, words)
		require.NoError(t, err)
		defer b.Close()
		handles = append(handles, b)
		args = append(args, gpu.Buf(b))
	}
	st := dev.DefaultStream()
	require.NoError(t, st.Launch(k, gpu.D1(geo[0]), gpu.D1(geo[1]), append(args, scalars...)...))
	require.NoError(t, st.Synchronize(ctx))
	words, err := gpu.ToSlice[uint32](ctx, handles[out])
	require.NoError(t, err)
	return words
}

// u32s is xs as kernel scalars.
func u32s(xs ...int) []gpu.Arg {
	out := make([]gpu.Arg, len(xs))
	for i, x := range xs {
		out[i] = gpu.U32(uint32(x))
	}
	return out
}

// filled is n words of a pattern no kernel writes by chance.
func filled(n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = 0xdeadbeef
	}
	return out
}

// TestElementwiseFastPaths runs unary and binary on every backend over the
// edges of their 16-byte path: lengths around a vector (4 words) and two
// vectors, odd 16-bit lengths (the last word's high half must be 0), start
// offsets off a 16-byte boundary (the general path), rows repeated over a
// matrix (row broadcast, with and without whole vectors per row) and a
// transposed operand, each against float64 from the same rounded inputs.
func TestElementwiseFastPaths(t *testing.T) {
	forEachOpsDevice(t, func(t *testing.T, ctx context.Context, dev *gpu.Device, mod *gpu.Module) {
		rng := rand.New(rand.NewPCG(18, 4))
		g := 0
		for _, d := range fastDTypes {
			per := 1
			if d.dt != ops.DTFloat32 {
				per = 2
			}
			for _, n := range []int{1, 2, 7, 8, 9, 16, 17, 33, 1000, 4099} {
				for _, off := range []int{0, 1, 2, 8, 16} {
					for _, op := range []struct {
						code  uint32
						a     float64
						f     func(x, a float64) float64
						exact bool
					}{
						{ops.UnaryScale, 1.5, func(x, a float64) float64 { return a * x }, true},
						{ops.UnaryGELUTanh, 0, func(x, _ float64) float64 {
							return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
						}, false},
					} {
						geo := fastGeometries[g%len(fastGeometries)]
						g++
						name := fmt.Sprintf("unary %d/%s/n%d/off%d/grid%v", op.code, d.name, n, off, geo)
						xw, xv := packElems(randomElems(rng, off+n), d.dt)
						words := (n + per - 1) / per
						args := u32s(n, int(d.dt), int(op.code), off, 1, 1, 1, 1, 1, n, 0, 0, 0, 0, 0, 1)
						got := runOps(t, ctx, dev, mod, "unary", geo, 0, [][]uint32{filled(words), xw}, append(args, gpu.F32(float32(op.a)))...)
						for i := range n {
							want := roundTo(op.f(xv[off+i], op.a), d.dt)
							if op.exact {
								require.Equal(t, want, elemAt(got, i, d.dt), "%s: element %d", name, i)
							} else {
								require.InDelta(t, want, elemAt(got, i, d.dt), 1e-6+2*d.rel*math.Abs(want), "%s: element %d", name, i)
							}
						}
						if per == 2 && n%2 == 1 {
							require.Zero(t, got[words-1]>>16, "%s: the last word's high half", name)
						}
					}
				}
			}
			layouts := []struct {
				name                 string
				rows, cols           int
				xoff, xt4, xt5       int
				yoff, yt4, yt5, ylen int
				xlen                 int
			}{
				{name: "contiguous", rows: 1, cols: 1037, xt5: 1, yt5: 1, xlen: 1037, ylen: 1037},
				{name: "contiguous, x off a vector", rows: 1, cols: 261, xoff: 2, xt5: 1, yt5: 1, xlen: 263, ylen: 261},
				{name: "contiguous, y at a vector", rows: 1, cols: 261, yoff: 8, xt5: 1, yt5: 1, xlen: 261, ylen: 269},
				{name: "row of 64", rows: 5, cols: 64, xt4: 64, xt5: 1, yt5: 1, xlen: 320, ylen: 64},
				{name: "row of 16 first", rows: 3, cols: 16, xt5: 1, yt4: 16, yt5: 1, xlen: 16, ylen: 48},
				{name: "row of 12", rows: 4, cols: 12, xt4: 12, xt5: 1, yt5: 1, xlen: 48, ylen: 12},
				{name: "row of 65", rows: 3, cols: 65, xt4: 65, xt5: 1, yt5: 1, xlen: 195, ylen: 65},
				{name: "row off a vector", rows: 3, cols: 64, xt4: 64, xt5: 1, yoff: 1, yt5: 1, xlen: 192, ylen: 65},
				{name: "transposed", rows: 6, cols: 40, xt4: 1, xt5: 6, yt4: 40, yt5: 1, xlen: 240, ylen: 240},
			}
			for _, l := range layouts {
				for _, op := range []struct {
					code uint32
					f    func(u, v float64) float64
				}{{ops.BinaryAdd, func(u, v float64) float64 { return u + v }}, {ops.BinaryMul, func(u, v float64) float64 { return u * v }}} {
					geo := fastGeometries[g%len(fastGeometries)]
					g++
					name := fmt.Sprintf("binary %d/%s/%s/grid%v", op.code, d.name, l.name, geo)
					n := l.rows * l.cols
					xw, xv := packElems(randomElems(rng, l.xlen), d.dt)
					yw, yv := packElems(randomElems(rng, l.ylen), d.dt)
					words := (n + per - 1) / per
					s4, xt4, yt4 := l.rows, l.xt4, l.yt4
					args := u32s(n, int(d.dt), int(op.code), 1, 1, 1, 1, s4, l.cols, l.xoff, 0, 0, 0, 0, xt4, l.xt5, l.yoff, 0, 0, 0, 0, yt4, l.yt5)
					got := runOps(t, ctx, dev, mod, "binary", geo, 0, [][]uint32{filled(words), xw, yw}, args...)
					for i := range l.rows {
						for j := range l.cols {
							u := xv[l.xoff+i*l.xt4+j*l.xt5]
							v := yv[l.yoff+i*l.yt4+j*l.yt5]
							// Sums and products of two rounded values are exact in float64.
							require.Equal(t, roundTo(op.f(u, v), d.dt), elemAt(got, i*l.cols+j, d.dt), "%s: element (%d, %d)", name, i, j)
						}
					}
					if per == 2 && n%2 == 1 {
						require.Zero(t, got[words-1]>>16, "%s: the last word's high half", name)
					}
				}
			}
		}
	})
}

// TestRowFastPaths runs the row kernels on every backend for rows of 1 to
// 8193 columns: those of the fast path (contiguous, whole words: a pass
// then ends inside, at and past rowUnroll words per thread), and, on the
// general path, rows of odd 16-bit starts (an odd offset; a row stride of
// cols+1, so that rows alternate between the paths), odd 16-bit lengths and
// strided columns; each against float64 from the same rounded inputs.
func TestRowFastPaths(t *testing.T) {
	forEachOpsDevice(t, func(t *testing.T, ctx context.Context, dev *gpu.Device, mod *gpu.Module) {
		rng := rand.New(rand.NewPCG(18, 5))
		g := 0
		for _, d := range fastDTypes {
			per := 1
			if d.dt != ops.DTFloat32 {
				per = 2
			}
			for _, cols := range []int{1, 2, 63, 64, 65, 128, 4096, 8193} {
				for _, l := range []struct {
					name           string
					rows, off, pad int
					cstride        int
				}{
					{name: "contiguous", rows: 3, cstride: 1},
					{name: "one row", rows: 1, cstride: 1},
					{name: "odd offset", rows: 2, off: 1, cstride: 1},
					{name: "padded rows", rows: 3, pad: 1, cstride: 1},
					{name: "strided columns", rows: 2, cstride: 2},
				} {
					geo := fastGeometries[g%len(fastGeometries)]
					g++
					name := fmt.Sprintf("%s/cols%d/%s/grid%v", d.name, cols, l.name, geo)
					rowStride := cols*l.cstride + l.pad
					xw, xv := packElems(randomElems(rng, l.off+l.rows*rowStride), d.dt)
					gw, gv := packElems(randomElems(rng, cols), d.dt)
					bw, bv := packElems(randomElems(rng, cols), d.dt)
					row := func(r int) []float64 {
						out := make([]float64, cols)
						for c := range out {
							out[c] = xv[l.off+r*rowStride+c*l.cstride]
						}
						return out
					}
					view := u32s(l.off, 1, 1, 1, 1, l.rows, 0, 0, 0, 0, rowStride, l.cstride)
					outWords := (l.rows*cols + per - 1) / per
					rowArgs := append(u32s(l.rows, cols, int(d.dt)), view...)
					tol := func(want, scale float64) float64 { return 2e-6*scale + 2*d.rel*math.Abs(want) }

					got := runOps(t, ctx, dev, mod, "softmaxRows", geo, 0, [][]uint32{filled(outWords), xw}, rowArgs...)
					for r := range l.rows {
						xs := row(r)
						mx := math.Inf(-1)
						for _, x := range xs {
							mx = max(mx, x)
						}
						var sum float64
						for _, x := range xs {
							sum += math.Exp(x - mx)
						}
						for c, x := range xs {
							want := math.Exp(x-mx) / sum
							require.InDelta(t, want, elemAt(got, r*cols+c, d.dt), tol(want, 1), "softmax %s: (%d, %d)", name, r, c)
						}
					}

					for _, kind := range []uint32{ops.NormLayer, ops.NormRMS} {
						const eps = 1e-5
						args := append(u32s(l.rows, cols, int(d.dt), int(kind), ops.NormGamma|ops.NormBeta), view...)
						got := runOps(t, ctx, dev, mod, "normRows", geo, 0, [][]uint32{filled(outWords), xw, gw, bw}, append(args, gpu.F32(eps))...)
						for r := range l.rows {
							xs := row(r)
							var mean, sq float64
							if kind == ops.NormLayer {
								for _, x := range xs {
									mean += x
								}
								mean /= float64(cols)
							}
							for _, x := range xs {
								sq += (x - mean) * (x - mean)
							}
							inv := 1 / math.Sqrt(sq/float64(cols)+eps)
							for c, x := range xs {
								want := (x-mean)*inv*gv[c] + bv[c]
								require.InDelta(t, want, elemAt(got, r*cols+c, d.dt), tol(want, 20), "norm %d %s: (%d, %d)", kind, name, r, c)
							}
						}
					}

					for _, op := range []uint32{ops.ReduceSum, ops.ReduceMean, ops.ReduceMax} {
						args := append(u32s(l.rows, cols, int(d.dt), int(op)), view...)
						got := runOps(t, ctx, dev, mod, "reduceRows", geo, 0, [][]uint32{filled((l.rows + per - 1) / per), xw}, args...)
						for r := range l.rows {
							xs := row(r)
							var want, abs float64
							want = math.Inf(-1)
							if op != ops.ReduceMax {
								want = 0
							}
							for _, x := range xs {
								abs += math.Abs(x)
								if op == ops.ReduceMax {
									want = max(want, x)
								} else {
									want += x
								}
							}
							if op == ops.ReduceMean {
								want /= float64(cols)
								abs /= float64(cols)
							}
							if op == ops.ReduceMax {
								require.Equal(t, want, elemAt(got, r, d.dt), "max %s: row %d", name, r)
								continue
							}
							require.InDelta(t, want, elemAt(got, r, d.dt), 1e-6*abs+2*d.rel*math.Abs(want)+1e-7, "reduce %d %s: row %d", op, name, r)
						}
					}
				}
			}
		}
	})
}
