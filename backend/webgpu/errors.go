package webgpu

import (
	"strings"
	"unicode"

	"github.com/anygpu/gpu/errors"
)

// The WebGPU result enums of webgpu.h (wgpu-native 29), each with its
// category, flags and a hint written for anygpu. An error of this backend
// names the enum value it came from ("WGPUErrorType_OutOfMemory"), and its
// message carries wgpu's own text.

// errorTypes is WGPUErrorType: what an error scope or the uncaptured-error
// callback reports. The category is the default; the operation refines it
// (a validation error while compiling is a Compilation error, while encoding
// a launch a Launch error).
var errorTypes = errors.NewCodeTable(Name, "WGPUErrorType", "WGPUErrorType_UnknownValue_", []errors.Code{
	{Name: "WGPUErrorType_NoError", Value: 1, Category: errors.None,
		Msg:  "no error",
		Hint: "nothing to do"},
	{Name: "WGPUErrorType_Validation", Value: 2, Category: errors.InvalidArgument,
		Msg:  "validation error",
		Hint: "wgpu rejected the call: the message says which rule it broke (a size, usage, binding or limit); check the arguments against DeviceInfo"},
	{Name: "WGPUErrorType_OutOfMemory", Value: 3, Category: errors.OutOfMemory, Retryable: true,
		Msg:  "out of memory",
		Hint: "free buffers or process the data in smaller batches"},
	{Name: "WGPUErrorType_Internal", Value: 4, Category: errors.Internal,
		Msg:  "internal error",
		Hint: "wgpu or the driver failed where the WebGPU rules say the call is valid (often a shader the driver cannot compile): update the GPU driver, and report it with `gpu info --json`"},
	{Name: "WGPUErrorType_Unknown", Value: 5, Category: errors.Internal,
		Msg:  "unknown error",
		Hint: "wgpu reported an error it could not classify: report it with `gpu info --json` and the message"},
})

// deviceLostReasons is WGPUDeviceLostReason, passed to the device-lost
// callback.
var deviceLostReasons = errors.NewCodeTable(Name, "WGPUDeviceLostReason", "WGPUDeviceLostReason_UnknownValue_", []errors.Code{
	{Name: "WGPUDeviceLostReason_Unknown", Value: 1, Category: errors.DeviceLost, Fatal: true,
		Msg:  "device lost",
		Hint: "the GPU was reset or removed (a hang, a driver crash or update, or a kernel that ran too long): close the Device and open a new one"},
	{Name: "WGPUDeviceLostReason_Destroyed", Value: 2, Category: errors.Closed, Fatal: true,
		Msg:  "device destroyed",
		Hint: "the device was closed: open a new one"},
	{Name: "WGPUDeviceLostReason_CallbackCancelled", Value: 3, Category: errors.Closed, Fatal: true,
		Msg:  "device released before it was lost",
		Hint: "the device or its instance was released, so its loss can no longer be reported: open a new Device"},
	{Name: "WGPUDeviceLostReason_FailedCreation", Value: 4, Category: errors.Initialization, Fatal: true,
		Msg:  "device creation failed",
		Hint: "the adapter could not create a device with the requested limits and features: check `gpu info` and the driver, or pick another adapter with ANYGPU_DEVICE"},
})

// mapAsyncStatuses is WGPUMapAsyncStatus, the outcome of mapping a staging
// buffer for a download.
var mapAsyncStatuses = errors.NewCodeTable(Name, "WGPUMapAsyncStatus", "WGPUMapAsyncStatus_UnknownValue_", []errors.Code{
	{Name: "WGPUMapAsyncStatus_Success", Value: 1, Category: errors.None,
		Msg:  "mapped",
		Hint: "nothing to do"},
	{Name: "WGPUMapAsyncStatus_CallbackCancelled", Value: 2, Category: errors.Closed,
		Msg:  "map cancelled",
		Hint: "the device was closed while a download was waiting for its data: synchronize streams before closing the Device"},
	{Name: "WGPUMapAsyncStatus_Error", Value: 3, Category: errors.Execution,
		Msg:  "map failed",
		Hint: "the staging buffer of a download could not be mapped, usually because the device was lost: check the device's other errors and reopen it"},
	{Name: "WGPUMapAsyncStatus_Aborted", Value: 4, Category: errors.Execution,
		Msg:  "map aborted",
		Hint: "the staging buffer was unmapped or destroyed before its data arrived: this is a bug in anygpu, please report it"},
})

// workDoneStatuses is WGPUQueueWorkDoneStatus, the outcome of waiting for
// submitted work (events, Synchronize).
var workDoneStatuses = errors.NewCodeTable(Name, "WGPUQueueWorkDoneStatus", "WGPUQueueWorkDoneStatus_UnknownValue_", []errors.Code{
	{Name: "WGPUQueueWorkDoneStatus_Success", Value: 1, Category: errors.None,
		Msg:  "work done",
		Hint: "nothing to do"},
	{Name: "WGPUQueueWorkDoneStatus_CallbackCancelled", Value: 2, Category: errors.Closed,
		Msg:  "wait cancelled",
		Hint: "the device was closed while work was still being waited for: synchronize before closing the Device"},
	{Name: "WGPUQueueWorkDoneStatus_Error", Value: 3, Category: errors.DeviceLost, Fatal: true,
		Msg:  "submitted work failed",
		Hint: "the queue could not finish its work, usually because the device was lost: close the Device and open a new one"},
})

