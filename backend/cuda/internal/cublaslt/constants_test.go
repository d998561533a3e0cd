package cublaslt

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConstants pins every enum value the binding passes to cuBLASLt to its
// value in cublasLt.h, cublas_api.h and library_types.h (CUDA 12 and 13).
func TestConstants(t *testing.T) {
	for _, c := range []struct {
		header string
		got    int64
		want   int64
	}{
		{"CUBLAS_STATUS_SUCCESS", int64(StatusSuccess), 0},
		{"CUBLAS_STATUS_NOT_INITIALIZED", int64(StatusNotInitialized), 1},
		{"CUBLAS_STATUS_ALLOC_FAILED", int64(StatusAllocFailed), 3},
		{"CUBLAS_STATUS_INVALID_VALUE", int64(StatusInvalidValue), 7},
		{"CUBLAS_STATUS_ARCH_MISMATCH", int64(StatusArchMismatch), 8},
		{"CUBLAS_STATUS_MAPPING_ERROR", int64(StatusMappingError), 11},
		{"CUBLAS_STATUS_EXECUTION_FAILED", int64(StatusExecutionFailed), 13},
		{"CUBLAS_STATUS_INTERNAL_ERROR", int64(StatusInternalError), 14},
		{"CUBLAS_STATUS_NOT_SUPPORTED", int64(StatusNotSupported), 15},
		{"CUBLAS_STATUS_LICENSE_ERROR", int64(StatusLicenseError), 16},
		{"CUDA_R_32F", int64(R32F), 0},
		{"CUDA_R_16F", int64(R16F), 2},
		{"CUDA_R_8I", int64(R8I), 3},
		{"CUDA_R_32I", int64(R32I), 10},
		{"CUDA_R_16BF", int64(R16BF), 14},
		{"CUBLAS_COMPUTE_32F", int64(Compute32F), 68},
		{"CUBLAS_COMPUTE_32F_FAST_TF32", int64(Compute32FFastTF32), 77},
		{"CUBLAS_COMPUTE_32I", int64(Compute32I), 72},
		{"CUBLAS_OP_N", int64(OpN), 0},
		{"CUBLAS_OP_T", int64(OpT), 1},
		{"CUBLASLT_MATMUL_DESC_COMPUTE_TYPE", int64(DescComputeType), 0},
		{"CUBLASLT_MATMUL_DESC_SCALE_TYPE", int64(DescScaleType), 1},
		{"CUBLASLT_MATMUL_DESC_POINTER_MODE", int64(DescPointerMode), 2},
		{"CUBLASLT_MATMUL_DESC_TRANSA", int64(DescTransA), 3},
		{"CUBLASLT_MATMUL_DESC_TRANSB", int64(DescTransB), 4},
		{"CUBLASLT_MATMUL_DESC_EPILOGUE", int64(DescEpilogue), 7},
		{"CUBLASLT_MATMUL_DESC_BIAS_POINTER", int64(DescBiasPointer), 8},
		{"CUBLASLT_EPILOGUE_DEFAULT", int64(EpilogueDefault), 1},
		{"CUBLASLT_EPILOGUE_BIAS", int64(EpilogueBias), 4},
		{"CUBLASLT_EPILOGUE_RELU", int64(EpilogueReLU), 2},
		{"CUBLASLT_EPILOGUE_RELU_BIAS", int64(EpilogueReLUBias), 6},
		{"CUBLASLT_EPILOGUE_GELU", int64(EpilogueGELU), 32},
		{"CUBLASLT_EPILOGUE_GELU_BIAS", int64(EpilogueGELUBias), 36},
		{"CUBLASLT_MATRIX_LAYOUT_TYPE", int64(LayoutType), 0},
		{"CUBLASLT_MATRIX_LAYOUT_ORDER", int64(LayoutOrder), 1},
		{"CUBLASLT_MATRIX_LAYOUT_ROWS", int64(LayoutRows), 2},
		{"CUBLASLT_MATRIX_LAYOUT_COLS", int64(LayoutCols), 3},
		{"CUBLASLT_MATRIX_LAYOUT_LD", int64(LayoutLD), 4},
		{"CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT", int64(LayoutBatchCount), 5},
		{"CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET", int64(LayoutStridedBatchOffset), 6},
		{"CUBLASLT_ORDER_COL", OrderCol, 0},
		{"CUBLASLT_MATMUL_PREF_SEARCH_MODE", int64(PrefSearchMode), 0},
		{"CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES", int64(PrefMaxWorkspaceBytes), 1},
		{"CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES", int64(PrefMinAlignmentA), 5},
		{"CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES", int64(PrefMinAlignmentB), 6},
		{"CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES", int64(PrefMinAlignmentC), 7},
		{"CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES", int64(PrefMinAlignmentD), 8},
	} {
		assert.Equal(t, c.want, c.got, c.header)
	}
}

