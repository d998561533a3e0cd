package backend

import "fmt"

// MatMulType is the element type of a matrix operand of MatMulArgs.
type MatMulType int

// The element types of MatMulArgs.
const (
	MatMulFloat32  MatMulType = iota + 1 // IEEE binary32
	MatMulFloat16                        // IEEE binary16
	MatMulBFloat16                       // bfloat16
	MatMulInt8                           // signed 8-bit integers
	MatMulInt32                          // signed 32-bit integers
)

// Size is the bytes of one element, or 0 for a value that is not a type.
func (t MatMulType) Size() int64 {
	switch t {
	case MatMulFloat32, MatMulInt32:
		return 4
	case MatMulFloat16, MatMulBFloat16:
		return 2
	case MatMulInt8:
		return 1
	}
	return 0
}

// String is the type's lower-case name: float32, float16, bfloat16, int8,
// int32.
func (t MatMulType) String() string {
	switch t {
	case MatMulFloat32:
		return "float32"
	case MatMulFloat16:
		return "float16"
	case MatMulBFloat16:
		return "bfloat16"
	case MatMulInt8:
		return "int8"
	case MatMulInt32:
		return "int32"
	}
	return fmt.Sprintf("MatMulType(%d)", int(t))
}

// MatMulActivation is a function a MatMul applies to every element of its
// result after the bias is added, before the result is stored.
type MatMulActivation int

// The activations of MatMulArgs.
const (
	MatMulNoActivation MatMulActivation = iota // the result as computed
	// MatMulGELU is GELU in its tanh form, x/2·(1 + tanh(√(2/π)·(x +
	// 0.044715·x³))) (cuBLASLt's CUBLASLT_EPILOGUE_GELU and GELU_BIAS).
	MatMulGELU
	// MatMulReLU is max(x, 0) (cuBLASLt's CUBLASLT_EPILOGUE_RELU and
	// RELU_BIAS).
	MatMulReLU
)

// Valid reports whether a is one of the activations above.
func (a MatMulActivation) Valid() bool { return a >= MatMulNoActivation && a <= MatMulReLU }

// String is the activation's lower-case name: none, gelu, relu.
func (a MatMulActivation) String() string {
	switch a {
	case MatMulNoActivation:
		return "none"
	case MatMulGELU:
		return "gelu"
	case MatMulReLU:
		return "relu"
	}
	return fmt.Sprintf("MatMulActivation(%d)", int(a))
}

// MatMulArgs is a checked, row-major, batched matrix product
// C = Act(Alpha·op(A)·op(B) + Beta·C (+ Bias in every row, when Bias is not
// nil)): see the root package's MatMul. The root
// guarantees: M, N > 0 and K ≥ 0; A, B and C open buffers of the stream's
// device; every leading dimension at least its stored row length; offsets
// multiples of the element size; every matrix of the batch within its
// buffer; Batch ≥ 1; Out filled in; a Bias's N elements of type Out within
// it; Act one of the activations, MatMulNoActivation when Beta ≠ 0 or Out
// is Int32. A backend whose library cannot apply Act returns NotSupported.
type MatMulArgs struct {
	M, N, K                   int
	A, B, C                   Buffer
	AOffset, BOffset, COffset int64 // bytes
	LDA, LDB, LDC             int   // elements
	TransA, TransB            bool  // A stored K×M; B stored N×K
	In, Out                   MatMulType
	Alpha, Beta               float32
	Batch                     int
	StrideA, StrideB, StrideC int64            // elements between matrices of the batch
	Bias                      Buffer           // nil, or N elements of type Out added to every row of every C
	BiasOffset                int64            // bytes
	D                         Buffer           // nil (the result goes to C), or where it goes, laid out as C; C is then only read
	DOffset                   int64            // bytes
	Act                       MatMulActivation // applied to every element after the bias, before the store
}

// String names the product for errors and profiles: the sizes and the input
// type, the output type when it differs from the input's (int8 products
// always give int32, so that is not repeated), the batch and the activation
// ("matmul 1×3072×768 bfloat16 gelu").
func (m *MatMulArgs) String() string {
	op := fmt.Sprintf("matmul %d×%d×%d %s", m.M, m.N, m.K, m.In)
	if m.Out != m.In && !(m.In == MatMulInt8 && m.Out == MatMulInt32) {
		op += "→" + m.Out.String()
	}
	if m.Batch > 1 {
		op += fmt.Sprintf(" batch %d", m.Batch)
	}
	if m.Act != MatMulNoActivation {
		op += " " + m.Act.String()
	}
	return op
}
