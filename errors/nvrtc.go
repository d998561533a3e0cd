package errors

// NVRTCCode returns the description of nvrtcResult v, and false if v is not a
// known nvrtcResult.
func NVRTCCode(v int64) (Code, bool) { return nvrtcTable.Lookup(v) }

// NVRTCCodes returns every known nvrtcResult, NVRTC_SUCCESS included, sorted
// by value.
func NVRTCCodes() []Code { return nvrtcTable.Codes() }

// FromNVRTC converts nvrtcResult v, returned by operation op ("compile
// saxpy"), to an error: nil for NVRTC_SUCCESS, else an *Error with Backend
// "nvrtc" and the code's name, category, flags, message and hint. A value
// missing from the table gives Category Internal and the Name
// "NVRTC_ERROR_UNKNOWN_CODE_<v>". The caller attaches the program log
// (Error.Log) for NVRTC_ERROR_COMPILATION.
func FromNVRTC(v int64, op string) error { return nvrtcTable.Err(v, op) }

// nvrtcTable holds every nvrtcResult of NVRTC 11.x to 13.0 (names and values
// from testdata/nvrtc-result-codes.tsv, checked by the tests).
var nvrtcTable = NewCodeTable("nvrtc", "nvrtcResult", "NVRTC_ERROR_UNKNOWN_CODE_", []Code{
	{Name: "NVRTC_SUCCESS", Value: 0, Category: None,
		Msg:  "success",
		Hint: "nothing to do"},
	{Name: "NVRTC_ERROR_OUT_OF_MEMORY", Value: 1, Category: OutOfMemory, Retryable: true,
		Msg:  "out of memory",
		Hint: "the compiler ran out of host memory: free memory, compile fewer kernels at once, or split large sources"},
	{Name: "NVRTC_ERROR_PROGRAM_CREATION_FAILURE", Value: 2, Category: Initialization,
		Msg:  "program creation failed",
		Hint: "NVRTC could not create the program object, usually for lack of memory or a broken installation: check the library found (ANYGPU_NVRTC_LIBRARY) and free memory"},
	{Name: "NVRTC_ERROR_INVALID_INPUT", Value: 3, Category: InvalidArgument,
		Msg:  "invalid input",
		Hint: "NVRTC got a missing source, a nil pointer or a bad count: check the source text and the header names and contents passed with it"},
	{Name: "NVRTC_ERROR_INVALID_PROGRAM", Value: 4, Category: InvalidArgument,
		Msg:  "invalid program",
		Hint: "the program handle is not valid, perhaps destroyed already: create a new program"},
	{Name: "NVRTC_ERROR_INVALID_OPTION", Value: 5, Category: InvalidArgument,
		Msg:  "invalid compile option",
		Hint: "NVRTC rejected a compile option: check its spelling and that this NVRTC version knows it; the compiler log names it (errors.LogOf)"},
	{Name: "NVRTC_ERROR_COMPILATION", Value: 6, Category: Compilation,
		Msg:  "compilation failed",
		Hint: "the kernel source has errors: read the compiler log (errors.LogOf)"},
	{Name: "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE", Value: 7, Category: Unavailable,
		Msg:  "builtin operation failed",
		Hint: "NVRTC could not load its builtins library: put libnvrtc-builtins.so of the same version next to libnvrtc (see ANYGPU_NVRTC_LIBRARY)"},
	{Name: "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION", Value: 8, Category: InvalidArgument,
		Msg:  "name expression added after compilation",
		Hint: "add every name expression before compiling the program"},
	{Name: "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION", Value: 9, Category: InvalidArgument,
		Msg:  "lowered name requested before compilation",
		Hint: "ask for lowered names only after the program compiled successfully"},
	{Name: "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID", Value: 10, Category: InvalidArgument,
		Msg:  "invalid name expression",
		Hint: "the name expression does not denote a __global__ function or __device__ variable of the source: check its spelling and template arguments, and that it was added before compiling"},
	{Name: "NVRTC_ERROR_INTERNAL_ERROR", Value: 11, Category: Internal,
		Msg:  "internal compiler error",
		Hint: "NVRTC itself failed: try another NVRTC version (ANYGPU_NVRTC_LIBRARY) or simplify the kernel, and report it with the source"},
	{Name: "NVRTC_ERROR_TIME_FILE_WRITE_FAILED", Value: 12, Category: InvalidArgument,
		Msg:  "could not write the timing file",
		Hint: "NVRTC could not write the file named by the --time option: use a writable path, or drop the option"},
	{Name: "NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED", Value: 13, Category: NotSupported,
		Msg:  "no precompiled header created",
		Hint: "no precompiled header was made, because none was requested or the compiler decided against it: request one explicitly, or compile without it"},
	{Name: "NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED", Value: 14, Category: OutOfMemory, Retryable: true,
		Msg:  "precompiled header heap exhausted",
		Hint: "the precompiled-header heap was too small: query the size needed, enlarge the heap, and compile again with a new program"},
	{Name: "NVRTC_ERROR_PCH_CREATE", Value: 15, Category: Compilation,
		Msg:  "precompiled header creation failed",
		Hint: "an error prevented creating the precompiled header: read the compiler log (errors.LogOf); compiling without the header still works"},
	{Name: "NVRTC_ERROR_CANCELLED", Value: 16, Category: Timeout,
		Msg:  "compilation cancelled",
		Hint: "the compile was stopped by its cancellation callback, normally because the context was cancelled or its deadline passed: compile again with a longer deadline"},
	{Name: "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED", Value: 17, Category: InvalidArgument,
		Msg:  "could not write the time-trace file",
		Hint: "NVRTC could not write the time-trace output requested in the options: use a writable path, or drop the option"},
})