// TestLayouts pins the structures cuBLASLt reads and writes:
// cublasLtMatmulAlgo_t is uint64_t data[8]; cublasLtMatmulHeuristicResult_t
// is the algorithm, a size_t workspace size, a cublasStatus_t state, a float
// wavesCount and int reserved[4]: 96 bytes.
func TestLayouts(t *testing.T) {
	var r HeuristicResult
	assert.EqualValues(t, 64, unsafe.Sizeof(Algo{}))
	assert.EqualValues(t, 96, unsafe.Sizeof(r))
	assert.EqualValues(t, 0, unsafe.Offsetof(r.Algo))
	assert.EqualValues(t, 64, unsafe.Offsetof(r.WorkspaceSize))
	assert.EqualValues(t, 72, unsafe.Offsetof(r.State))
	assert.EqualValues(t, 76, unsafe.Offsetof(r.WavesCount))
	assert.EqualValues(t, 80, unsafe.Offsetof(r.Reserved))
	assert.EqualValues(t, 4, unsafe.Sizeof(r.State), "cublasStatus_t is an int-sized enum")
}

// TestStatuses checks the status table: every value named as in
// cublas_api.h, success alone of category None, each failure with a message
// and a hint, and the categories the backend's callers branch on.
func TestStatuses(t *testing.T) {
	codes := Statuses()
	require.Len(t, codes, 10)
	for _, c := range codes {
		assert.True(t, strings.HasPrefix(c.Name, "CUBLAS_STATUS_"), c.Name)
		assert.Equal(t, c.Name, Status(c.Value).String())
		assert.Equal(t, c.Value == 0, c.IsSuccess(), c.Name)
		if !c.IsSuccess() {
			assert.NotEmpty(t, c.Msg, c.Name)
			assert.NotEmpty(t, c.Hint, c.Name)
		}
	}
	require.NoError(t, StatusSuccess.Err("matmul"))
	for _, tc := range []struct {
		s    Status
		cat  errors.Category
		name string
	}{
		{StatusNotSupported, errors.NotSupported, "CUBLAS_STATUS_NOT_SUPPORTED"},
		{StatusArchMismatch, errors.NotSupported, "CUBLAS_STATUS_ARCH_MISMATCH"},
		{StatusAllocFailed, errors.OutOfMemory, "CUBLAS_STATUS_ALLOC_FAILED"},
		{StatusInvalidValue, errors.InvalidArgument, "CUBLAS_STATUS_INVALID_VALUE"},
		{StatusExecutionFailed, errors.Execution, "CUBLAS_STATUS_EXECUTION_FAILED"},
		{Status(99), errors.Internal, "CUBLAS_STATUS_UNKNOWN_99"},
	} {
		err := tc.s.Err("matmul 8×8×8 bfloat16")
		assert.Equal(t, tc.cat, errors.CategoryOf(err), tc.name)
		assert.Contains(t, err.Error(), "cuda: matmul 8×8×8 bfloat16: ")
		assert.Contains(t, err.Error(), "("+tc.name+")")
		assert.NotEmpty(t, errors.Hint(err))
	}
}

// TestSymbols lists the functions the binding needs: each once.
func TestSymbols(t *testing.T) {
	syms := Symbols()
	require.Len(t, syms, int(numSyms))
	seen := map[string]bool{}
	for _, s := range syms {
		assert.True(t, strings.HasPrefix(s, "cublasLt"), s)
		assert.False(t, seen[s], s)
		seen[s] = true
	}
}
