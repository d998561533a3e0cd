package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/anygpu/gpu"
	gerrors "github.com/anygpu/gpu/errors"
)

// The library matrix products: Stream.MatMul, which CUDA runs through
// cuBLASLt on the tensor cores, at the sizes of the comparison with
// PyTorch. They are measured where the backend has a matrix library (CUDA);
// elsewhere they are left out, neither a number nor an error.
const (
	// mMatMulBF16 is a bfloat16 product of 2·SgemmN (8192³ on a GPU):
	// 2·n³ / time; the peer is torch.matmul in bfloat16.
	mMatMulBF16 = "matmul_bf16_tflops"
	// mMatMulF32 is a float32 product of SgemmN (4096³), exact FP32 (no
	// TF32); the peer is torch.mm with TF32 off, as for sgemm_tflops.
	mMatMulF32 = "matmul_f32_tflops"
)

// libraryMetrics are the metrics of a backend's matrix library.
var libraryMetrics = []string{mMatMulBF16, mMatMulF32}

// isLibraryMetric reports whether a metric is one of libraryMetrics.
func isLibraryMetric(name string) bool { return slices.Contains(libraryMetrics, name) }

func init() {
	metrics = append(metrics,
		metric{mMatMulBF16, "matmul", (*runner).matMulBF16},
		metric{mMatMulF32, "matmul", (*runner).matMulF32},
	)
}

// errNotApplicable marks a metric the device cannot measure by design (no
// matrix library): bench leaves it out instead of reporting an error.
var errNotApplicable = errors.New("not applicable to this device")

// Seeds of the products' operands.
const (
	seedMatA = 31
	seedMatB = 32
)

// matMulBF16: C = A·B in bfloat16 (float32 accumulation), all n×n with
// n = 2·SgemmN (8192, or 1024 with --quick), timed on the device.
func (r *runner) matMulBF16() (float64, error) {
	return r.libraryMatMul(gpu.MatMulBFloat16, 2*r.sz.SgemmN)
}

// matMulF32: C = A·B in float32, n = SgemmN (4096, or 512 with --quick).
func (r *runner) matMulF32() (float64, error) {
	return r.libraryMatMul(gpu.MatMulFloat32, r.sz.SgemmN)
}

// libraryMatMul times one n³ product of type t through Stream.MatMul (alpha
// 1, beta 0, no transposes: torch.matmul of two contiguous matrices) and
// checks sampled elements of C against a float64 dot product of the stored
// inputs.
func (r *runner) libraryMatMul(t gpu.MatMulType, n int) (float64, error) {
	nn := n * n
	size := int(t.Size())
	operand := func(seed uint32) (*gpu.Buffer, error) {
		raw := make([]byte, nn*size)
		parallel(nn, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				putElement(t, raw[i*size:], value(seed, i, -1, 1))
			}
		})
		return r.upload8(raw)
	}
	a, err := operand(seedMatA)
	if err != nil {
		return 0, err
	}
	b, err := operand(seedMatB)
	if err != nil {
		return 0, err
	}
	c, err := r.alloc(int64(nn * size))
	if err != nil {
		return 0, err
	}
	m := gpu.MatMul{M: n, N: n, K: n, A: a, B: b, C: c, In: t}
	if err := r.stream.MatMul(m); err != nil {
		if gerrors.CategoryOf(err) == gerrors.NotSupported && (r.dev.Backend() != "cuda" || r.dev.Simulated()) {
			return 0, fmt.Errorf("%w: %v", errNotApplicable, err)
		}
		return 0, err
	}
	d, err := repeat(r.ctx, r.sz.SgemmReps, func() (time.Duration, error) {
		return r.timer.device(func() error { return r.stream.MatMul(m) })
	})
	if err != nil {
		return 0, err
	}
	if err := r.checkMatMul(t, c, n); err != nil {
		return 0, err
	}
	return 2 * math.Pow(float64(n), 3) / d.Seconds() / 1e12, nil
}

// upload8 copies raw bytes to a new buffer released with the group.
func (r *runner) upload8(raw []byte) (*gpu.Buffer, error) {
	b, err := r.alloc(int64(len(raw)))
	if err != nil {
		return nil, err
	}
	if err := r.stream.Write(b, 0, raw); err != nil {
		return nil, err
	}
	return b, r.stream.Synchronize(r.ctx)
}

// checkMatMul compares 16 sampled elements of C with the product of the
// stored inputs: float32 accumulation in any order (n·2⁻²³ of the terms'
// magnitude) and, for bfloat16, the output's rounding (2⁻⁸ of the value).
func (r *runner) checkMatMul(t gpu.MatMulType, c *gpu.Buffer, n int) error {
	size := int(t.Size())
	idx := samples(n*n, 16)
	raw := make([]byte, len(idx)*size)
	for j, e := range idx {
		if err := r.stream.Read(raw[j*size:(j+1)*size], c, int64(e*size)); err != nil {
			return err
		}
	}
	if err := r.stream.Synchronize(r.ctx); err != nil {
		return err
	}
	outEps := 0.0
	if t == gpu.MatMulBFloat16 {
		outEps = 1.0 / 256
	}
	for j, e := range idx {
		row, col := e/n, e%n
		var want, mag float64
		for p := range n {
			x := stored(t, value(seedMatA, row*n+p, -1, 1))
			y := stored(t, value(seedMatB, p*n+col, -1, 1))
			want += x * y
			mag += math.Abs(x * y)
		}
		got := getElement(t, raw[j*size:])
		tol := outEps*math.Abs(want) + float64(n)/(1<<23)*mag + 1e-6
		if math.Abs(got-want) > tol || math.IsNaN(got) {
			return fmt.Errorf("matmul %s C[%d,%d] is %v, want %v (tolerance %.3g)", t, row, col, got, want, tol)
		}
	}
	return nil
}

// putElement stores v as type t (bfloat16 rounded to nearest even).
func putElement(t gpu.MatMulType, b []byte, v float32) {
	if t == gpu.MatMulBFloat16 {
		u := math.Float32bits(v)
		binary.LittleEndian.PutUint16(b, uint16((u+0x7fff+(u>>16)&1)>>16))
		return
	}
	binary.LittleEndian.PutUint32(b, math.Float32bits(v))
}

// getElement reads an element of type t.
func getElement(t gpu.MatMulType, b []byte) float64 {
	if t == gpu.MatMulBFloat16 {
		return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16))
	}
	return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
}

// stored is v as type t stores it.
func stored(t gpu.MatMulType, v float32) float64 {
	var b [4]byte
	putElement(t, b[:], v)
	return getElement(t, b[:])
}
