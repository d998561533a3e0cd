//go:build darwin

package metal

import (
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
)

// IOKit constants: the main port (kIOMainPortDefault is MACH_PORT_NULL) and
// the search options of IORegistryEntrySearchCFProperty.
const (
	ioMainPortDefault            = 0
	ioRegistryIterateRecursively = 1
	ioRegistryIterateParents     = 2
)

// gpuCoreCount reads "gpu-core-count" from the IORegistry entry whose ID is
// the MTLDevice's registryID (the GPU's accelerator; Apple GPUs publish the
// count there or on a parent), or 0 when IOKit, the entry or the property is
// missing. Call inside a pool.
//
// Ownership: IORegistryEntryIDMatching returns a dictionary (+1) that
// IOServiceGetMatchingService consumes; the service is an io_object_t
// released with IOObjectRelease; the property is a CF object (+1, Create
// rule), toll-free bridged, released with -release; the key is an owned
// NSString.
func gpuCoreCount(registryID uint64) int {
	if rt.ioRegistryEntryIDMatching == 0 || registryID == 0 {
		return 0
	}
	matching, _, _ := purego.SyscallN(rt.ioRegistryEntryIDMatching, uintptr(registryID))
	if matching == 0 {
		return 0
	}
	service, _, _ := purego.SyscallN(rt.ioServiceGetMatchingService, ioMainPortDefault, matching) // consumes matching
	service &= 0xffffffff                                                                         // io_service_t is 32-bit
	if service == 0 {
		return 0
	}
	defer purego.SyscallN(rt.ioObjectRelease, service)
	key := newNSString("gpu-core-count")
	if key == 0 {
		return 0
	}
	defer release(key)
	plane := cstr("IOService")
	prop, _, _ := purego.SyscallN(rt.ioRegistryEntrySearchCFProperty, service, uintptr(unsafe.Pointer(&plane[0])), uintptr(key), 0,
		ioRegistryIterateRecursively|ioRegistryIterateParents)
	runtime.KeepAlive(plane)
	if prop == 0 {
		return 0
	}
	defer release(id(prop))
	if !boolOf(send1(id(prop), selIsKindOfClass, uintptr(rt.classNSNumber))) {
		return 0
	}
	n := int64(send(id(prop), selLongLongValue))
	if n <= 0 || n > 1<<20 {
		return 0
	}
	return int(n)
}
