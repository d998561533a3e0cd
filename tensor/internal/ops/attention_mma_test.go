package ops_test

import (
	"context"
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

// attnCase is one prefill: nq queries of heads heads of dimension dim at
// positions pos.., over a contiguous cache of ctx positions.
type attnCase struct {
	name                string
	heads, dim, nq, pos int
}

// encodeWords is xs as a buffer of dtype code dt: float32 words, or two
// 16-bit elements a word (the low half first), and xs as the dtype rounds
// them.
func encodeWords(xs []float64, dt uint32) ([]uint32, []float64) {
	vals := make([]float64, len(xs))
	if dt == ops.DTFloat32 {
		words := make([]uint32, len(xs))
		for i, x := range xs {
			words[i] = math.Float32bits(float32(x))
			vals[i] = float64(float32(x))
		}
		return words, vals
	}
	f := fp.Half
	if dt == ops.DTBFloat16 {
		f = fp.BFloat
	}
	words := make([]uint32, (len(xs)+1)/2)
	for i, x := range xs {
		b := f.Encode(float32(x))
		words[i/2] |= b << (16 * (i % 2))
		vals[i] = float64(f.Decode(b))
	}
	return words, vals
}

// decodeWords is n elements of dtype code dt from words.
func decodeWords(words []uint32, n int, dt uint32) []float64 {
	out := make([]float64, n)
	for i := range out {
		switch dt {
		case ops.DTFloat32:
			out[i] = float64(math.Float32frombits(words[i]))
		case ops.DTBFloat16:
			out[i] = float64(fp.BFloat.Decode(words[i/2] >> (16 * (i % 2)) & 0xffff))
		default:
			out[i] = float64(fp.Half.Decode(words[i/2] >> (16 * (i % 2)) & 0xffff))
		}
	}
	return out
}

// attentionReference is causal attention in float64: q [nq, heads, dim],
// k and v [heads, ctx, dim], query i at position pos+i.
func attentionReference(q, k, v []float64, c attnCase, ctx int, scale float64) []float64 {
	out := make([]float64, c.nq*c.heads*c.dim)
	for i := range c.nq {
		for h := range c.heads {
			n := c.pos + i + 1
			s := make([]float64, n)
			mx := math.Inf(-1)
			for j := range n {
				for d := range c.dim {
					s[j] += q[(i*c.heads+h)*c.dim+d] * k[(h*ctx+j)*c.dim+d]
				}
				s[j] *= scale
				mx = max(mx, s[j])
			}
			var sum float64
			for j := range n {
				s[j] = math.Exp(s[j] - mx)
				sum += s[j]
			}
			for d := range c.dim {
				var acc float64
				for j := range n {
					acc += s[j] * v[(h*ctx+j)*c.dim+d]
				}
				out[(i*c.heads+h)*c.dim+d] = acc / sum
			}
		}
	}
	return out
}

// TestAttentionBlockMMA runs the MatMulAdd prefill kernel on every backend
// present (the CPU's generated Go; Vulkan, OpenGL, WebGPU and Metal's
// portable MatMulAdd; CUDA's tensor cores) for each float dtype, and checks it against attention in
// float64 from the same rounded inputs: within float32 error plus the
// output's rounding to the dtype (P's split keeps the 16-bit products as
// close as float32's).
func TestAttentionBlockMMA(t *testing.T) {
	cases := []attnCase{
		{name: "2 heads of 128, 37 queries", heads: 2, dim: 128, nq: 37},
		{name: "odd dimension 97, 20 queries at 5", heads: 1, dim: 97, nq: 20, pos: 5},
		{name: "dimension 64, 16 queries at 40", heads: 3, dim: 64, nq: 16, pos: 40},
	}
	dtypes := []struct {
		name string
		dt   uint32
		rel  float64
	}{{"float32", ops.DTFloat32, 1e-5}, {"bfloat16", ops.DTBFloat16, 1.0 / 256}, {"float16", ops.DTFloat16, 1.0 / 2048}}
	for _, backend := range []string{"cpu", "vulkan", "opengl", "webgpu", "cuda", "metal"} {
		t.Run(backend, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			dev, err := gpu.Open(ctx, gpu.WithBackends(backend), gpu.WithFallback(false), gpu.WithFake(""))
			if err != nil {
				if testreq.Required(backend) {
					t.Fatalf("backend %s is required but unavailable: %v", backend, err)
				}
				t.Skipf("backend %s unavailable: %v", backend, err)
			}
			defer dev.Close()
			if s := dev.Info().SharedMemPerBlock; s > 0 && s < ops.AttentionBlockMMAShared {
				t.Skipf("%d bytes of shared memory, the kernel needs %d", s, ops.AttentionBlockMMAShared)
			}
			mod, err := dev.Compile(ctx, ops.Kernels)
			require.NoError(t, err)
			defer mod.Close()
			k, err := mod.Kernel("attentionBlockMMA")
			require.NoError(t, err)
			for _, d := range dtypes {
				for _, c := range cases {
					t.Run(d.name+"/"+c.name, func(t *testing.T) {
						rng := rand.New(rand.NewPCG(uint64(c.dim), uint64(c.nq)))
						ctxLen := c.pos + c.nq + 3
						rnd := func(n int) []float64 {
							xs := make([]float64, n)
							for i := range xs {
								xs[i] = rng.Float64()*4 - 2
							}
							return xs
						}
						qw, qv := encodeWords(rnd(c.nq*c.heads*c.dim), d.dt)
						kw, kv := encodeWords(rnd(c.heads*ctxLen*c.dim), d.dt)
						vw, vv := encodeWords(rnd(c.heads*ctxLen*c.dim), d.dt)
						n := c.nq * c.heads * c.dim
						outWords := n
						if d.dt != ops.DTFloat32 {
							outWords = (n + 1) / 2
						}
						scale := 1 / math.Sqrt(float64(c.dim))
						bufs := make([]*gpu.Buffer, 5)
						for i, words := range [][]uint32{make([]uint32, outWords), qw, kw, vw, {0}} {
							bufs[i], err = gpu.FromSlice(ctx, dev, words)
							require.NoError(t, err)
							defer bufs[i].Close()
						}
						u := func(x int) gpu.Arg { return gpu.U32(uint32(x)) }
						blocks := (c.nq + ops.AttentionBlockMMAQueries - 1) / ops.AttentionBlockMMAQueries
						st := dev.DefaultStream()
						require.NoError(t, st.Launch(k, gpu.D1(blocks*c.heads), gpu.D1(ops.AttentionBlockMMAThreads),
							gpu.Buf(bufs[0]), gpu.Buf(bufs[1]), gpu.Buf(bufs[2]), gpu.Buf(bufs[3]), gpu.Buf(bufs[4]),
							u(int(d.dt)), u(c.nq), u(c.heads), u(c.dim), u(c.pos), u(ctxLen), u(0), u(0), u(0),
							u(0), u(c.heads*c.dim), u(c.dim), u(1), gpu.F32(float32(scale))))
						require.NoError(t, st.Synchronize(ctx))
						words, err := gpu.ToSlice[uint32](ctx, bufs[0])
						require.NoError(t, err)
						got := decodeWords(words, n, d.dt)
						want := attentionReference(qv, kv, vv, c, ctxLen, scale)
						for i, w := range want {
							require.InDelta(t, w, got[i], 2e-5+d.rel*math.Abs(w), "element %d", i)
						}
					})
				}
			}
		})
	}
}
