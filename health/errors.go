package health

import (
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/health/internal/nvml"
)

// Backend is the Error.Backend of this package's errors.
const Backend = "nvml"

// ReturnCode returns the description of nvmlReturn_t v, and false if v is
// not a known nvmlReturn_t.
func ReturnCode(v int64) (errors.Code, bool) { return nvmlTable.Lookup(v) }

// ReturnCodes returns every known nvmlReturn_t, NVML_SUCCESS included,
// sorted by value.
func ReturnCodes() []errors.Code { return nvmlTable.Codes() }

// check converts the nvmlReturn_t r of operation op to an error: nil for
// NVML_SUCCESS.
func check(r nvml.Return, op string) error { return nvmlTable.Err(int64(r), op) }

// nvmlTable holds every nvmlReturn_t of nvml.h up to the R580 drivers.
var nvmlTable = errors.NewCodeTable(Backend, "nvmlReturn_t", "NVML_ERROR_UNKNOWN_CODE_", []errors.Code{
	{Name: "NVML_SUCCESS", Value: 0, Category: errors.None,
		Msg: "success", Hint: "nothing to do"},
	{Name: "NVML_ERROR_UNINITIALIZED", Value: 1, Category: errors.Initialization,
		Msg:  "nvml not initialized",
		Hint: "NVML was used before nvmlInit or after the monitor closed: open a new health.Monitor"},
	{Name: "NVML_ERROR_INVALID_ARGUMENT", Value: 2, Category: errors.InvalidArgument,
		Msg:  "invalid argument",
		Hint: "NVML rejected a device handle or a value: list the devices with `gpu info`"},
	{Name: "NVML_ERROR_NOT_SUPPORTED", Value: 3, Category: errors.NotSupported,
		Msg:  "not supported by this device",
		Hint: "this GPU does not report that figure (ECC on GPUs without ECC memory, power on some boards); the others are still read"},
	{Name: "NVML_ERROR_NO_PERMISSION", Value: 4, Category: errors.Unavailable,
		Msg:  "no permission",
		Hint: "the process may not query this GPU: check the permissions of /dev/nvidia*, or the container's device list"},
	{Name: "NVML_ERROR_ALREADY_INITIALIZED", Value: 5, Category: errors.Initialization,
		Msg:  "already initialized",
		Hint: "current drivers no longer return this code: if you see it, update the NVIDIA driver"},
	{Name: "NVML_ERROR_NOT_FOUND", Value: 6, Category: errors.InvalidArgument,
		Msg:  "not found",
		Hint: "there is no GPU with that index or id: list the devices with `gpu info` or nvidia-smi"},
	{Name: "NVML_ERROR_INSUFFICIENT_SIZE", Value: 7, Category: errors.Internal,
		Msg:  "buffer too small",
		Hint: "a buffer anygpu passed to NVML was too small: please report it with `gpu info --json`"},
	{Name: "NVML_ERROR_INSUFFICIENT_POWER", Value: 8, Category: errors.Unavailable,
		Msg:  "insufficient power",
		Hint: "the GPU's external power cables are not connected properly: check them, then `nvidia-smi -q`"},
	{Name: "NVML_ERROR_DRIVER_NOT_LOADED", Value: 9, Category: errors.Unavailable,
		Msg:  "nvidia driver not loaded",
		Hint: "the NVIDIA kernel driver is not running: check nvidia-smi and `lsmod | grep nvidia`, or that the container was given the GPU (--gpus)"},
	{Name: "NVML_ERROR_TIMEOUT", Value: 10, Category: errors.Timeout, Retryable: true,
		Msg:  "timeout",
		Hint: "the driver did not answer in time: try again; if it repeats, check dmesg for GPU faults"},
	{Name: "NVML_ERROR_IRQ_ISSUE", Value: 11, Category: errors.DeviceLost,
		Msg:  "interrupt issue",
		Hint: "the kernel reported an interrupt problem with the GPU: check dmesg (Xid messages) and the driver installation"},
	{Name: "NVML_ERROR_LIBRARY_NOT_FOUND", Value: 12, Category: errors.Unavailable,
		Msg:  "a library nvml needs was not found",
		Hint: "the NVIDIA driver installation is incomplete: reinstall the driver"},
	{Name: "NVML_ERROR_FUNCTION_NOT_FOUND", Value: 13, Category: errors.NotSupported,
		Msg:  "function not found",
		Hint: "this NVML (the driver's libnvidia-ml) is too old for that query: update the NVIDIA driver"},
	{Name: "NVML_ERROR_CORRUPTED_INFOROM", Value: 14, Category: errors.Unavailable,
		Msg:  "corrupted inforom",
		Hint: "the GPU's infoROM is corrupted: see `nvidia-smi -q` and have the board serviced"},
	{Name: "NVML_ERROR_GPU_IS_LOST", Value: 15, Category: errors.DeviceLost, Fatal: true,
		Msg:  "gpu is lost",
		Hint: "the GPU fell off the bus or stopped responding: check dmesg (Xid 79), then reset the GPU or reboot"},
	{Name: "NVML_ERROR_RESET_REQUIRED", Value: 16, Category: errors.DeviceLost, Fatal: true,
		Msg:  "gpu reset required",
		Hint: "the GPU needs a reset before it can be used again: `nvidia-smi -r` (with no process on it) or reboot"},
	{Name: "NVML_ERROR_OPERATING_SYSTEM", Value: 17, Category: errors.Unavailable,
		Msg:  "blocked by the operating system",
		Hint: "the operating system refused the request: check the driver installation and the system log"},
	{Name: "NVML_ERROR_LIB_RM_VERSION_MISMATCH", Value: 18, Category: errors.Unavailable,
		Msg:  "nvml and driver versions differ",
		Hint: "the driver was updated without reloading its kernel module: reboot (or reload the nvidia modules)"},
	{Name: "NVML_ERROR_IN_USE", Value: 19, Category: errors.Unavailable, Retryable: true,
		Msg:  "gpu in use",
		Hint: "another process holds the GPU for this operation: try again later"},
	{Name: "NVML_ERROR_MEMORY", Value: 20, Category: errors.OutOfMemory, Retryable: true,
		Msg:  "insufficient memory",
		Hint: "NVML could not allocate memory: free host memory and try again"},
	{Name: "NVML_ERROR_NO_DATA", Value: 21, Category: errors.NotSupported, Retryable: true,
		Msg:  "no data",
		Hint: "the driver has no sample for that figure yet: read it again in a moment"},
	{Name: "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED", Value: 22, Category: errors.NotSupported,
		Msg:  "not available on a vgpu with ecc",
		Hint: "the operation is not available on a vGPU while ECC is enabled"},
	{Name: "NVML_ERROR_INSUFFICIENT_RESOURCES", Value: 23, Category: errors.Unavailable, Retryable: true,
		Msg:  "insufficient resources",
		Hint: "the driver ran out of a resource other than memory: try again later"},
	{Name: "NVML_ERROR_FREQ_NOT_SUPPORTED", Value: 24, Category: errors.NotSupported,
		Msg:  "frequency not supported",
		Hint: "the GPU does not support that clock frequency: list the supported clocks with `nvidia-smi -q -d SUPPORTED_CLOCKS`"},
	{Name: "NVML_ERROR_ARGUMENT_VERSION_MISMATCH", Value: 25, Category: errors.NotSupported,
		Msg:  "structure version not supported",
		Hint: "this driver does not know the structure version anygpu passed: update the NVIDIA driver"},
	{Name: "NVML_ERROR_DEPRECATED", Value: 26, Category: errors.NotSupported,
		Msg:  "deprecated",
		Hint: "the driver no longer offers that query"},
	{Name: "NVML_ERROR_NOT_READY", Value: 27, Category: errors.Unavailable, Retryable: true,
		Msg:  "not ready",
		Hint: "the system is not ready for the request yet: try again in a moment"},
	{Name: "NVML_ERROR_GPU_NOT_FOUND", Value: 28, Category: errors.Unavailable,
		Msg:  "no gpu found",
		Hint: "NVML sees no NVIDIA GPU: check nvidia-smi and that the container was given the GPU (--gpus)"},
	{Name: "NVML_ERROR_INVALID_STATE", Value: 29, Category: errors.Unavailable, Retryable: true,
		Msg:  "invalid state",
		Hint: "the GPU is not in a state that allows the request: try again later"},
	{Name: "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED", Value: 30, Category: errors.NotSupported,
		Msg:  "reset type not supported",
		Hint: "the GPU does not support that kind of reset"},
	{Name: "NVML_ERROR_UNKNOWN", Value: 999, Category: errors.Internal,
		Msg:  "unknown error",
		Hint: "NVML reported an internal driver error: check dmesg and nvidia-smi; report it with `gpu info --json` if it repeats"},
})
