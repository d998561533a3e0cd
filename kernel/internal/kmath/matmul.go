package kmath

import (
	"fmt"
	"math"
	"reflect"
	"sync"
	"unsafe"
)

// Precision is how a tile multiply rounds its operands (package kernel's
// Precision, the same values).
type Precision uint8

// The precisions.
const (
	PrecisionFloat32  Precision = iota // operands as they are: float32 products and sums
	PrecisionBFloat16                  // operands rounded to bfloat16, nearest even
	PrecisionFloat16                   // operands rounded to float16, nearest even
)

// TileShape is the shape of a tile multiply: C (M×N, row stride LDC) +=
// A (M×K, row stride LDA) · B (K×N, row stride LDB; N×K when TransposeB).
type TileShape struct {
	M, N, K       int
	LDA, LDB, LDC int
	TransposeB    bool
	Precision     Precision
}

// Need returns the elements each of c, a and b must hold for shape s.
func (s TileShape) Need() (c, a, b int) {
	c = (s.M-1)*s.LDC + s.N
	a = (s.M-1)*s.LDA + s.K
	if s.TransposeB {
		b = (s.N-1)*s.LDB + s.K
	} else {
		b = (s.K-1)*s.LDB + s.N
	}
	return c, a, b
}

// Check reports what is wrong with shape s for arrays of the lengths
// lc, la and lb.
func (s TileShape) Check(lc, la, lb int) error {
	if s.M <= 0 || s.N <= 0 || s.K <= 0 || s.M%16 != 0 || s.N%16 != 0 || s.K%16 != 0 {
		return fmt.Errorf("matmul shape %d×%d×%d: the dimensions must be positive multiples of 16", s.M, s.N, s.K)
	}
	rowB := s.N
	if s.TransposeB {
		rowB = s.K
	}
	if s.LDA < s.K || s.LDB < rowB || s.LDC < s.N {
		return fmt.Errorf("matmul leading dimensions %d, %d, %d are below the rows' lengths %d, %d, %d", s.LDA, s.LDB, s.LDC, s.K, rowB, s.N)
	}
	if s.Precision > PrecisionFloat16 {
		return fmt.Errorf("matmul precision %d is not one of the precisions", s.Precision)
	}
	nc, na, nb := s.Need()
	switch {
	case lc < nc:
		return fmt.Errorf("matmul: c holds %d elements, the shape needs %d", lc, nc)
	case la < na:
		return fmt.Errorf("matmul: a holds %d elements, the shape needs %d", la, na)
	case lb < nb:
		return fmt.Errorf("matmul: b holds %d elements, the shape needs %d", lb, nb)
	}
	return nil
}

// Floats views *p, an array of float32 ([N]float32 or an array of such
// arrays), as a slice; nil if it is not one.
func Floats[T any](p *T) []float32 {
	t := reflect.TypeFor[T]()
	n := 1
	for t.Kind() == reflect.Array {
		n *= t.Len()
		t = t.Elem()
	}
	if t.Kind() != reflect.Float32 || p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(p)), n)
}

// RoundBFloat16 rounds x to the nearest bfloat16, ties to even, as a float32
// (NaN stays NaN; values beyond the largest bfloat16 become infinities).
func RoundBFloat16(x float32) float32 {
	b := math.Float32bits(x)
	if b&0x7fffffff > 0x7f800000 {
		return math.Float32frombits(b | 0x400000) // quiet, not rounded into an infinity
	}
	b += 0x7fff + (b>>16)&1
	return math.Float32frombits(b &^ 0xffff)
}

// RoundFloat16 rounds x to the nearest float16, ties to even, as a float32.
func RoundFloat16(x float32) float32 { return Float32FromHalf(HalfFromFloat32(x)) }

// round rounds x to precision p.
func round(x float32, p Precision) float32 {
	switch p {
	case PrecisionBFloat16:
		return RoundBFloat16(x)
	case PrecisionFloat16:
		return RoundFloat16(x)
	}
	return x
}

// scratch holds the rounded, row-major copies of B the multiplies use.
var scratch = sync.Pool{New: func() any { return new([]float32) }}

// MatMulAdd computes c += a·b for shape s, every operand rounded to s's
// precision first. A tile large enough to pay for packing its operands
// (packedPays) goes through the packed, register-blocked GEMM of package
// gemm (matMulPacked); a smaller one through a loop (matMulLoop). It
// reports a shape that does not fit the slices, and changes nothing then.
func MatMulAdd(c, a, b []float32, s TileShape) error {
	if err := s.Check(len(c), len(a), len(b)); err != nil {
		return err
	}
	if packedPays(s) {
		return matMulPacked(c, a, b, s)
	}
	matMulLoop(c, a, b, s)
	return nil
}

// matMulLoop computes c += a·b for a valid shape s: every operand rounded to
// s's precision, each product rounded to float32 (exact for the 16-bit
// precisions), and c[i][j] accumulated in float32 in the order k = 0..K-1.
func matMulLoop(c, a, b []float32, s TileShape) {
	bufp := scratch.Get().(*[]float32)
	defer scratch.Put(bufp)
	if cap(*bufp) < s.K*s.N {
		*bufp = make([]float32, s.K*s.N)
	}
	rb := (*bufp)[:s.K*s.N] // B rounded, K×N row-major
	for k := range s.K {
		row := rb[k*s.N : (k+1)*s.N]
		for j := range row {
			if s.TransposeB {
				row[j] = round(b[j*s.LDB+k], s.Precision)
			} else {
				row[j] = round(b[k*s.LDB+j], s.Precision)
			}
		}
	}
	for i := range s.M {
		ci := c[i*s.LDC : i*s.LDC+s.N]
		ai := a[i*s.LDA : i*s.LDA+s.K]
		for k, x := range ai {
			av := round(x, s.Precision)
			bk := rb[k*s.N : (k+1)*s.N]
			bk = bk[:len(ci)]
			for j, bv := range bk {
				ci[j] += float32(av * bv) // the conversion keeps Go from fusing a multiply-add
			}
		}
	}
}

// WithDefaults is s with each zero leading dimension replaced by its row's
// length.
func (s TileShape) WithDefaults() TileShape {
	if s.LDA == 0 {
		s.LDA = s.K
	}
	if s.LDB == 0 {
		s.LDB = s.N
		if s.TransposeB {
			s.LDB = s.K
		}
	}
	if s.LDC == 0 {
		s.LDC = s.N
	}
	return s
}
