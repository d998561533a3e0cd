package collective

import (
	"strconv"

	"github.com/anygpu/gpu/errors"
)

// Backend is the Error.Backend of this package's errors.
const Backend = "nccl"

// ncclResult_t values the package tests for.
const (
	resSuccess       = 0
	resInternalError = 3
)

// ResultCode describes ncclResult_t v, and false if v is not a known value.
func ResultCode(v int64) (errors.Code, bool) { return ncclResults.Lookup(v) }

// ResultCodes returns every known ncclResult_t, ncclSuccess included, sorted
// by value.
func ResultCodes() []errors.Code { return ncclResults.Codes() }

// resultErr converts ncclResult_t v of operation op: nil for ncclSuccess.
func resultErr(v int64, op string) error { return ncclResults.Err(v, op) }

// resultName is v's symbolic name ("ncclInvalidUsage").
func resultName(v int64) string {
	if c, ok := ncclResults.Lookup(v); ok {
		return c.Name
	}
	return "ncclResult " + strconv.FormatInt(v, 10)
}

// ncclResults holds every ncclResult_t of NCCL 2.10 to 2.28 (nccl.h:
// ncclSuccess 0 ... ncclInProgress 7; ncclNumResults is 8). Hints are ours.
var ncclResults = errors.NewCodeTable(Backend, "ncclResult_t", "ncclResult_", []errors.Code{
	{Name: "ncclSuccess", Value: 0, Category: errors.None,
		Msg:  "success",
		Hint: "nothing to do"},
	{Name: "ncclUnhandledCudaError", Value: 1, Category: errors.Execution,
		Msg: "a CUDA call inside NCCL failed",
		Hint: "check that the buffers and stream belong to the communicator's GPU and that the GPU is healthy (nvidia-smi); " +
			"NCCL_DEBUG=WARN prints the failing CUDA call"},
	{Name: "ncclSystemError", Value: 2, Category: errors.Execution,
		Msg: "a system call failed in NCCL (sockets, shared memory, threads)",
		Hint: "in containers give /dev/shm room (docker --shm-size=1g or --ipc=host); across hosts check the network interface " +
			"(NCCL_SOCKET_IFNAME) and firewalls; NCCL_DEBUG=INFO shows the failing call"},
	{Name: "ncclInternalError", Value: 3, Category: errors.Internal,
		Msg:  "internal NCCL error",
		Hint: "NCCL itself failed: run with NCCL_DEBUG=INFO, try another NCCL version (" + EnvLibrary + "), and report it with that log"},
	{Name: "ncclInvalidArgument", Value: 4, Category: errors.InvalidArgument,
		Msg:  "invalid argument",
		Hint: "NCCL rejected an argument: a null or foreign pointer, a bad rank, count, data type or operation; NCCL_DEBUG=WARN names it"},
	{Name: "ncclInvalidUsage", Value: 5, Category: errors.InvalidArgument,
		Msg: "invalid usage",
		Hint: "the call is not allowed now: two ranks on the same GPU, ranks disagreeing on the communicator size, " +
			"or one goroutine driving several ranks outside collective.Group; NCCL_DEBUG=WARN says which"},
	{Name: "ncclRemoteError", Value: 6, Category: errors.Execution, Fatal: true,
		Msg:  "a remote rank or the network failed",
		Hint: "another process of the communicator died or its connection broke: abort this communicator (Comm.Abort), then create a new one with every rank"},
	{Name: "ncclInProgress", Value: 7, Category: errors.Timeout, Retryable: true,
		Msg:  "the operation is still in progress",
		Hint: "a non-blocking communicator has not finished the call yet: poll Comm.Err until it stops reporting this"},
})
