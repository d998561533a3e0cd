package tensor

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// simTestDevice is the simulated H100 (WarpSize 32: the GPUs' choice of
// row kernel, computed on the CPU).
func simTestDevice(t *testing.T) *gpu.Device {
	t.Helper()
	for _, d := range devices {
		if d.name == simDevice {
			require.NoError(t, d.err, "the simulated device")
			return d.dev
		}
	}
	t.Fatal("no simulated device")
	return nil
}

// TestLeanVecKernelsExist: every variant of rowsLeanVec that the ops launch
// is in the package's Source, with the generic kernel's parameters, which
// are rowsLean's (runLean passes both the same arguments).
func TestLeanVecKernelsExist(t *testing.T) {
	for kind, k := range leanVecKernels {
		want, ok := ops.Kernels.Params[k.any]
		require.True(t, ok, "kernel %s", k.any)
		require.Equal(t, ops.Kernels.Params[leanKernels[kind].any], want, "rowsLeanVec's parameters are rowsLean's")
		for _, d := range computeDTypes {
			name := k.of(d)
			require.NotEqual(t, k.any, name, "%s has a variant", d)
			require.Contains(t, ops.Kernels.Params, name)
			require.Equal(t, want, ops.Kernels.Params[name], "%s's parameters", name)
			require.Contains(t, ops.Kernels.Go, name)
		}
	}
}

// TestRowsVecOff: only "off" in EnvRowsVec turns rowsLeanVec off.
func TestRowsVecOff(t *testing.T) {
	for _, tc := range []struct {
		value string
		off   bool
	}{{"", false}, {"on", false}, {"OFF", false}, {"off", true}} {
		t.Run(fmt.Sprintf("%q", tc.value), func(t *testing.T) {
			t.Setenv(EnvRowsVec, tc.value)
			assert.Equal(t, tc.off, rowsVecOff())
		})
	}
}

// viewOf is in's views of a tensor of zeros of dtype d on dev (the values
// and in.host are not needed to choose a kernel).
func viewOf(t *testing.T, dev *gpu.Device, d DType, in input) *Tensor {
	t.Helper()
	x, err := FromFloat32(context.Background(), dev, d, make([]float32, numel(in.base)), in.base...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = x.Close() })
	for _, v := range in.views {
		y, err := v(x)
		require.NoError(t, err, "view of %s", in.name)
		t.Cleanup(func() { _ = y.Close() })
		x = y
	}
	return x
}

// leanPick is what leanChoice should pick: the kernel family ("vec" for
// rowsLeanVec, "words" for rowsLean, "" for neither), the group and the
// rows' first unit, stride and length in the kernel's units.
type leanPick struct {
	family                     string
	block, off, stride, length int
}

