package ops_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	_ "github.com/anygpu/gpu/backend/all"
	"github.com/anygpu/gpu/internal/testreq"
	"github.com/anygpu/gpu/nvrtc"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// flashKernel is one of the flash kernels, the largest head dimension it
// takes and its shared memory.
type flashKernel struct {
	name        string
	dim, shared int
}

var flashKernels = []flashKernel{
	{"attentionFlash", ops.AttentionFlashDim, ops.AttentionFlashShared},
	{"attentionFlashWide", ops.AttentionFlashWideDim, ops.AttentionFlashWideShared},
}

// flashCases hit every edge of the flash tiling (32 queries by 32 keys, 4
// rows and 4 keys a thread, dimensions in steps of 4): a single query, a
// block less one, one, one more, several blocks with a partial last one,
// head dimensions 1, odd, a multiple of 4 and not of 8, each kernel's
// largest, a prefill that continues a cache (pos > 0, its first key tile
// partly before the queries), and paged caches (page 1, a page that is not
// a tile's divisor, pages shuffled).
var flashCases = []struct {
	attnCase
	page int // 0: a contiguous cache
}{
	{attnCase: attnCase{name: "1 query", heads: 2, dim: 64, nq: 1}},
	{attnCase: attnCase{name: "2 queries, dimension 1", heads: 1, dim: 1, nq: 2}},
	{attnCase: attnCase{name: "31 queries, dimension 63", heads: 2, dim: 63, nq: 31}},
	{attnCase: attnCase{name: "32 queries, dimension 64", heads: 3, dim: 64, nq: 32}},
	{attnCase: attnCase{name: "33 queries, dimension 20", heads: 1, dim: 20, nq: 33}},
	{attnCase: attnCase{name: "63 queries at 7, dimension 64", heads: 2, dim: 64, nq: 63, pos: 7}},
	{attnCase: attnCase{name: "64 queries, dimension 33", heads: 1, dim: 33, nq: 64}},
	{attnCase: attnCase{name: "65 queries at 40, dimension 64", heads: 2, dim: 64, nq: 65, pos: 40}},
	{attnCase: attnCase{name: "129 queries, dimension 64", heads: 2, dim: 64, nq: 129}},
	{attnCase: attnCase{name: "70 queries, dimension 80", heads: 2, dim: 80, nq: 70}},
	{attnCase: attnCase{name: "40 queries at 3, dimension 128", heads: 2, dim: 128, nq: 40, pos: 3}},
	{attnCase: attnCase{name: "33 queries, dimension 127", heads: 1, dim: 127, nq: 33}},
	{attnCase: attnCase{name: "paged by 5, 45 queries at 9, dimension 64", heads: 2, dim: 64, nq: 45, pos: 9}, page: 5},
	{attnCase: attnCase{name: "paged by 1, 17 queries at 2, dimension 7", heads: 3, dim: 7, nq: 17, pos: 2}, page: 1},
	{attnCase: attnCase{name: "paged by 16, 50 queries at 30, dimension 96", heads: 2, dim: 96, nq: 50, pos: 30}, page: 16},
}

// TestAttentionFlash runs the flash kernels on every backend present whose
// groups have their shared memory, for each float dtype and every case a
// kernel's head dimension takes, and checks them against attention in
// float64 from the same rounded inputs: within float32 error plus the
// output's rounding to the dtype. Paged cases scatter the cache's rows over
// a shuffled page pool behind a block table read from an offset.
func TestAttentionFlash(t *testing.T) {
	dtypes := []struct {
		name string
		dt   uint32
		rel  float64
	}{{"float32", ops.DTFloat32, 1e-5}, {"bfloat16", ops.DTBFloat16, 1.0 / 256}, {"float16", ops.DTFloat16, 1.0 / 2048}}
	for _, backend := range []string{"cpu", "vulkan", "opengl", "webgpu", "cuda", "metal"} {
		t.Run(backend, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
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
			ran := 0
			for _, fk := range flashKernels {
				if s := dev.Info().SharedMemPerBlock; s > 0 && s < fk.shared {
					t.Logf("%s: %d bytes of shared memory, the kernel needs %d", fk.name, s, fk.shared)
					continue
				}
				k, err := mod.Kernel(fk.name)
				require.NoError(t, err)
				combine, err := mod.Kernel("attentionCombine")
				require.NoError(t, err)
				for _, d := range dtypes {
					for _, c := range flashCases {
						if c.dim > fk.dim {
							continue
						}
						// One split, then splits of 37 keys (not a tile's
						// multiple: a split ends inside a tile, and early
						// queries' last splits are empty) joined by
						// attentionCombine.
						for _, kchunk := range []int{0, 37} {
							ran++
							t.Run(fmt.Sprintf("%s/%s/%s/kchunk %d", fk.name, d.name, c.name, kchunk), func(t *testing.T) {
								runFlashCase(ctx, t, dev, k, combine, c.attnCase, c.page, kchunk, d.dt, d.rel)
							})
						}
					}
				}
			}
			if backend == "cpu" {
				require.Positive(t, ran, "the CPU runs every case")
			}
		})
	}
}