// requestAdapterStatuses is WGPURequestAdapterStatus.
var requestAdapterStatuses = errors.NewCodeTable(Name, "WGPURequestAdapterStatus", "WGPURequestAdapterStatus_UnknownValue_", []errors.Code{
	{Name: "WGPURequestAdapterStatus_Success", Value: 1, Category: errors.None,
		Msg:  "adapter found",
		Hint: "nothing to do"},
	{Name: "WGPURequestAdapterStatus_CallbackCancelled", Value: 2, Category: errors.Unavailable,
		Msg:  "adapter request cancelled",
		Hint: "the WebGPU instance went away during the request: try again"},
	{Name: "WGPURequestAdapterStatus_Unavailable", Value: 3, Category: errors.Unavailable,
		Msg:  "no adapter",
		Hint: hintNoAdapter},
	{Name: "WGPURequestAdapterStatus_Error", Value: 4, Category: errors.Unavailable,
		Msg:  "adapter request failed",
		Hint: hintNoAdapter},
})

// requestDeviceStatuses is WGPURequestDeviceStatus.
var requestDeviceStatuses = errors.NewCodeTable(Name, "WGPURequestDeviceStatus", "WGPURequestDeviceStatus_UnknownValue_", []errors.Code{
	{Name: "WGPURequestDeviceStatus_Success", Value: 1, Category: errors.None,
		Msg:  "device created",
		Hint: "nothing to do"},
	{Name: "WGPURequestDeviceStatus_CallbackCancelled", Value: 2, Category: errors.Initialization,
		Msg:  "device request cancelled",
		Hint: "the WebGPU instance went away during the request: try again"},
	{Name: "WGPURequestDeviceStatus_Error", Value: 3, Category: errors.Initialization,
		Msg:  "device request failed",
		Hint: "the adapter refused the limits or features anygpu asked for, or the driver failed to create a device: update the driver, or pick another adapter with ANYGPU_DEVICE"},
})

// popErrorScopeStatuses is WGPUPopErrorScopeStatus.
var popErrorScopeStatuses = errors.NewCodeTable(Name, "WGPUPopErrorScopeStatus", "WGPUPopErrorScopeStatus_UnknownValue_", []errors.Code{
	{Name: "WGPUPopErrorScopeStatus_Success", Value: 1, Category: errors.None,
		Msg:  "scope popped",
		Hint: "nothing to do"},
	{Name: "WGPUPopErrorScopeStatus_CallbackCancelled", Value: 2, Category: errors.Closed,
		Msg:  "error scope cancelled",
		Hint: "the device was released while an error scope was open: do not use a Device while closing it"},
	{Name: "WGPUPopErrorScopeStatus_Error", Value: 3, Category: errors.Internal,
		Msg:  "error scope stack empty",
		Hint: "anygpu popped an error scope it had not pushed: this is a bug, please report it"},
})

const hintNoAdapter = "wgpu found no GPU driver it can use: install a Vulkan driver (the GPU vendor's, or mesa-vulkan-drivers for a software one), Metal or D3D12; " +
	"check VK_DRIVER_FILES / VK_ICD_FILENAMES and __EGL_VENDOR_LIBRARY_DIRS if they are set"

// codeTables lists every table of this package, for tests and documentation.
var codeTables = []*errors.CodeTable{
	errorTypes, deviceLostReasons, mapAsyncStatuses, workDoneStatuses,
	requestAdapterStatuses, requestDeviceStatuses, popErrorScopeStatuses,
}

// nativeErr makes the error for native value v of table t in operation op,
// with wgpu's message (condensed) added to the table's and the category
// replaced by cat unless cat is None. It returns nil for a success value.
func nativeErr(t *errors.CodeTable, v uint32, op, wgpuMsg string, cat errors.Category) error {
	err := t.Err(int64(v), op)
	if err == nil {
		return nil
	}
	e := err.(*errors.Error)
	if cat != errors.None && cat != e.Category {
		e.Category = cat
		e.Retryable = cat == errors.OutOfMemory
	}
	if m := condense(wgpuMsg); m != "" {
		e.Msg += ": " + m
	}
	return e
}

// condense turns wgpu's multi-line error report ("Validation Error\n\nCaused
// by:\n  In wgpuDeviceCreateBuffer\n    Buffer size ... is greater than ...")
// into one lower-case line: "in wgpuDeviceCreateBuffer: buffer size ... is
// greater than ...". The function name prefix the binding adds
// ("wgpu.(*Device).TryCreateBuffer: ") and the error kind, which the error's
// Name already says, are dropped.
func condense(msg string) string {
	if strings.HasPrefix(msg, "wgpu.") {
		if _, rest, ok := strings.Cut(msg, ": "); ok {
			msg = rest
		}
	}
	var parts []string
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "", line == "Caused by:":
			continue
		case strings.HasSuffix(line, " Error") && len(parts) == 0 && !strings.Contains(line, ":"):
			// "Validation Error", "Out of Memory Error": the kind, which
			// the error's Name already gives.
			continue
		case strings.HasPrefix(line, "┌─"):
			// A shader diagnostic's source frame: keep its location, leave
			// the frame to the error log.
			parts = append(parts, "at "+strings.TrimSpace(strings.TrimPrefix(line, "┌─")))
			return joinParts(parts)
		}
		parts = append(parts, lowerFirst(line))
	}
	return joinParts(parts)
}

// joinParts joins condensed lines, capped at 2000 bytes.
func joinParts(parts []string) string {
	out := strings.Join(parts, ": ")
	const max = 2000
	if len(out) > max {
		out = out[:max] + "…"
	}
	return out
}

// lowerFirst lower-cases the first letter of s unless it starts an acronym
// ("In" → "in"; "WGSL" and "GPU" are kept).
func lowerFirst(s string) string {
	r := []rune(s)
	if len(r) == 0 || !unicode.IsUpper(r[0]) {
		return s
	}
	if len(r) > 1 && (unicode.IsUpper(r[1]) || unicode.IsDigit(r[1])) {
		return s
	}
	r[0] = unicode.ToLower(r[0])
	return string(r)
}
