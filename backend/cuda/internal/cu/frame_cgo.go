//go:build cgo && linux && (amd64 || arm64)

package cu

/*
#include <stdint.h>

typedef uintptr_t (*anygpu_fn12)(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t,
                                 uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);

// anygpu_call12 calls fn with the 12 words at a. A function of fewer
// parameters ignores the others: on x86-64 (System V) and arm64 (AAPCS64)
// integer arguments go in registers and then on the stack, which the caller
// owns and cleans, so extra arguments are harmless (purego passes 15 the
// same way). The driver API's functions are plain C functions of integer
// and pointer parameters.
static uintptr_t anygpu_call12(uintptr_t fn, uintptr_t a) {
	const uintptr_t *p = (const uintptr_t *)a;
	return ((anygpu_fn12)fn)(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11]);
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// callFrame invokes fn with the words of a through a C trampoline: a cgo
// call costs less than purego.SyscallN where it matters most, the launch
// path. On the H200 machine, one cuLaunchKernel per call from a Go loop took
// 1.03-1.04x a C loop's time through cgo and 1.06-1.15x through purego
// (same process, alternating rounds). Builds without cgo use purego
// (frame_purego.go). a is passed as an integer (it holds no Go pointers,
// and the call neither keeps nor moves it), so nothing escapes or allocates.
func callFrame(fn uintptr, a *[frameWords]uintptr, n int) uintptr {
	_ = n // the trampoline passes all of a; the callee reads its own count
	r := C.anygpu_call12(C.uintptr_t(fn), C.uintptr_t(uintptr(unsafe.Pointer(a))))
	runtime.KeepAlive(a)
	return uintptr(r)
}
