package tensor

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withLibrary runs f with lib standing in for gpu.Stream.MatMul and with
// dev's memory of absent libraries cleared, both restored after.
func withLibrary(t *testing.T, dev *gpu.Device, lib func(*gpu.Stream, gpu.MatMul) error, f func()) {
	t.Helper()
	ds := stateOf(dev)
	ds.mu.Lock()
	saved := ds.noLibrary
	ds.noLibrary = nil
	ds.mu.Unlock()
	old := matMulLibrary
	matMulLibrary = lib
	defer func() {
		matMulLibrary = old
		ds.mu.Lock()
		ds.noLibrary = saved
		ds.mu.Unlock()
	}()
	f()
}

// libraryDType is the tensor dtype of a gpu.MatMulType.
func libraryDType(t gpu.MatMulType) DType {
	switch t {
	case gpu.MatMulFloat16:
		return Float16
	case gpu.MatMulBFloat16:
		return BFloat16
	}
	return Float32
}

// hostLibrary is a matrix library on the host: it reads the operands back,
// computes C = Alpha·op(A)·op(B) + Beta·C (+ Bias in every row) in float64
// by the gpu.MatMul definition (row-major, leading dimensions, batch strides;
// C not read when Beta is 0) and writes C, or D when the MatMul has one.
func hostLibrary(s *gpu.Stream, m gpu.MatMul) error {
	in, out := libraryDType(m.In), libraryDType(m.Out)
	if m.Out == 0 {
		out = in
	}
	load := func(b *gpu.Buffer, d DType) ([]float32, error) {
		raw := make([]byte, b.Size())
		if _, err := b.ReadAt(raw, 0); err != nil {
			return nil, err
		}
		vals := make([]float32, len(raw)/d.Size())
		decodeFloat32s(vals, d, raw)
		return vals, nil
	}
	a, err := load(m.A, in)
	if err != nil {
		return err
	}
	b, err := load(m.B, in)
	if err != nil {
		return err
	}
	c, err := load(m.C, out)
	if err != nil {
		return err
	}
	var bias []float32
	if m.Bias != nil {
		if bias, err = load(m.Bias, out); err != nil {
			return err
		}
		bias = bias[int(m.BiasOffset)/out.Size():]
	}
	lda, ldb, ldc := m.LDA, m.LDB, m.LDC
	ao, bo, co := int(m.AOffset)/in.Size(), int(m.BOffset)/in.Size(), int(m.COffset)/out.Size()
	dst, dstBuf, do := c, m.C, co // where the result goes: C, or D laid out as C
	if m.D != nil {
		if dst, err = load(m.D, out); err != nil {
			return err
		}
		dstBuf, do = m.D, int(m.DOffset)/out.Size()
	}
	for bi := range max(m.Batch, 1) {
		for i := range m.M {
			for j := range m.N {
				s := 0.0
				for q := range m.K {
					ai := ao + bi*int(m.StrideA) + i*lda + q
					if m.TransA {
						ai = ao + bi*int(m.StrideA) + q*lda + i
					}
					bj := bo + bi*int(m.StrideB) + q*ldb + j
					if m.TransB {
						bj = bo + bi*int(m.StrideB) + j*ldb + q
					}
					s += float64(a[ai]) * float64(b[bj])
				}
				ci := co + bi*int(m.StrideC) + i*ldc + j
				old := 0.0 // C is not read with Beta 0 (its contents may be anything, NaN included)
				if m.Beta != 0 {
					old = float64(m.Beta) * float64(c[ci])
				}
				v := float64(m.Alpha)*s + old
				if bias != nil {
					v += float64(bias[j])
				}
				dst[ci-co+do] = float32(v)
			}
		}
	}
	raw := make([]byte, dstBuf.Size())
	encodeFloat32s(raw[:len(dst)*out.Size()], out, dst)
	_, err = dstBuf.WriteAt(raw, 0)
	return err
}

