package tensor

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/cuda"
	"github.com/anygpu/gpu/backend/cuda/cudatest"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// linearGELUCase is one of linearGELUCases.
type linearGELUCase struct {
	name    string
	x, w    input
	bias    bool
	library bool
}

// operands makes the case's x, w and bias (nil without one) of dtype d on
// dev from rng, with their host copies.
func (tc linearGELUCase) operands(t *testing.T, dev *gpu.Device, d DType, rng *rand.Rand) (x, w, bias *Tensor, xh, wh hostND, biasH []float64) {
	x, xh = tc.x.makeAs(t, dev, d, rng, -1, 1)
	w, wh = tc.w.makeAs(t, dev, d, rng, -1, 1)
	if tc.bias {
		b, bh := input{base: []int{wh.shape[1]}}.makeAs(t, dev, d, rng, -1, 1)
		bias, biasH = b, bh.data
	}
	return x, w, bias, xh, wh, biasH
}

// linearGELUCases are LinearGELU's operands: x [..., in], w [in out] (or a
// view of it), a bias or none. library says the matrix library takes the
// product as it is (no copy of x, a k > 0).
var linearGELUCases = []linearGELUCase{
	{name: "decode row with bias", x: input{base: []int{1, 48}}, w: input{base: []int{48, 40}}, bias: true, library: true},
	{name: "rows, no bias", x: input{base: []int{5, 20}}, w: input{base: []int{20, 9}}, library: true},
	{name: "rank 3 with bias", x: input{base: []int{2, 3, 20}}, w: input{base: []int{20, 33}}, bias: true, library: true},
	{name: "PyTorch weight [out in] transposed", x: input{base: []int{3, 24}}, bias: true, library: true,
		w: input{base: []int{17, 24}, views: []func(*Tensor) (*Tensor, error){transpose(0, 1)},
			host: func(h hostND) hostND { return h.permute(1, 0) }}},
	{name: "prefill rows (the built-in sgemm for float32)", x: input{base: []int{70, 24}}, w: input{base: []int{24, 16}}, bias: true, library: true},
	{name: "rank 3 x not flattenable", w: input{base: []int{8, 5}}, bias: true,
		x: input{base: []int{3, 2, 8}, views: []func(*Tensor) (*Tensor, error){permute(1, 0, 2)},
			host: func(h hostND) hostND { return h.permute(1, 0, 2) }}},
	{name: "empty inner dimension", x: input{base: []int{3, 0}}, w: input{base: []int{0, 4}}, bias: true},
}

// linearGELUHost is GELU (tanh form) of x·w + bias in float64, x flattened
// to rows, and the largest |x·w + bias| of an element.
func linearGELUHost(x, w hostND, bias []float64) (hostND, float64) {
	in := x.shape[len(x.shape)-1]
	rows := 1
	for _, s := range x.shape[:len(x.shape)-1] {
		rows *= s
	}
	p := matmulHost(hostND{shape: []int{rows, in}, data: x.data}, w, bias)
	out := hostND{shape: append(append([]int{}, x.shape[:len(x.shape)-1]...), w.shape[1]), data: make([]float64, len(p.data))}
	scale := 0.0
	for i, v := range p.data {
		out.data[i] = geluTanh(v)
		scale = max(scale, math.Abs(v))
	}
	return out, scale
}

// geluMaxSlope bounds |GELU'(x)| (tanh form) over every x: about 1.129,
// near x = 2.4. An error of GELU's input grows by at most that much.
const geluMaxSlope = 1.13

// Tolerances of LinearGELU against float64 GELU(x·w + bias). Both are the
// float32 bound (accumulation in float32, GELU in float32) plus the
// roundings to a 16-bit dtype on the way:
//
//   - twoRoundings, GELU after Linear (the kernels; cuBLASLt, which may
//     round its 16-bit product before it adds the bias): the product plus
//     the bias rounded to the dtype, an error GELU passes on times its
//     slope (at most geluMaxSlope), then GELU's result rounded again.
//   - oneRounding, the library's GELU epilogue as the stand-in cuBLASLt
//     computes it: GELU of the float32 sum, rounded once.
func twoRoundings(d DType, scale float64) tolerance {
	return tolerance{abs: 4e-5 + geluMaxSlope*unitRoundoff(d)*scale, rel: 2e-6}.forDType(d)
}

func oneRounding(d DType) tolerance { return tolerance{abs: 4e-5, rel: 2e-6}.forDType(d) }

// hasMatMulLibrary reports whether dev multiplies through a matrix library
// (gpu.Stream.MatMul is not NotSupported for a float32 product).
func hasMatMulLibrary(t *testing.T, dev *gpu.Device) bool {
	t.Helper()
	buf, err := dev.Alloc(3 * 16) // A, B and C, 2×2 float32 each
	require.NoError(t, err)
	defer buf.Close()
	s := dev.DefaultStream()
	err = s.MatMul(gpu.MatMul{M: 2, N: 2, K: 2, A: buf, B: buf, C: buf, BOffset: 16, COffset: 32, In: gpu.MatMulFloat32})
	if errors.CategoryOf(err) == errors.NotSupported {
		return false
	}
	require.NoError(t, err)
	require.NoError(t, s.Synchronize(context.Background()))
	return true
}