// runFlashCase launches kernel k on case c (paged by page when > 0) in
// dtype code dt, in splits of kchunk keys joined by combine (one split when
// kchunk is 0), and compares the result with the float64 reference.
func runFlashCase(ctx context.Context, t *testing.T, dev *gpu.Device, k, combine *gpu.Kernel, c attnCase, page, kchunk int, dt uint32, rel float64) {
	rng := rand.New(rand.NewPCG(uint64(c.dim), uint64(c.nq*1000+c.pos)))
	ctxLen := c.pos + c.nq + 3
	rnd := func(n int) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = rng.Float64()*4 - 2
		}
		return xs
	}
	q, k64, v64 := rnd(c.nq*c.heads*c.dim), rnd(c.heads*ctxLen*c.dim), rnd(c.heads*ctxLen*c.dim)
	kx, vx, table := k64, v64, []uint32{0}
	pages, toff := 0, 0
	if page > 0 {
		// The pool: logical page b of the sequence lies in pool page perm[b];
		// the table starts at entry 1 (entry 0 is another sequence's).
		pages = (ctxLen + page - 1) / page
		perm := rng.Perm(pages)
		table = make([]uint32, 1+pages)
		table[0] = uint32(pages - 1)
		toff = 1
		kx = make([]float64, pages*c.heads*page*c.dim)
		vx = make([]float64, len(kx))
		for b := range pages {
			table[1+b] = uint32(perm[b])
		}
		for h := range c.heads {
			for j := range ctxLen {
				for d := range c.dim {
					at := ((perm[j/page]*c.heads+h)*page+j%page)*c.dim + d
					kx[at] = k64[(h*ctxLen+j)*c.dim+d]
					vx[at] = v64[(h*ctxLen+j)*c.dim+d]
				}
			}
		}
	}
	qw, qv := encodeWords(q, dt)
	kw, _ := encodeWords(kx, dt)
	vw, _ := encodeWords(vx, dt)
	// The reference reads the contiguous cache as the dtype rounds it.
	_, kv := encodeWords(k64, dt)
	_, vv := encodeWords(v64, dt)
	n := c.nq * c.heads * c.dim
	outWords := n
	if dt != ops.DTFloat32 {
		outWords = (n + 1) / 2
	}
	scale := 1 / math.Sqrt(float64(c.dim))
	splits := 1
	if kchunk == 0 {
		kchunk = c.pos + c.nq
	} else {
		splits = (c.pos + c.nq + kchunk - 1) / kchunk
	}
	require.Positive(t, splits)
	bufs := make([]*gpu.Buffer, 7)
	for i, words := range [][]uint32{make([]uint32, outWords), qw, kw, vw, table,
		make([]uint32, n*splits), make([]uint32, 2*c.nq*c.heads*splits)} {
		var err error
		bufs[i], err = gpu.FromSlice(ctx, dev, words)
		require.NoError(t, err)
		defer bufs[i].Close()
	}
	u := func(x int) gpu.Arg { return gpu.U32(uint32(x)) }
	blocks := (c.nq + ops.AttentionFlashQueries - 1) / ops.AttentionFlashQueries
	// Fewer groups than blocks: the grid-stride loop takes the rest.
	groups := max(1, blocks*c.heads*splits-1)
	out, stats := bufs[0], bufs[0] // stats is not written with one split
	if splits > 1 {
		out, stats = bufs[5], bufs[6]
	}
	st := dev.DefaultStream()
	require.NoError(t, st.Launch(k, gpu.D1(groups), gpu.D1(ops.AttentionFlashThreads),
		gpu.Buf(out), gpu.Buf(stats), gpu.Buf(bufs[1]), gpu.Buf(bufs[2]), gpu.Buf(bufs[3]), gpu.Buf(bufs[4]),
		u(int(dt)), u(c.nq), u(c.heads), u(c.dim), u(c.pos), u(ctxLen), u(page), u(pages), u(toff),
		u(0), u(c.heads*c.dim), u(c.dim), u(1), u(kchunk), u(splits), gpu.F32(float32(scale))))
	if splits > 1 {
		require.NoError(t, st.Launch(combine, gpu.D1((outWords+63)/64), gpu.D1(64),
			gpu.Buf(bufs[0]), gpu.Buf(bufs[5]), gpu.Buf(bufs[6]), u(int(dt)), u(n), u(c.dim), u(splits)))
	}
	require.NoError(t, st.Synchronize(ctx))
	words, err := gpu.ToSlice[uint32](ctx, bufs[0])
	require.NoError(t, err)
	got := decodeWords(words, n, dt)
	want := attentionReference(qv, kv, vv, c, ctxLen, scale)
	for i, w := range want {
		require.InDelta(t, w, got[i], 2e-5+rel*math.Abs(w), "element %d (query %d, head %d, dimension %d)",
			i, i/(c.heads*c.dim), i/c.dim%c.heads, i%c.dim)
	}
}