// TestLeanChoice checks which kernel takes which rows on the simulated H100
// (subgroups of 32), with rowsLeanVec on and off (EnvRowsVec), for each
// kind, and that the CPU (no SIMD lanes) takes neither lean kernel.
func TestLeanChoice(t *testing.T) {
	sim, cpu := simTestDevice(t), cpuDevice(t)
	for _, tc := range []struct {
		in      input
		d       DType
		on, off leanPick
	}{
		{input{name: "8x4096", base: []int{8, 4096}}, Float32,
			leanPick{"vec", 256, 0, 1024, 1024}, leanPick{}},
		{input{name: "8x4096", base: []int{8, 4096}}, BFloat16,
			leanPick{"vec", 128, 0, 512, 512}, leanPick{"words", 512, 0, 2048, 2048}},
		{input{name: "8x4096", base: []int{8, 4096}}, Float16,
			leanPick{"vec", 128, 0, 512, 512}, leanPick{"words", 512, 0, 2048, 2048}},
		{input{name: "3x8192: the most float32 vectors", base: []int{3, 8192}}, Float32,
			leanPick{"vec", 512, 0, 2048, 2048}, leanPick{}},
		{input{name: "2x8196: one vector too many", base: []int{2, 8196}}, Float32,
			leanPick{}, leanPick{}},
		{input{name: "300x768", base: []int{300, 768}}, Float32,
			leanPick{"vec", 128, 0, 192, 192}, leanPick{"words", 256, 0, 768, 768}},
		{input{name: "1x768", base: []int{1, 768}}, BFloat16,
			leanPick{"vec", 128, 0, 0, 96}, leanPick{"words", 256, 0, 0, 384}},
		{input{name: "4x37: odd columns", base: []int{4, 37}}, Float32,
			leanPick{"words", 256, 0, 37, 37}, leanPick{"words", 256, 0, 37, 37}},
		{input{name: "4x1030: half a vector over", base: []int{4, 1030}}, Float32,
			leanPick{"words", 512, 0, 1030, 1030}, leanPick{"words", 512, 0, 1030, 1030}},
		{input{name: "4x36: half a vector over", base: []int{4, 36}}, BFloat16,
			leanPick{"words", 256, 0, 18, 18}, leanPick{"words", 256, 0, 18, 18}},
		{input{name: "6x20 of 6x28 from column 4", base: []int{6, 28}, views: []func(*Tensor) (*Tensor, error){slice(1, 4, 24)}}, Float32,
			leanPick{"vec", 128, 1, 7, 5}, leanPick{"words", 256, 4, 28, 20}},
		{input{name: "6x20 of 6x28 from column 4", base: []int{6, 28}, views: []func(*Tensor) (*Tensor, error){slice(1, 4, 24)}}, BFloat16,
			leanPick{"words", 256, 2, 14, 10}, leanPick{"words", 256, 2, 14, 10}},
		{input{name: "6x16 of 6x32 from column 8", base: []int{6, 32}, views: []func(*Tensor) (*Tensor, error){slice(1, 8, 24)}}, Float16,
			leanPick{"vec", 128, 1, 4, 2}, leanPick{"words", 256, 4, 16, 8}},
		{input{name: "6x20 of 6x24 from column 2", base: []int{6, 24}, views: []func(*Tensor) (*Tensor, error){slice(1, 2, 22)}}, Float32,
			leanPick{"words", 256, 2, 24, 20}, leanPick{"words", 256, 2, 24, 20}},
		{input{name: "6x20 of 6x22: rows off the vectors", base: []int{6, 22}, views: []func(*Tensor) (*Tensor, error){slice(1, 0, 20)}}, Float32,
			leanPick{"words", 256, 0, 22, 20}, leanPick{"words", 256, 0, 22, 20}},
		{input{name: "rows 3 on of 9x64", base: []int{9, 64}, views: []func(*Tensor) (*Tensor, error){slice(0, 3, 9)}}, Float32,
			leanPick{"vec", 128, 48, 16, 16}, leanPick{"words", 256, 192, 64, 64}},
		{input{name: "one row repeated 5x96", base: []int{1, 96}, views: []func(*Tensor) (*Tensor, error){expand(5, 96)}}, Float32,
			leanPick{"vec", 128, 0, 0, 24}, leanPick{"words", 256, 0, 0, 96}},
		{input{name: "rank 3 rows not at one stride", base: []int{2, 4, 8}, views: []func(*Tensor) (*Tensor, error){slice(1, 0, 3)}}, Float32,
			leanPick{}, leanPick{}},
	} {
		for _, kind := range []uint32{ops.NormLayer, ops.NormRMS, ops.LeanSoftmax} {
			for _, setting := range []string{"", "off"} {
				t.Run(fmt.Sprintf("%s/%s/kind %d/%q", tc.d, tc.in.name, kind, setting), func(t *testing.T) {
					t.Setenv(EnvRowsVec, setting)
					want := tc.on
					if setting == "off" {
						want = tc.off
					}
					x := viewOf(t, sim, tc.d, tc.in)
					cols := x.Shape()[len(x.Shape())-1]
					l, ok := x.st.ds.leanChoice(x, cols, kind, rowsVecOff())
					require.Equal(t, want.family != "", ok)
					if ok {
						family := map[string]string{leanVecKernels[kind].of(tc.d): "vec", leanKernels[kind].of(tc.d): "words"}[l.kernel]
						assert.Equal(t, want, leanPick{family, l.block, l.off, l.stride, l.length})
					}
					xc := viewOf(t, cpu, tc.d, tc.in)
					_, ok = xc.st.ds.leanChoice(xc, cols, kind, rowsVecOff())
					assert.False(t, ok, "the CPU takes a lean kernel")
				})
			}
		}
	}
}

