package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor/internal/ops"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReduceVecChoice checks which rows reduceRowsVec takes on the
// simulated H100 (subgroups of 32), and that EnvRowsVec=off, another axis
// and the CPU (no SIMD lanes) leave them to reduceRows.
func TestReduceVecChoice(t *testing.T) {
	sim, cpu := simTestDevice(t), cpuDevice(t)
	type pick struct{ block, off, stride, length int }
	for _, tc := range []struct {
		in   input
		d    DType
		want pick // block 0: reduceRows
	}{
		{input{name: "8x4096", base: []int{8, 4096}}, Float32, pick{256, 0, 1024, 1024}},
		{input{name: "8x4096", base: []int{8, 4096}}, BFloat16, pick{128, 0, 512, 512}},
		{input{name: "8x4096", base: []int{8, 4096}}, Float16, pick{128, 0, 512, 512}},
		{input{name: "3x16400: rows longer than a group holds", base: []int{3, 16400}}, Float32, pick{512, 0, 4100, 4100}},
		{input{name: "3x16400: rows longer than a group holds", base: []int{3, 16400}}, BFloat16, pick{512, 0, 2050, 2050}},
		{input{name: "300x768", base: []int{300, 768}}, Float32, pick{128, 0, 192, 192}},
		{input{name: "4x37: odd columns", base: []int{4, 37}}, Float32, pick{}},
		{input{name: "4x36: half a vector over", base: []int{4, 36}}, BFloat16, pick{}},
		{input{name: "6x16 of 6x32 from column 8", base: []int{6, 32}, views: []func(*Tensor) (*Tensor, error){slice(1, 8, 24)}}, Float16,
			pick{128, 1, 4, 2}},
		{input{name: "6x20 of 6x22: rows off the vectors", base: []int{6, 22}, views: []func(*Tensor) (*Tensor, error){slice(1, 0, 20)}}, Float32, pick{}},
		{input{name: "one row repeated 5x96", base: []int{1, 96}, views: []func(*Tensor) (*Tensor, error){expand(5, 96)}}, Float32,
			pick{128, 0, 0, 24}},
		{input{name: "transposed 64x8", base: []int{8, 64}, views: []func(*Tensor) (*Tensor, error){transpose(0, 1)}}, Float32, pick{}},
	} {
		for _, setting := range []string{"", "off"} {
			t.Run(fmt.Sprintf("%s/%s/%q", tc.d, tc.in.name, setting), func(t *testing.T) {
				t.Setenv(EnvRowsVec, setting)
				want := tc.want
				if setting == "off" {
					want = pick{}
				}
				x := viewOf(t, sim, tc.d, tc.in)
				last := len(x.Shape()) - 1
				cols := x.Shape()[last]
				l, ok := x.st.ds.reduceVecChoice(x, last, cols)
				require.Equal(t, want.block != 0, ok)
				if ok {
					assert.Equal(t, reduceVecKernels.of(tc.d), l.kernel)
					assert.Equal(t, want, pick{l.block, l.off, l.stride, l.length})
				}
				if last > 0 {
					_, ok = x.st.ds.reduceVecChoice(x, 0, x.Shape()[0])
					assert.False(t, ok, "a reduction along another axis")
				}
				xc := viewOf(t, cpu, tc.d, tc.in)
				_, ok = xc.st.ds.reduceVecChoice(xc, last, cols)
				assert.False(t, ok, "the CPU takes reduceRowsVec")
			})
		}
	}
}

// TestReduceVecEveryBackend runs reduceRowsVec on every backend, chosen or
// not (the CPU leaves rows to reduceRows), in groups of the fewest threads
// that hold a row (at least 64, at most ops.LeanGroup: longer rows take
// turns), for the sum, the mean and the maximum, against float64.
func TestReduceVecEveryBackend(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		rng := rand.New(rand.NewPCG(11, 11))
		for _, d := range computeDTypes {
			out := tolerance{}.forDType(d) // the result's rounding
			for _, in := range []input{
				{name: "5x1024", base: []int{5, 1024}},
				{name: "301x16: many rows a group", base: []int{301, 16}},
				{name: "3x16400: rows longer than a group holds", base: []int{3, 16400}},
				{name: "7x16 of 7x32 from column 8", base: []int{7, 32}, views: []func(*Tensor) (*Tensor, error){slice(1, 8, 24)},
					host: func(h hostND) hostND { return h.slice(1, 8, 24) }},
			} {
				t.Run(fmt.Sprintf("%s/%s", d, in.name), func(t *testing.T) {
					if !leanVecRuns(dev.Backend(), d) {
						t.Logf("%s %s: the vector row kernels are not run there (leanVecRuns)", dev.Backend(), d)
						return
					}
					x, h := in.makeAs(t, dev, d, rng, -4, 4)
					ax := len(h.shape) - 1
					cols := h.shape[ax]
					rows := numel(h.shape) / cols
					xoff, xrow, ok := leanRows(x, cols)
					require.True(t, ok)
					vecs := cols / wordElems(d) / vecWords
					block := 64
					for block*ops.LeanVecs < vecs && block < ops.LeanGroup {
						block *= 2
					}
					l := leanLaunch{kernel: reduceVecKernels.of(d), block: block,
						off: xoff / vecWords, stride: xrow / vecWords, length: vecs}
					sums, scale := reduceHost(h, ax, sumOf), reduceHost(h, ax, absSum)
					for _, op := range []uint32{ops.ReduceSum, ops.ReduceMean, ops.ReduceMax} {
						res, err := empty(x.st.ds, "test", d, h.shape[:ax])
						require.NoError(t, err)
						var args argList
						args.add(gpu.Buf(res.st.buf), gpu.Buf(x.st.buf))
						args.u32(rows, vecs, int(d), int(op), l.off, l.stride)
						require.NoError(t, x.st.ds.launchLean(l, rows, []*storage{res.st, x.st}, args.args()...))
						got := read(t, res)
						require.NoError(t, res.Close())
						n := float64(cols)
						for i := range sums.data {
							switch op {
							case ops.ReduceSum:
								require.InDelta(t, sums.data[i], float64(got[i]), 1e-6*scale.data[i]+1e-6+out.rel*math.Abs(sums.data[i]), "sum, row %d", i)
							case ops.ReduceMean:
								require.InDelta(t, sums.data[i]/n, float64(got[i]), (1e-6*scale.data[i]+1e-6)/n+out.abs+out.rel*math.Abs(sums.data[i]/n), "mean, row %d", i)
							}
						}
						if op == ops.ReduceMax {
							requireClose(t, reduceHost(h, ax, maxOf), got, tolerance{}, "max")
						}
					}
				})
			}
		}
	})
}