// TestAttentionFlashCUDA compiles the ops' CUDA for an H100/H200 (sm_90)
// with the installed NVRTC, where there is one, and checks that the flash
// kernels spill no registers, fit CUDA's 48 KiB of static shared memory,
// and leave room for several groups a multiprocessor: ptxas's report is
// logged for the record.
func TestAttentionFlashCUDA(t *testing.T) {
	if err := nvrtc.Available(); err != nil {
		if testreq.Required("nvrtc") {
			t.Fatalf("NVRTC is required (ANYGPU_TEST_REQUIRE names nvrtc) but unavailable: %v", err)
		}
		t.Skipf("NVRTC unavailable: %v", err)
	}
	res, err := nvrtc.Compile(ops.Kernels.CUDA, nvrtc.Options{Arch: "sm_90", NoCache: true, Flags: []string{"--ptxas-options=-v"}})
	require.NoError(t, err)
	for _, fk := range flashKernels {
		report := ptxasReport(res.Log, fk.name)
		require.NotEmpty(t, report, "ptxas reports on %s", fk.name)
		t.Logf("%s: %s", fk.name, strings.Join(report, "; "))
		joined := strings.Join(report, "\n")
		require.Contains(t, joined, "0 bytes spill stores", fk.name)
		// "Used 96 registers, 22656 bytes smem" (NVRTC 11), "Used 96
		// registers, used 1 barriers, 22656 bytes smem" (NVRTC 13).
		var regs, smem int
		for _, line := range report {
			if m := ptxasRegisters.FindStringSubmatch(line); m != nil {
				regs, _ = strconv.Atoi(m[1])
				if m := ptxasShared.FindStringSubmatch(line); m != nil {
					smem, _ = strconv.Atoi(m[1])
				}
			}
		}
		require.Positive(t, regs, fk.name)
		require.LessOrEqual(t, smem, 48<<10, fk.name)
		require.GreaterOrEqual(t, smem, fk.shared, "%s: AttentionFlash*Shared counts every array", fk.name)
		require.GreaterOrEqual(t, 65536/(regs*ops.AttentionFlashThreads), 4, "%s: at least 4 groups an SM by registers", fk.name)
	}
}

// ptxasReport is the lines of ptxas's verbose log about entry name.
func ptxasReport(log, name string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "Compiling entry function") {
			in = strings.Contains(line, "'"+name+"'")
			continue
		}
		if in && strings.TrimSpace(line) != "" {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

// ptxasRegisters and ptxasShared read ptxas's verbose report line.
var (
	ptxasRegisters = regexp.MustCompile(`Used (\d+) registers`)
	ptxasShared    = regexp.MustCompile(`(\d+) bytes smem`)
)
