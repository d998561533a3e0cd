package opengl

import (
	"fmt"

	"github.com/anygpu/gpu/errors"
)

// reportIt ends the hint of a code that means a bug in anygpu or the driver.
const reportIt = "report it with `gpu info --json`"

// unusedEGL is the code of an EGL object anygpu never creates (surfaces,
// pixmaps, windows, streams, output layers and ports): an Internal error
// whose hint says so; what is "a surface error" and the like.
func unusedEGL(name string, value int64, msg, what string) errors.Code {
	return errors.Code{Name: name, Value: value, Category: errors.Internal, Msg: msg,
		Hint: "EGL reported " + what + " though anygpu uses none: " + reportIt}
}

// glErrorTable maps every glGetError value of OpenGL 4.6 core (and
// GL_CONTEXT_LOST of GL_KHR_robustness) to anygpu's categories and hints.
var glErrorTable = errors.NewCodeTable(Name, "GL error", "GL_ERROR_UNKNOWN_CODE_", []errors.Code{
	{Name: "GL_NO_ERROR", Value: 0x0000, Category: errors.None,
		Msg:  "no error",
		Hint: "nothing to do"},
	{Name: "GL_INVALID_ENUM", Value: 0x0500, Category: errors.Internal,
		Msg:  "invalid enum",
		Hint: "the driver rejected an enum value anygpu passed: the driver may lack an OpenGL 4.3 (or OpenGL ES 3.1) feature it claims; " + reportIt},
	{Name: "GL_INVALID_VALUE", Value: 0x0501, Category: errors.InvalidArgument,
		Msg:  "invalid value",
		Hint: "a size, offset or count is out of range for the driver: check the buffer sizes and the grid against DeviceInfo limits"},
	{Name: "GL_INVALID_OPERATION", Value: 0x0502, Category: errors.InvalidArgument,
		Msg:  "invalid operation",
		Hint: "the driver refused the command in the current state, e.g. a kernel whose buffer or uniform bindings do not match its arguments: check the kernel's bindings against the portable ABI (buffers at 0..n-1, scalars at binding n)"},
	{Name: "GL_STACK_OVERFLOW", Value: 0x0503, Category: errors.Internal,
		Msg:  "stack overflow",
		Hint: "a debug-group or matrix stack overflowed, which anygpu never pushes: " + reportIt},
	{Name: "GL_STACK_UNDERFLOW", Value: 0x0504, Category: errors.Internal,
		Msg:  "stack underflow",
		Hint: "a debug-group or matrix stack underflowed, which anygpu never pops: " + reportIt},
	{Name: "GL_OUT_OF_MEMORY", Value: 0x0505, Category: errors.OutOfMemory, Retryable: true,
		Msg:  "out of memory",
		Hint: "the driver could not allocate video or host memory: free buffers, trim the pools, or use smaller batches; the OpenGL state is undefined after this error, so reopen the device if later calls misbehave"},
	{Name: "GL_INVALID_FRAMEBUFFER_OPERATION", Value: 0x0506, Category: errors.Internal,
		Msg:  "invalid framebuffer operation",
		Hint: "a framebuffer command failed, which a compute-only context never issues: " + reportIt},
	{Name: "GL_CONTEXT_LOST", Value: 0x0507, Category: errors.DeviceLost, Fatal: true,
		Msg:  "context lost",
		Hint: "the GPU was reset (a kernel ran too long or faulted, or the driver restarted): close the Device and open a new one; check dmesg or nvidia-smi if it repeats"},
})