// TestLeanVecEveryBackend runs rowsLeanVec on every backend, chosen or not
// (the CPU, and devices that report no subgroup size, leave rows to the
// other kernels): groups of the fewest threads that hold a row,
// ops.LeanVecs vectors a thread, at least 64, against the float64
// references of TestLeanNorms.
func TestLeanVecEveryBackend(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		rng := rand.New(rand.NewPCG(10, 10))
		const eps = 1e-5
		for _, d := range computeDTypes {
			for _, in := range []input{
				{name: "5x1024", base: []int{5, 1024}},
				{name: "301x16: many rows a group", base: []int{301, 16}},
				{name: "6x16 of 6x32 from column 8", base: []int{6, 32}, views: []func(*Tensor) (*Tensor, error){slice(1, 8, 24)},
					host: func(h hostND) hostND { return h.slice(1, 8, 24) }},
			} {
				t.Run(fmt.Sprintf("%s/%s", d, in.name), func(t *testing.T) {
					if !leanVecRuns(dev.Backend(), d) {
						t.Logf("%s %s: rowsLeanVec is not run there (leanVecRuns)", dev.Backend(), d)
						return
					}
					x, h := in.makeAs(t, dev, d, rng, -3, 5)
					cols := h.shape[len(h.shape)-1]
					rows := numel(h.shape) / cols
					gamma, hg := input{base: []int{cols}}.makeLoose(t, dev, d, rng)
					beta, hb := input{base: []int{cols}}.makeLoose(t, dev, d, rng)
					xoff, xrow, ok := leanRows(x, cols)
					require.True(t, ok)
					vecs := cols / wordElems(d) / vecWords
					block := 64
					for block*ops.LeanVecs < vecs {
						block *= 2
					}
					ds := x.st.ds
					for _, tc := range []struct {
						kind   uint32
						affine uint32
						want   func(row []float64) []float64
						tol    tolerance
					}{
						{ops.NormLayer, ops.NormGamma | ops.NormBeta, layerNormRow(hg, hb, eps), tolerance{2e-5, 2e-5}},
						{ops.NormLayer, 0, layerNormRow(nil, nil, eps), tolerance{2e-5, 2e-5}},
						{ops.NormRMS, ops.NormGamma, rmsNormRow(hg, eps), tolerance{2e-5, 2e-5}},
						{ops.LeanSoftmax, 0, softmaxRow, tolerance{1e-7, 1e-5}},
					} {
						l := leanLaunch{kernel: leanVecKernels[tc.kind].of(d), block: block,
							off: xoff / vecWords, stride: xrow / vecWords, length: vecs}
						out, err := empty(ds, "test", d, h.shape)
						require.NoError(t, err)
						err = ds.runLean(l, out, x, rows, tc.kind, tc.affine, gamma.st.buf, beta.st.buf, eps,
							[]*storage{out.st, x.st, gamma.st, beta.st})
						require.NoError(t, err, "kind %d", tc.kind)
						requireClose(t, rowsHost(h, tc.want), read(t, out), tc.tol.forDType(d), fmt.Sprintf("kind %d, affine %d", tc.kind, tc.affine))
						require.NoError(t, out.Close())
					}
				})
			}
		}
	})
}

// TestLeanVecRuns: rowsLeanVec runs everywhere but float16 on OpenGL.
func TestLeanVecRuns(t *testing.T) {
	for _, tc := range []struct {
		backend string
		d       DType
		want    bool
	}{{"opengl", Float16, false}, {"opengl", BFloat16, true}, {"opengl", Float32, true}, {"cuda", Float16, true}, {"vulkan", Float16, true}} {
		require.Equal(t, tc.want, leanVecRuns(tc.backend, tc.d), "%+v", tc)
	}
}
