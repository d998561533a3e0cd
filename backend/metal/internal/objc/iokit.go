//go:build darwin

package objc

import (
	"unsafe"

	"github.com/anygpu/gpu/internal/dl"
)

// IOKit constants: the main port (kIOMainPortDefault is MACH_PORT_NULL) and
// the search options of IORegistryEntrySearchCFProperty.
const (
	ioMainPortDefault            = 0
	ioRegistryIterateRecursively = 1
	ioRegistryIterateParents     = 2
)

// RegistryNumber reads the number property key of the IORegistry entry
// whose ID is registryID (an MTLDevice's registryID names the GPU's
// accelerator), searching the entry and then its parents in the IOService
// plane. ok is false when IOKit, the entry or the property is missing, or
// the property is not a number. Call inside a pool.
//
// Ownership: IORegistryEntryIDMatching returns a dictionary (+1) that
// IOServiceGetMatchingService consumes; the service is an io_object_t
// released with IOObjectRelease; the property is a CF object (+1, Create
// rule), toll-free bridged, released with -release; the key is an owned
// NSString.
func RegistryNumber(registryID uint64, key string) (n int64, ok bool) {
	if fn.ioRegistryEntryIDMatching == 0 || registryID == 0 {
		return 0, false
	}
	matching := dl.Call(fn.ioRegistryEntryIDMatching, uintptr(registryID))
	if matching == 0 {
		return 0, false
	}
	service := dl.Call(fn.ioServiceGetMatchingService, ioMainPortDefault, matching) // consumes matching
	service &= 0xffffffff                                                           // io_service_t is 32-bit
	if service == 0 {
		return 0, false
	}
	defer dl.Call(fn.ioObjectRelease, service)
	k := NewString(key)
	if k == 0 {
		return 0, false
	}
	defer k.Release()
	plane := dl.CString("IOService")
	prop := ID(dl.Call(fn.ioRegistryEntrySearchCFProperty, service, uintptr(unsafe.Pointer(&plane[0])), uintptr(k), 0,
		ioRegistryIterateRecursively|ioRegistryIterateParents))
	if prop == 0 {
		return 0, false
	}
	defer prop.Release()
	if !Bool(prop.Send1(selIsKindOfClass, uintptr(classNSNumber))) {
		return 0, false
	}
	return int64(prop.Send(selLongLongValue)), true
}