// eglErrorTable maps every eglGetError value of EGL 1.5 and of the device
// and stream extensions the backend may meet.
var eglErrorTable = errors.NewCodeTable(Name, "EGL error", "EGL_ERROR_UNKNOWN_CODE_", []errors.Code{
	{Name: "EGL_SUCCESS", Value: 0x3000, Category: errors.None,
		Msg:  "success",
		Hint: "nothing to do"},
	{Name: "EGL_NOT_INITIALIZED", Value: 0x3001, Category: errors.Unavailable,
		Msg:  "display not initialized",
		Hint: "EGL could not initialize the display, usually because the vendor's driver is missing (Mesa: libgl1-mesa-dri for llvmpipe; NVIDIA: the driver's EGL library); run with EGL_LOG_LEVEL=debug to see why"},
	{Name: "EGL_BAD_ACCESS", Value: 0x3002, Category: errors.Initialization,
		Msg:  "bad access",
		Hint: "the context is current on another thread: anygpu keeps each context on its own thread, so report it if you see it"},
	{Name: "EGL_BAD_ALLOC", Value: 0x3003, Category: errors.OutOfMemory, Retryable: true,
		Msg:  "bad alloc",
		Hint: "EGL could not allocate resources for the context: free GPU memory, close other devices, and try again"},
	{Name: "EGL_BAD_ATTRIBUTE", Value: 0x3004, Category: errors.NotSupported,
		Msg:  "bad attribute",
		Hint: "the driver does not understand a context attribute anygpu asked for (OpenGL 4.3 core, or OpenGL ES 3.1): update the driver, or set " + EnvAPI + " to the other API (gl, gles)"},
	{Name: "EGL_BAD_CONFIG", Value: 0x3005, Category: errors.NotSupported,
		Msg:  "bad config",
		Hint: "the display offers no config for a context of the API asked for: a driver with only OpenGL ES needs " + EnvAPI + "=gles (or auto), one with only desktop OpenGL " + EnvAPI + "=gl (or auto); or use another backend (ANYGPU_BACKEND)"},
	{Name: "EGL_BAD_CONTEXT", Value: 0x3006, Category: errors.Internal,
		Msg:  "bad context",
		Hint: "EGL does not know the context anygpu used: " + reportIt},
	{Name: "EGL_BAD_CURRENT_SURFACE", Value: 0x3007, Category: errors.Internal,
		Msg:  "bad current surface",
		Hint: "a surface of the current context is no longer valid, though anygpu uses none: " + reportIt},
	{Name: "EGL_BAD_DISPLAY", Value: 0x3008, Category: errors.Unavailable,
		Msg:  "bad display",
		Hint: "the EGL display does not exist: the vendor library may not support headless displays; install Mesa (libegl-mesa0) or the NVIDIA driver, or check __EGL_VENDOR_LIBRARY_FILENAMES"},
	{Name: "EGL_BAD_MATCH", Value: 0x3009, Category: errors.NotSupported,
		Msg:  "bad match",
		Hint: "the driver cannot create the context asked for (OpenGL 4.3 core, or OpenGL ES 3.1) without a surface, usually because it offers only an older version: update the driver, set " + EnvAPI + "=auto to take whichever of the two the device has, or use another backend (ANYGPU_BACKEND)"},
	unusedEGL("EGL_BAD_NATIVE_PIXMAP", 0x300A, "bad native pixmap", "a native pixmap error"),
	unusedEGL("EGL_BAD_NATIVE_WINDOW", 0x300B, "bad native window", "a native window error"),
	{Name: "EGL_BAD_PARAMETER", Value: 0x300C, Category: errors.NotSupported,
		Msg:  "bad parameter",
		Hint: "the EGL implementation rejected a platform or device anygpu passed: it may lack EGL_EXT_platform_device or EGL_MESA_platform_surfaceless; update Mesa or the driver"},
	unusedEGL("EGL_BAD_SURFACE", 0x300D, "bad surface", "a surface error"),
	{Name: "EGL_CONTEXT_LOST", Value: 0x300E, Category: errors.DeviceLost, Fatal: true,
		Msg:  "context lost",
		Hint: "a power-management event or GPU reset destroyed the context: close the Device and open a new one"},
	unusedEGL("EGL_BAD_STREAM_KHR", 0x321B, "bad stream", "an EGLStream error"),
	unusedEGL("EGL_BAD_STATE_KHR", 0x321C, "bad stream state", "an EGLStream state error"),
	{Name: "EGL_BAD_DEVICE_EXT", Value: 0x322B, Category: errors.Unavailable,
		Msg:  "bad device",
		Hint: "the EGL device cannot be used, e.g. a GPU without a working driver or one the process may not open: check permissions on /dev/dri and /dev/nvidia*, or pick another device (ANYGPU_DEVICE)"},
	unusedEGL("EGL_BAD_OUTPUT_LAYER_EXT", 0x322D, "bad output layer", "an output-layer error"),
	unusedEGL("EGL_BAD_OUTPUT_PORT_EXT", 0x322E, "bad output port", "an output-port error"),
})

// glError converts a glGetError value met by op into an error (nil for
// GL_NO_ERROR).
func glError(code uint32, op string) error { return glErrorTable.Err(int64(code), op) }

// eglError converts an eglGetError value met by op into an error (nil for
// EGL_SUCCESS).
func eglError(code int, op string) error { return eglErrorTable.Err(int64(code), op) }

// hexName is the code's symbolic name, or its value in hex when unknown.
func hexName(t *errors.CodeTable, v int64) string {
	if c, ok := t.Lookup(v); ok {
		return c.Name
	}
	return fmt.Sprintf("0x%04X", v)
}

// withHint sets e's hint.
func withHint(e *errors.Error, hint string) *errors.Error {
	e.Hint = hint
	return e
}

// unavailable is an Unavailable error of op.
func unavailable(op, msg, hint string) *errors.Error {
	return &errors.Error{Backend: Name, Op: op, Category: errors.Unavailable, Msg: msg, Hint: hint}
}

const (
	hintInstall = "install an EGL loader with a vendor driver: `apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri` " +
		"(Mesa, with the llvmpipe software renderer) or the NVIDIA driver; or set " + EnvLibrary + " to a libEGL.so.1"
	hintVendor = "no EGL vendor library was found: install libegl-mesa0 or the NVIDIA driver's EGL library, " +
		"and check __EGL_VENDOR_LIBRARY_FILENAMES / __EGL_VENDOR_LIBRARY_DIRS"
)

// probeError is why one display failed, with the hint of its EGL error.
type probeError struct{ msg, hint string }

// Error is the reason.
func (e *probeError) Error() string { return e.msg }

// eglFail describes a failed EGL call by its error code.
func eglFail(what string, code int) error {
	c, ok := eglErrorTable.Lookup(int64(code))
	if !ok || c.IsSuccess() {
		return &probeError{msg: fmt.Sprintf("%s failed (EGL error 0x%04X)", what, code)}
	}
	return &probeError{msg: fmt.Sprintf("%s failed: %s (%s)", what, c.Msg, c.Name), hint: c.Hint}
}