// TestMatMulLibrary: where the library works, every product whose layout
// it takes goes to it, with the right leading dimensions, transposes,
// offsets, batch strides and bias; the others go to the kernels. Both give
// the float64 product.
func TestMatMulLibrary(t *testing.T) {
	dev := cpuDevice(t)
	ctx := context.Background()
	for _, d := range computeDTypes {
		for _, tc := range matmulCases {
			t.Run(d.String()+"/"+tc.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(17, uint64(len(tc.name))))
				a, ah := tc.a.makeAs(t, dev, d, rng, -1, 1)
				b, bh := tc.b.makeAs(t, dev, d, rng, -1, 1)
				n := bh.shape[len(bh.shape)-1]
				var bias *Tensor
				var biasH []float64
				if tc.bias {
					bh := build([]int{n}, func([]int) float64 { return roundTo(d, rng.Float64()-0.5) })
					var err error
					bias, err = FromFloat32(ctx, dev, d, bh.float32s(), n)
					require.NoError(t, err)
					defer bias.Close()
					biasH = bh.data
				}
				calls := 0
				var got *Tensor
				withLibrary(t, dev, func(s *gpu.Stream, m gpu.MatMul) error {
					calls++
					assert.Equal(t, libraryType(d), m.In)
					assert.Equal(t, libraryType(d), m.Out)
					return hostLibrary(s, m)
				}, func() {
					var err error
					got, err = matmul("matmul", a, b, bias)
					require.NoError(t, err)
				})
				defer got.Close()
				want := matmulHost(ah, bh, biasH)
				vals, err := got.ToFloat32(ctx)
				require.NoError(t, err)
				requireClose(t, want, vals, tolerance{abs: 4e-5, rel: 1e-5}.forDType(d), tc.name)
				_, _, okA := libraryOperand(matrixOf(a))
				_, _, okB := libraryOperand(matrixOf(b))
				wantCalls := 0
				if okA && okB && numel(want.shape) > 0 && ah.shape[len(ah.shape)-1] > 0 {
					wantCalls = 1
				}
				assert.Equal(t, wantCalls, calls, "library calls")
			})
		}
	}
}

// TestMatMulLibraryFallback: a NotSupported library is asked once per
// device and kind of product (dtype, layouts, batched), then not again; the
// kernels compute the product. Any other error of the library is the
// product's.
func TestMatMulLibraryFallback(t *testing.T) {
	dev := cpuDevice(t)
	rng := rand.New(rand.NewPCG(1, 2))
	calls := map[gpu.MatMulType]int{}
	absent := func(_ *gpu.Stream, m gpu.MatMul) error {
		calls[m.In]++
		return errors.E(errors.NotSupported, "test", "matmul", "no library")
	}
	withLibrary(t, dev, absent, func() {
		for _, d := range computeDTypes {
			a, ah := input{base: []int{5, 7}}.makeAs(t, dev, d, rng, -1, 1)
			b, bh := input{base: []int{7, 3}}.makeAs(t, dev, d, rng, -1, 1)
			c, ch := input{base: []int{3, 7}}.makeAs(t, dev, d, rng, -1, 1)
			ct, err := c.Transpose(0, 1) // another kind of product: B stored transposed
			require.NoError(t, err)
			defer ct.Close()
			for range 2 {
				got, err := MatMul(a, b)
				require.NoError(t, err)
				requireClose(t, matmulHost(ah, bh, nil), read(t, got), tolerance{abs: 1e-6, rel: 1e-6}.forDType(d), d.String())
				got, err = MatMul(a, ct)
				require.NoError(t, err)
				requireClose(t, matmulHost(ah, ch.permute(1, 0), nil), read(t, got), tolerance{abs: 1e-6, rel: 1e-6}.forDType(d), d.String())
			}
		}
	})
	assert.Equal(t, map[gpu.MatMulType]int{gpu.MatMulFloat32: 2, gpu.MatMulFloat16: 2, gpu.MatMulBFloat16: 2}, calls)

	broken := func(*gpu.Stream, gpu.MatMul) error {
		return errors.E(errors.Internal, "test", "matmul", "the library failed")
	}
	withLibrary(t, dev, broken, func() {
		a, _ := input{base: []int{2, 2}}.makeAs(t, dev, BFloat16, rng, -1, 1)
		_, err := MatMul(a, a)
		require.ErrorIs(t, err, errors.Internal)
		assert.Contains(t, err.Error(), "the library failed")
	})
}

func TestLibraryOperand(t *testing.T) {
	tests := []struct {
		name      string
		v         matrixView
		ld        int
		trans, ok bool
	}{
		{"row-major", matrixView{rows: 3, rstride: 5, cols: 5, cstride: 1}, 5, false, true},
		{"row-major, padded rows", matrixView{rows: 3, rstride: 8, cols: 5, cstride: 1}, 8, false, true},
		{"transposed", matrixView{rows: 3, rstride: 1, cols: 5, cstride: 3}, 3, true, true},
		{"one row, any row stride", matrixView{rows: 1, rstride: 0, cols: 5, cstride: 1}, 5, false, true},
		{"one column, any column stride", matrixView{rows: 4, rstride: 1, cols: 1, cstride: 0}, 4, true, true},
		{"broadcast rows", matrixView{rows: 3, rstride: 0, cols: 5, cstride: 1}, 0, false, false},
		{"no unit stride", matrixView{rows: 3, rstride: 10, cols: 5, cstride: 2}, 0, false, false},
		{"overlapping rows", matrixView{rows: 3, rstride: 2, cols: 5, cstride: 1}, 0, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ld, trans, ok := libraryOperand(tc.v)
			assert.Equal(t, tc.ok, ok)
			if ok {
				assert.Equal(t, tc.ld, ld)
				assert.Equal(t, tc.trans, trans)
			}
		})
	}
}
