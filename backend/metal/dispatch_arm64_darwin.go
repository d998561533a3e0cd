//go:build darwin && arm64

package metal

import (
	"unsafe"

	"github.com/ebitengine/purego"
)

// dispatchThreadgroups sends dispatchThreadgroups:threadsPerThreadgroup: to a
// compute encoder. On arm64 (AAPCS64 B.4, which Apple's ABI keeps) a
// composite larger than 16 bytes is passed as a pointer to a copy the caller
// makes: groups and threads point to the stream's scratch (s.dims, written
// for this call only, so the callee may even modify it), and they travel in
// x2 and x3.
func dispatchThreadgroups(enc id, groups, threads *mtlSize) {
	purego.SyscallN(rt.msgSend, uintptr(enc), uintptr(selDispatchThreadgroups),
		uintptr(unsafe.Pointer(groups)), uintptr(unsafe.Pointer(threads)))
}
