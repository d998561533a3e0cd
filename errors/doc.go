// Package errors is a drop-in replacement for the standard errors package
// (New, Is, As, Join, Unwrap are re-exported) that adds what a GPU program needs
// to react to a failure: a Category for every error, the native code and its
// symbolic name, whether retrying can help, whether the device is now unusable,
// a recovery hint, and compiler logs.
//
// Every error returned by github.com/anygpu/gpu and its backends carries a
// Category, so callers can branch on the kind of failure without knowing which
// backend produced it:
//
//	if errors.Is(err, errors.OutOfMemory) { ... use a smaller batch ... }
//	fmt.Println(errors.Hint(err))
//
// The tables in this package map every CUresult and nvrtcResult (and, as the
// backends land, every VkResult, GL error, WebGPU error type and Metal error) to a
// Category, retryable/fatal flags and a hint written for this project. A backend
// turns a native result into an error with FromCUDA, FromNVRTC, ...:
//
//	err := errors.FromCUDA(int64(res), "alloc 1.0 GiB")
//	// cuda: alloc 1.0 GiB: out of memory (CUDA_ERROR_OUT_OF_MEMORY): free memory or use a smaller batch
//
// and CUDACode, CUDACodes, ... expose the tables themselves. Each table is one
// file (cuda.go, nvrtc.go) holding a NewCodeTable literal. The CUDA and NVRTC
// tables live here because several packages use them (the CUDA backend, nvrtc,
// the simulator); the tables of other native APIs (VkResult, GL errors, WebGPU
// error types, NSError codes) are built with NewCodeTable in their backend's
// own package, next to the binding that returns those codes.
package errors
