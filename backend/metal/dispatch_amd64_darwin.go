//go:build darwin && amd64

package metal

import "github.com/ebitengine/purego"

// dispatchThreadgroups sends dispatchThreadgroups:threadsPerThreadgroup: to a
// compute encoder; the two MTLSize structs go on the stack (dispatchArgsAMD64).
func dispatchThreadgroups(enc id, groups, threads *mtlSize) {
	a := dispatchArgsAMD64(uintptr(enc), uintptr(selDispatchThreadgroups), *groups, *threads)
	purego.SyscallN(rt.msgSend, a[:]...)
}
