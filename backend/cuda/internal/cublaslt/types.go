package cublaslt

// The C types and enum values of cuBLASLt that the binding uses, with their
// names and values from cublasLt.h, cublas_api.h and library_types.h (CUDA
// 12 and 13 agree on every one). TestConstants pins them.

// Status is a cublasStatus_t.
type Status int32

// cublasStatus_t values (cublas_api.h).
const (
	StatusSuccess         Status = 0  // CUBLAS_STATUS_SUCCESS
	StatusNotInitialized  Status = 1  // CUBLAS_STATUS_NOT_INITIALIZED
	StatusAllocFailed     Status = 3  // CUBLAS_STATUS_ALLOC_FAILED
	StatusInvalidValue    Status = 7  // CUBLAS_STATUS_INVALID_VALUE
	StatusArchMismatch    Status = 8  // CUBLAS_STATUS_ARCH_MISMATCH
	StatusMappingError    Status = 11 // CUBLAS_STATUS_MAPPING_ERROR
	StatusExecutionFailed Status = 13 // CUBLAS_STATUS_EXECUTION_FAILED
	StatusInternalError   Status = 14 // CUBLAS_STATUS_INTERNAL_ERROR
	StatusNotSupported    Status = 15 // CUBLAS_STATUS_NOT_SUPPORTED
	StatusLicenseError    Status = 16 // CUBLAS_STATUS_LICENSE_ERROR
)

// DataType is a cudaDataType_t (library_types.h): the element type of a
// matrix layout, or the scale type of a matmul descriptor.
type DataType int32

// cudaDataType_t values.
const (
	R32F  DataType = 0  // CUDA_R_32F: float
	R16F  DataType = 2  // CUDA_R_16F: IEEE half
	R8I   DataType = 3  // CUDA_R_8I: int8_t
	R32I  DataType = 10 // CUDA_R_32I: int32_t
	R16BF DataType = 14 // CUDA_R_16BF: bfloat16
)

// ComputeType is a cublasComputeType_t (cublas_api.h).
type ComputeType int32

// cublasComputeType_t values.
const (
	Compute32F         ComputeType = 68 // CUBLAS_COMPUTE_32F: float32 accumulation, no TF32
	Compute32FFastTF32 ComputeType = 77 // CUBLAS_COMPUTE_32F_FAST_TF32: float32 data through TF32 tensor cores
	Compute32I         ComputeType = 72 // CUBLAS_COMPUTE_32I: int32 accumulation
)

// Operation is a cublasOperation_t.
type Operation int32

// cublasOperation_t values.
const (
	OpN Operation = 0 // CUBLAS_OP_N: the matrix as stored
	OpT Operation = 1 // CUBLAS_OP_T: its transpose
)

// MatmulDescAttribute is a cublasLtMatmulDescAttributes_t.
type MatmulDescAttribute int32

// cublasLtMatmulDescAttributes_t values the binding sets.
const (
	DescComputeType MatmulDescAttribute = 0 // CUBLASLT_MATMUL_DESC_COMPUTE_TYPE (int32)
	DescScaleType   MatmulDescAttribute = 1 // CUBLASLT_MATMUL_DESC_SCALE_TYPE (int32)
	DescPointerMode MatmulDescAttribute = 2 // CUBLASLT_MATMUL_DESC_POINTER_MODE (int32)
	DescTransA      MatmulDescAttribute = 3 // CUBLASLT_MATMUL_DESC_TRANSA (int32 cublasOperation_t)
	DescTransB      MatmulDescAttribute = 4 // CUBLASLT_MATMUL_DESC_TRANSB (int32 cublasOperation_t)
	DescEpilogue    MatmulDescAttribute = 7 // CUBLASLT_MATMUL_DESC_EPILOGUE (uint32 cublasLtEpilogue_t)
	DescBiasPointer MatmulDescAttribute = 8 // CUBLASLT_MATMUL_DESC_BIAS_POINTER (const void *, device memory)
)

// Epilogue is a cublasLtEpilogue_t: what cublasLtMatmul applies to the
// product before it writes D.
type Epilogue uint32

