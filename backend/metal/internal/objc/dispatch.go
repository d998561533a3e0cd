//go:build darwin

package objc

import (
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

// DispatchThreadgroups sends dispatchThreadgroups:threadsPerThreadgroup: to
// a compute encoder with dims[0] threadgroups of dims[1] threads.
//
// On amd64 the two MTLSize structs go on the stack (dispatchArgsAMD64). On
// arm64 (AAPCS64 B.4, which Apple's ABI keeps) a composite larger than 16
// bytes is passed as a pointer to a copy the caller makes: the callee may
// modify it, so dims is scratch the caller writes for this call only, and
// its two addresses travel in x2 and x3.
func DispatchThreadgroups(enc ID, dims *[2]Size) {
	if runtime.GOARCH == "amd64" {
		a := dispatchArgsAMD64(uintptr(enc), uintptr(selDispatchThreadgroups), dims[0], dims[1])
		purego.SyscallN(fn.msgSend, a[:]...)
		return
	}
	purego.SyscallN(fn.msgSend, uintptr(enc), uintptr(selDispatchThreadgroups),
		uintptr(unsafe.Pointer(&dims[0])), uintptr(unsafe.Pointer(&dims[1])))
}

// FillBuffer sends fillBuffer:range:value: to a blit encoder: length bytes
// of buffer from location set to value (the NSRange laid out by fillArgs).
func FillBuffer(enc, buffer ID, location, length uint64, value byte) {
	a := fillArgs(uintptr(enc), uintptr(selFillBuffer), uintptr(buffer), location, length, value)
	purego.SyscallN(fn.msgSend, a[:]...)
}