// TestLinearGELU: LinearGELU on every device and dtype against float64, and
// against GELU(Linear) computed on the device: the same numbers where the
// device has no matrix library (LinearGELU is then those two ops).
func TestLinearGELU(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		library := hasMatMulLibrary(t, dev)
		for _, d := range computeDTypes {
			for _, tc := range linearGELUCases {
				t.Run(d.String()+"/"+tc.name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(11, uint64(len(tc.name))))
					x, w, bias, xh, wh, biasH := tc.operands(t, dev, d, rng)
					y, err := LinearGELU(x, w, bias)
					require.NoError(t, err)
					want, scale := linearGELUHost(xh, wh, biasH)
					require.Equal(t, want.shape, y.Shape())
					got := read(t, y)
					tol := twoRoundings(d, scale)
					if library { // its tanh may be approximate: PTX's tanh.approx.f32 errs by about 2⁻¹¹, |x|·2⁻¹² of GELU
						tol.abs += scale / 4096
					}
					requireClose(t, want, got, tol, tc.name)

					lin, err := Linear(x, w, bias)
					require.NoError(t, err)
					defer lin.Close()
					sep, err := GELU(lin)
					require.NoError(t, err)
					if !library {
						assert.Equal(t, read(t, sep), got, "LinearGELU is GELU(Linear) without a matrix library")
					} else {
						requireClose(t, want, read(t, sep), twoRoundings(d, scale), "GELU(Linear)")
					}
				})
			}
		}
	})
}

// TestLinearGELUStandInCUDA: over the stand-in CUDA libraries (the fake
// driver, whose launches do nothing, and the fake cuBLASLt, which computes
// products and their GELU epilogue), LinearGELU is the library's product
// with gpu.MatMulGELU, its one launch: no kernel could have computed it. The epilogue
// rounds once, so the result is within oneRounding of float64, tighter than
// GELU after Linear for the 16-bit dtypes (which exceeds it in every case of
// linearGELUCases on the CPU, for Float16 and BFloat16).
func TestLinearGELUStandInCUDA(t *testing.T) {
	if err := cudatest.Install(t.TempDir(), t.Setenv, true); err != nil {
		t.Skipf("no stand-in CUDA libraries: %v", err)
	}
	ctx := context.Background()
	dev, err := gpu.OpenDriver(ctx, cuda.Driver{}, 0)
	require.NoError(t, err)
	defer dev.Close()
	defer Release(ctx, dev)
	for _, d := range computeDTypes {
		for _, tc := range linearGELUCases {
			if !tc.library {
				continue // a copy or a fill: a kernel, which the stand-in driver does not run
			}
			t.Run(d.String()+"/"+tc.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(13, uint64(len(tc.name))))
				x, w, bias, xh, wh, biasH := tc.operands(t, dev, d, rng)
				before := dev.Stats().KernelLaunches
				y, err := LinearGELU(x, w, bias)
				require.NoError(t, err)
				assert.Equal(t, before+1, dev.Stats().KernelLaunches, "LinearGELU is one launch: the library's product")
				want, _ := linearGELUHost(xh, wh, biasH)
				requireClose(t, want, read(t, y), oneRounding(d), tc.name)
			})
		}
	}
}

// geluLibrary stands in for a matrix library with a GELU epilogue on the
// CPU: hostLibrary's product (bias included), then GELU (tanh form, float32)
// of every element of the result, rounded to the output type again (two
// roundings, unlike a real epilogue: the numbers are not what it checks).
func geluLibrary(s *gpu.Stream, m gpu.MatMul) error {
	act := m.Activation
	m.Activation = gpu.MatMulNoActivation
	if err := hostLibrary(s, m); err != nil || act == gpu.MatMulNoActivation {
		return err
	}
	if act != gpu.MatMulGELU || m.Beta != 0 {
		return errors.E(errors.NotSupported, "test", "matmul", "geluLibrary applies GELU to a product without Beta only")
	}
	out := libraryDType(m.Out)
	dst, off := m.C, m.COffset
	if m.D != nil {
		dst, off = m.D, m.DOffset
	}
	raw := make([]byte, dst.Size())
	if _, err := dst.ReadAt(raw, 0); err != nil {
		return err
	}
	vals := make([]float32, len(raw)/out.Size())
	decodeFloat32s(vals, out, raw)
	base := int(off) / out.Size()
	for b := range max(m.Batch, 1) {
		for i := range m.M {
			for j := range m.N {
				at := base + b*int(m.StrideC) + i*m.LDC + j
				vals[at] = float32(geluTanh(float64(vals[at])))
			}
		}
	}
	encodeFloat32s(raw, out, vals)
	_, err := dst.WriteAt(raw, 0)
	return err
}

