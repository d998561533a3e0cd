package cublaslt

import (
	"strconv"

	"github.com/anygpu/gpu/errors"
)

// Err converts s, returned by operation op, to an error: nil for
// CUBLAS_STATUS_SUCCESS, else an *errors.Error of the CUDA backend with the
// status's name, category and hint.
func (s Status) Err(op string) error { return statusTable.Err(int64(s), op) }

// String is the status's symbolic name.
func (s Status) String() string {
	if c, ok := statusTable.Lookup(int64(s)); ok {
		return c.Name
	}
	return "CUBLAS_STATUS_UNKNOWN_" + strconv.Itoa(int(s))
}

// Statuses lists every cublasStatus_t the binding knows, by value.
func Statuses() []errors.Code { return statusTable.Codes() }

// statusTable describes every cublasStatus_t value of cublas_api.h.
var statusTable = errors.NewCodeTable("cuda", "cublasStatus_t", "CUBLAS_STATUS_UNKNOWN_", []errors.Code{
	{Name: "CUBLAS_STATUS_SUCCESS", Value: int64(StatusSuccess), Category: errors.None,
		Msg: "success", Hint: "nothing to do"},
	{Name: "CUBLAS_STATUS_NOT_INITIALIZED", Value: int64(StatusNotInitialized), Category: errors.Initialization,
		Msg:  "cuBLASLt is not initialised",
		Hint: "cuBLASLt could not start, usually because the CUDA runtime it needs did not: check the driver and the library found (ANYGPU_CUBLASLT_LIBRARY)"},
	{Name: "CUBLAS_STATUS_ALLOC_FAILED", Value: int64(StatusAllocFailed), Category: errors.OutOfMemory, Retryable: true,
		Msg:  "cuBLASLt could not allocate memory",
		Hint: "free device or host memory, or multiply smaller matrices"},
	{Name: "CUBLAS_STATUS_INVALID_VALUE", Value: int64(StatusInvalidValue), Category: errors.InvalidArgument,
		Msg:  "cuBLASLt rejected a value",
		Hint: "a size, leading dimension, stride or type is out of what cuBLASLt accepts: check the MatMul's fields"},
	{Name: "CUBLAS_STATUS_ARCH_MISMATCH", Value: int64(StatusArchMismatch), Category: errors.NotSupported,
		Msg:  "the GPU lacks a feature this product needs",
		Hint: "this GPU's architecture has no cuBLASLt kernel for these types: multiply with a kernel instead (package tensor falls back to its own)"},
	{Name: "CUBLAS_STATUS_MAPPING_ERROR", Value: int64(StatusMappingError), Category: errors.Internal,
		Msg:  "cuBLASLt could not access GPU memory",
		Hint: "a buffer may have been freed while in use; otherwise report it with `gpu info --json`"},
	{Name: "CUBLAS_STATUS_EXECUTION_FAILED", Value: int64(StatusExecutionFailed), Category: errors.Execution,
		Msg:  "a cuBLASLt kernel failed to launch or run",
		Hint: "an earlier error may have broken the GPU's context: check the stream's previous work, then try again in a new process"},
	{Name: "CUBLAS_STATUS_INTERNAL_ERROR", Value: int64(StatusInternalError), Category: errors.Internal,
		Msg:  "cuBLASLt failed internally",
		Hint: "an internal cuBLASLt operation failed (often a failed memory copy or allocation of its own): try another cuBLASLt version (ANYGPU_CUBLASLT_LIBRARY) and report it"},
	{Name: "CUBLAS_STATUS_NOT_SUPPORTED", Value: int64(StatusNotSupported), Category: errors.NotSupported,
		Msg:  "cuBLASLt does not support this product",
		Hint: "cuBLASLt has no kernel for these types, transposes, alignments or sizes on this GPU: multiply with a kernel instead (package tensor falls back to its own)"},
	{Name: "CUBLAS_STATUS_LICENSE_ERROR", Value: int64(StatusLicenseError), Category: errors.Unavailable,
		Msg:  "cuBLASLt found no valid license",
		Hint: "this cuBLASLt build needs a license it did not find: use the library of the CUDA toolkit or of NVIDIA's wheels"},
})