// cublasLtEpilogue_t values the binding sets.
const (
	EpilogueDefault Epilogue = 1 // CUBLASLT_EPILOGUE_DEFAULT: D as computed
	// EpilogueBias is CUBLASLT_EPILOGUE_BIAS: adds the vector at
	// DescBiasPointer (one element per row of D, of D's type unless
	// CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE says otherwise) to every column.
	EpilogueBias Epilogue = 4
	// EpilogueReLU is CUBLASLT_EPILOGUE_RELU: max(x, 0) of every element.
	EpilogueReLU Epilogue = 2
	// EpilogueReLUBias is CUBLASLT_EPILOGUE_RELU_BIAS: the bias, then ReLU.
	EpilogueReLUBias Epilogue = 6
	// EpilogueGELU is CUBLASLT_EPILOGUE_GELU: GELU (tanh form) of every
	// element.
	EpilogueGELU Epilogue = 32
	// EpilogueGELUBias is CUBLASLT_EPILOGUE_GELU_BIAS: the bias, then GELU.
	EpilogueGELUBias Epilogue = 36
)

// LayoutAttribute is a cublasLtMatrixLayoutAttribute_t.
type LayoutAttribute int32

// cublasLtMatrixLayoutAttribute_t values.
const (
	LayoutType               LayoutAttribute = 0 // CUBLASLT_MATRIX_LAYOUT_TYPE (uint32 cudaDataType)
	LayoutOrder              LayoutAttribute = 1 // CUBLASLT_MATRIX_LAYOUT_ORDER (int32 cublasLtOrder_t)
	LayoutRows               LayoutAttribute = 2 // CUBLASLT_MATRIX_LAYOUT_ROWS (uint64)
	LayoutCols               LayoutAttribute = 3 // CUBLASLT_MATRIX_LAYOUT_COLS (uint64)
	LayoutLD                 LayoutAttribute = 4 // CUBLASLT_MATRIX_LAYOUT_LD (int64)
	LayoutBatchCount         LayoutAttribute = 5 // CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT (int32)
	LayoutStridedBatchOffset LayoutAttribute = 6 // CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET (int64, elements)
)

// OrderCol is CUBLASLT_ORDER_COL, a layout's default order: column-major.
const OrderCol = 0

// PreferenceAttribute is a cublasLtMatmulPreferenceAttributes_t.
type PreferenceAttribute int32

// cublasLtMatmulPreferenceAttributes_t values.
const (
	PrefSearchMode        PreferenceAttribute = 0 // CUBLASLT_MATMUL_PREF_SEARCH_MODE (uint32)
	PrefMaxWorkspaceBytes PreferenceAttribute = 1 // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES (uint64)
	PrefMinAlignmentA     PreferenceAttribute = 5 // CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES (uint32)
	PrefMinAlignmentB     PreferenceAttribute = 6 // CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES (uint32)
	PrefMinAlignmentC     PreferenceAttribute = 7 // CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES (uint32)
	PrefMinAlignmentD     PreferenceAttribute = 8 // CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES (uint32)
)

// Opaque handles: each is a pointer the library allocated.
type (
	Handle       uintptr // cublasLtHandle_t
	MatmulDesc   uintptr // cublasLtMatmulDesc_t
	MatrixLayout uintptr // cublasLtMatrixLayout_t
	Preference   uintptr // cublasLtMatmulPreference_t
)

// Algo is a cublasLtMatmulAlgo_t: an opaque 64-byte structure (uint64_t
// data[8]) that the heuristic fills and cublasLtMatmul reads.
type Algo struct {
	Data [8]uint64
}

// HeuristicResult is a cublasLtMatmulHeuristicResult_t (96 bytes on 64-bit
// systems): an algorithm, the workspace it needs, whether it can run, and its
// estimated waves.
type HeuristicResult struct {
	Algo          Algo
	WorkspaceSize uint64 // size_t
	State         Status // CUBLAS_STATUS_SUCCESS when the algorithm can run
	WavesCount    float32
	Reserved      [4]int32
}