// TestLinearGELULibrary: with a library that applies GELU, LinearGELU is one
// product asking for gpu.MatMulGELU and no launch, one op fewer than
// GELU(Linear); with a library that refuses GELU (NotSupported), the
// product still goes to it without, GELU follows as an op, and the refusal
// is remembered (no later LinearGELU of that kind asks again).
func TestLinearGELULibrary(t *testing.T) {
	dev := cpuDevice(t)
	ctx := context.Background()
	t.Cleanup(func() { require.NoError(t, Synchronize(ctx, dev)) })
	for _, d := range computeDTypes {
		t.Run(d.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, uint64(d)))
			x, xh := input{base: []int{2, 32}}.makeAs(t, dev, d, rng, -1, 1)
			w, wh := input{base: []int{32, 24}}.makeAs(t, dev, d, rng, -1, 1)
			bias, bh := input{base: []int{24}}.makeAs(t, dev, d, rng, -1, 1)
			want, scale := linearGELUHost(xh, wh, bh.data)

			var acts []gpu.MatMulActivation // what each call asked for
			recording := func(lib func(*gpu.Stream, gpu.MatMul) error) func(*gpu.Stream, gpu.MatMul) error {
				return func(s *gpu.Stream, m gpu.MatMul) error {
					acts = append(acts, m.Activation)
					return lib(s, m)
				}
			}
			run := func(lib func(*gpu.Stream, gpu.MatMul) error, f func() (*Tensor, error)) (launches int64, got []float32) {
				acts = acts[:0]
				withLibrary(t, dev, recording(lib), func() {
					before := dev.Stats().KernelLaunches
					y, err := f()
					require.NoError(t, err)
					launches = dev.Stats().KernelLaunches - before
					got = read(t, y)
				})
				return launches, got
			}
			linearGELU := func() (*Tensor, error) { return LinearGELU(x, w, bias) }
			separate := func() (*Tensor, error) {
				y, err := Linear(x, w, bias)
				if err != nil {
					return nil, err
				}
				defer y.Close()
				return GELU(y)
			}

			n, got := run(geluLibrary, linearGELU)
			assert.Equal(t, int64(0), n, "LinearGELU on a library with GELU launches nothing")
			assert.Equal(t, []gpu.MatMulActivation{gpu.MatMulGELU}, acts)
			requireClose(t, want, got, twoRoundings(d, scale), "fused")
			n, got = run(geluLibrary, separate)
			assert.Equal(t, int64(1), n, "GELU(Linear) launches the GELU")
			assert.Equal(t, []gpu.MatMulActivation{gpu.MatMulNoActivation}, acts)
			requireClose(t, want, got, twoRoundings(d, scale), "separate")

			noGELU := func(s *gpu.Stream, m gpu.MatMul) error {
				if m.Activation != gpu.MatMulNoActivation {
					return errors.E(errors.NotSupported, "test", "matmul", "no GELU epilogue")
				}
				return hostLibrary(s, m)
			}
			withLibrary(t, dev, recording(noGELU), func() {
				for i := range 2 {
					acts = acts[:0]
					y, err := LinearGELU(x, w, bias)
					require.NoError(t, err)
					requireClose(t, want, read(t, y), twoRoundings(d, scale), "refused")
					if i == 0 {
						assert.Equal(t, []gpu.MatMulActivation{gpu.MatMulGELU, gpu.MatMulNoActivation}, acts, "asked with GELU, then without")
					} else {
						assert.Equal(t, []gpu.MatMulActivation{gpu.MatMulNoActivation}, acts, "the refusal is remembered")
					}
				}
			})
		})
	}
}

func TestLinearGELUErrors(t *testing.T) {
	dev := cpuDevice(t)
	ctx := context.Background()
	t.Cleanup(func() { require.NoError(t, Synchronize(ctx, dev)) })
	mk := func(d DType, shape ...int) *Tensor { return zerosFor(t, dev, d, shape...) }
	closed := mk(Float32, 3, 4)
	require.NoError(t, closed.Close())
	for _, tc := range []struct {
		name    string
		x, w, b *Tensor
		cat     errors.Category
		msg     string
	}{
		{"nil x", nil, mk(Float32, 3, 4), nil, errors.InvalidArgument, "nil tensor"},
		{"closed w", mk(Float32, 2, 3), closed, nil, errors.Closed, "closed"},
		{"scalar x", mk(Float32), mk(Float32, 3, 4), nil, errors.InvalidArgument, "scalar"},
		{"w of another dtype", mk(Float32, 2, 3), mk(BFloat16, 3, 4), nil, errors.InvalidArgument, "bfloat16"},
		{"inner dimensions", mk(Float32, 2, 3), mk(Float32, 5, 4), nil, errors.InvalidArgument, "inner dimensions 3 and 5 differ"},
		{"bias shape", mk(Float32, 2, 3), mk(Float32, 3, 4), mk(Float32, 3), errors.InvalidArgument, "bias of shape [3]; want [4]"},
		{"integer x", mk(Int32, 2, 3), mk(Int32, 3, 4), nil, errors.NotSupported, "int32 tensors"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y, err := LinearGELU(tc.x, tc.w, tc.b)
			require.Error(t, err)
			require.Nil(t, y)
			require.Contains(t, err.Error(), tc.msg)
			require.True(t, errors.Is(err, tc.cat), "%v", err)
			require.Contains(t, err.Error(), "linear gelu")
		})
	}
}
