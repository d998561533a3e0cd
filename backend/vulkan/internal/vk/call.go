//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vk

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// CString returns s as a NUL-terminated C string in Go memory.
func CString(s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0]
}

// GoString reads the NUL-terminated C string at p (at most max bytes).
func GoString(p unsafe.Pointer, max int) string {
	if p == nil {
		return ""
	}
	n := 0
	for n < max && *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}

// FixedString reads a NUL-terminated string from a fixed-size char array.
func FixedString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// Library is an opened Vulkan loader.
type Library struct {
	Path string // the name or path that opened

	handle                               uintptr
	getInstanceProcAddr                  uintptr
	createInstance                       uintptr
	enumerateInstanceVersion             uintptr // nil on a Vulkan 1.0 loader
	enumerateInstanceExtensionProperties uintptr
	enumerateInstanceLayerProperties     uintptr
}

// ErrUnsupportedPlatform is returned on 32-bit platforms.
var ErrUnsupportedPlatform = errors.New("the Vulkan binding supports 64-bit platforms only")

// Load opens the first library of names that opens and resolves
// vkGetInstanceProcAddr from it. The error names every attempt.
func Load(names []string) (*Library, error) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		return nil, ErrUnsupportedPlatform
	}
	var fails []string
	for _, name := range names {
		h, err := openLibrary(name)
		if err != nil {
			fails = append(fails, err.Error())
			continue
		}
		gipa, err := librarySymbol(h, "vkGetInstanceProcAddr")
		if err != nil || gipa == 0 {
			fails = append(fails, fmt.Sprintf("%s: no vkGetInstanceProcAddr: %v", name, err))
			continue
		}
		l := &Library{Path: name, handle: h, getInstanceProcAddr: gipa}
		l.createInstance = l.proc(0, "vkCreateInstance")
		l.enumerateInstanceVersion = l.proc(0, "vkEnumerateInstanceVersion")
		l.enumerateInstanceExtensionProperties = l.proc(0, "vkEnumerateInstanceExtensionProperties")
		l.enumerateInstanceLayerProperties = l.proc(0, "vkEnumerateInstanceLayerProperties")
		if l.createInstance == 0 || l.enumerateInstanceExtensionProperties == 0 {
			fails = append(fails, name+": not a Vulkan loader (vkCreateInstance is missing)")
			continue
		}
		return l, nil
	}
	return nil, errors.New(strings.Join(fails, "; "))
}

// proc resolves an entry point through vkGetInstanceProcAddr (0 if absent).
func (l *Library) proc(instance uintptr, name string) uintptr {
	c := CString(name)
	r, _, _ := purego.SyscallN(l.getInstanceProcAddr, instance, uintptr(unsafe.Pointer(c)))
	return r
}

// InstanceVersion is vkEnumerateInstanceVersion: the loader's highest
// supported Vulkan version (1.0 when the loader predates the call).
func (l *Library) InstanceVersion() uint32 {
	if l.enumerateInstanceVersion == 0 {
		return MakeAPIVersion(1, 0, 0)
	}
	var v uint32
	r, _, _ := purego.SyscallN(l.enumerateInstanceVersion, uintptr(unsafe.Pointer(&v)))
	if Result(r) != Success {
		return MakeAPIVersion(1, 0, 0)
	}
	return v
}

// InstanceExtensions lists the instance extensions the loader, drivers and
// implicit layers offer (layer "" ) or those of one layer.
func (l *Library) InstanceExtensions(layer string) ([]string, Result) {
	var lp unsafe.Pointer
	if layer != "" {
		lp = unsafe.Pointer(CString(layer))
	}
	for {
		var n uint32
		r, _, _ := purego.SyscallN(l.enumerateInstanceExtensionProperties, uintptr(lp), uintptr(unsafe.Pointer(&n)), 0)
		if Result(r) != Success || n == 0 {
			return nil, Result(r)
		}
		props := make([]ExtensionProperties, n)
		r, _, _ = purego.SyscallN(l.enumerateInstanceExtensionProperties, uintptr(lp), uintptr(unsafe.Pointer(&n)), uintptr(unsafe.Pointer(&props[0])))
		if Result(r) == Incomplete {
			continue
		}
		if Result(r) != Success {
			return nil, Result(r)
		}
		out := make([]string, 0, n)
		for _, p := range props[:n] {
			out = append(out, FixedString(p.ExtensionName[:]))
		}
		return out, Success
	}
}

// InstanceLayers lists the names of the instance layers installed.
func (l *Library) InstanceLayers() ([]string, Result) {
	if l.enumerateInstanceLayerProperties == 0 {
		return nil, Success
	}
	for {
		var n uint32
		r, _, _ := purego.SyscallN(l.enumerateInstanceLayerProperties, uintptr(unsafe.Pointer(&n)), 0)
		if Result(r) != Success || n == 0 {
			return nil, Result(r)
		}
		props := make([]LayerProperties, n)
		r, _, _ = purego.SyscallN(l.enumerateInstanceLayerProperties, uintptr(unsafe.Pointer(&n)), uintptr(unsafe.Pointer(&props[0])))
		if Result(r) == Incomplete {
			continue
		}
		if Result(r) != Success {
			return nil, Result(r)
		}
		out := make([]string, 0, n)
		for _, p := range props[:n] {
			out = append(out, FixedString(p.LayerName[:]))
		}
		return out, Success
	}
}

// Instance is a VkInstance with its entry points.
type Instance struct {
	Handle uintptr // the VkInstance
	lib    *Library

	destroyInstance                        uintptr
	enumeratePhysicalDevices               uintptr
	getPhysicalDeviceProperties            uintptr
	getPhysicalDeviceProperties2           uintptr
	getPhysicalDeviceFeatures              uintptr
	getPhysicalDeviceFeatures2             uintptr
	getPhysicalDeviceMemoryProperties      uintptr
	getPhysicalDeviceMemoryProperties2     uintptr
	getPhysicalDeviceQueueFamilyProperties uintptr
	enumerateDeviceExtensionProperties     uintptr
	createDevice                           uintptr
	getDeviceProcAddr                      uintptr
	createDebugUtilsMessengerEXT           uintptr
	destroyDebugUtilsMessengerEXT          uintptr
}

// CreateInstance is vkCreateInstance; info points at an InstanceCreateInfo.
func (l *Library) CreateInstance(info *InstanceCreateInfo) (*Instance, Result) {
	var h uintptr
	r, _, _ := purego.SyscallN(l.createInstance, uintptr(unsafe.Pointer(info)), 0, uintptr(unsafe.Pointer(&h)))
	if Result(r) != Success {
		return nil, Result(r)
	}
	in := &Instance{Handle: h, lib: l}
	p := func(names ...string) uintptr {
		for _, n := range names {
			if f := l.proc(h, n); f != 0 {
				return f
			}
		}
		return 0
	}
	in.destroyInstance = p("vkDestroyInstance")
	in.enumeratePhysicalDevices = p("vkEnumeratePhysicalDevices")
	in.getPhysicalDeviceProperties = p("vkGetPhysicalDeviceProperties")
	in.getPhysicalDeviceProperties2 = p("vkGetPhysicalDeviceProperties2", "vkGetPhysicalDeviceProperties2KHR")
	in.getPhysicalDeviceFeatures = p("vkGetPhysicalDeviceFeatures")
	in.getPhysicalDeviceFeatures2 = p("vkGetPhysicalDeviceFeatures2", "vkGetPhysicalDeviceFeatures2KHR")
	in.getPhysicalDeviceMemoryProperties = p("vkGetPhysicalDeviceMemoryProperties")
	in.getPhysicalDeviceMemoryProperties2 = p("vkGetPhysicalDeviceMemoryProperties2", "vkGetPhysicalDeviceMemoryProperties2KHR")
	in.getPhysicalDeviceQueueFamilyProperties = p("vkGetPhysicalDeviceQueueFamilyProperties")
	in.enumerateDeviceExtensionProperties = p("vkEnumerateDeviceExtensionProperties")
	in.createDevice = p("vkCreateDevice")
	in.getDeviceProcAddr = p("vkGetDeviceProcAddr")
	in.createDebugUtilsMessengerEXT = p("vkCreateDebugUtilsMessengerEXT")
	in.destroyDebugUtilsMessengerEXT = p("vkDestroyDebugUtilsMessengerEXT")
	if in.enumeratePhysicalDevices == 0 || in.createDevice == 0 || in.getDeviceProcAddr == 0 || in.getPhysicalDeviceProperties == 0 {
		in.Destroy()
		return nil, ErrorInitializationFailed
	}
	return in, Success
}

// Destroy is vkDestroyInstance.
func (in *Instance) Destroy() {
	if in.destroyInstance != 0 && in.Handle != 0 {
		purego.SyscallN(in.destroyInstance, in.Handle, 0)
	}
	in.Handle = 0
}

// HasProperties2 reports whether vkGetPhysicalDeviceProperties2 (or its KHR
// form) is available.
func (in *Instance) HasProperties2() bool {
	return in.getPhysicalDeviceProperties2 != 0 && in.getPhysicalDeviceFeatures2 != 0
}

// PhysicalDevices is vkEnumeratePhysicalDevices.
func (in *Instance) PhysicalDevices() ([]uintptr, Result) {
	for {
		var n uint32
		r, _, _ := purego.SyscallN(in.enumeratePhysicalDevices, in.Handle, uintptr(unsafe.Pointer(&n)), 0)
		if Result(r) != Success || n == 0 {
			return nil, Result(r)
		}
		out := make([]uintptr, n)
		r, _, _ = purego.SyscallN(in.enumeratePhysicalDevices, in.Handle, uintptr(unsafe.Pointer(&n)), uintptr(unsafe.Pointer(&out[0])))
		if Result(r) == Incomplete {
			continue
		}
		if Result(r) != Success {
			return nil, Result(r)
		}
		return out[:n], Success
	}
}

// Properties is vkGetPhysicalDeviceProperties.
func (in *Instance) Properties(pd uintptr, out *PhysicalDeviceProperties) {
	purego.SyscallN(in.getPhysicalDeviceProperties, pd, uintptr(unsafe.Pointer(out)))
}

// Properties2 is vkGetPhysicalDeviceProperties2; out.PNext may chain
// extension structs.
func (in *Instance) Properties2(pd uintptr, out *PhysicalDeviceProperties2) {
	purego.SyscallN(in.getPhysicalDeviceProperties2, pd, uintptr(unsafe.Pointer(out)))
}

// Features is vkGetPhysicalDeviceFeatures.
func (in *Instance) Features(pd uintptr, out *PhysicalDeviceFeatures) {
	purego.SyscallN(in.getPhysicalDeviceFeatures, pd, uintptr(unsafe.Pointer(out)))
}

// Features2 is vkGetPhysicalDeviceFeatures2.
func (in *Instance) Features2(pd uintptr, out *PhysicalDeviceFeatures2) {
	purego.SyscallN(in.getPhysicalDeviceFeatures2, pd, uintptr(unsafe.Pointer(out)))
}

// MemoryProperties is vkGetPhysicalDeviceMemoryProperties.
func (in *Instance) MemoryProperties(pd uintptr, out *PhysicalDeviceMemoryProperties) {
	purego.SyscallN(in.getPhysicalDeviceMemoryProperties, pd, uintptr(unsafe.Pointer(out)))
}

// MemoryProperties2 is vkGetPhysicalDeviceMemoryProperties2 (false when the
// entry point is missing).
func (in *Instance) MemoryProperties2(pd uintptr, out *PhysicalDeviceMemoryProperties2) bool {
	if in.getPhysicalDeviceMemoryProperties2 == 0 {
		return false
	}
	purego.SyscallN(in.getPhysicalDeviceMemoryProperties2, pd, uintptr(unsafe.Pointer(out)))
	return true
}

// QueueFamilies is vkGetPhysicalDeviceQueueFamilyProperties.
func (in *Instance) QueueFamilies(pd uintptr) []QueueFamilyProperties {
	var n uint32
	purego.SyscallN(in.getPhysicalDeviceQueueFamilyProperties, pd, uintptr(unsafe.Pointer(&n)), 0)
	if n == 0 {
		return nil
	}
	out := make([]QueueFamilyProperties, n)
	purego.SyscallN(in.getPhysicalDeviceQueueFamilyProperties, pd, uintptr(unsafe.Pointer(&n)), uintptr(unsafe.Pointer(&out[0])))
	return out[:n]
}

// DeviceExtensions is vkEnumerateDeviceExtensionProperties.
func (in *Instance) DeviceExtensions(pd uintptr) ([]string, Result) {
	for {
		var n uint32
		r, _, _ := purego.SyscallN(in.enumerateDeviceExtensionProperties, pd, 0, uintptr(unsafe.Pointer(&n)), 0)
		if Result(r) != Success || n == 0 {
			return nil, Result(r)
		}
		props := make([]ExtensionProperties, n)
		r, _, _ = purego.SyscallN(in.enumerateDeviceExtensionProperties, pd, 0, uintptr(unsafe.Pointer(&n)), uintptr(unsafe.Pointer(&props[0])))
		if Result(r) == Incomplete {
			continue
		}
		if Result(r) != Success {
			return nil, Result(r)
		}
		out := make([]string, 0, n)
		for _, p := range props[:n] {
			out = append(out, FixedString(p.ExtensionName[:]))
		}
		return out, Success
	}
}

// HasDebugUtils reports whether VK_EXT_debug_utils' messenger calls resolved.
func (in *Instance) HasDebugUtils() bool {
	return in.createDebugUtilsMessengerEXT != 0 && in.destroyDebugUtilsMessengerEXT != 0
}

// CreateDebugUtilsMessenger is vkCreateDebugUtilsMessengerEXT.
func (in *Instance) CreateDebugUtilsMessenger(info *DebugUtilsMessengerCreateInfoEXT) (uint64, Result) {
	var h uint64
	r, _, _ := purego.SyscallN(in.createDebugUtilsMessengerEXT, in.Handle, uintptr(unsafe.Pointer(info)), 0, uintptr(unsafe.Pointer(&h)))
	return h, Result(r)
}

// DestroyDebugUtilsMessenger is vkDestroyDebugUtilsMessengerEXT.
func (in *Instance) DestroyDebugUtilsMessenger(h uint64) {
	purego.SyscallN(in.destroyDebugUtilsMessengerEXT, in.Handle, uintptr(h), 0)
}

// OpenLibrary opens the first of names that loads and returns its handle and
// name; the error names every attempt.
func OpenLibrary(names []string) (uintptr, string, error) {
	var fails []string
	for _, n := range names {
		h, err := openLibrary(n)
		if err == nil {
			return h, n, nil
		}
		fails = append(fails, err.Error())
	}
	return 0, "", errors.New(strings.Join(fails, "; "))
}

// Symbol resolves name in the library h (0 if absent).
func Symbol(h uintptr, name string) uintptr {
	p, err := librarySymbol(h, name)
	if err != nil {
		return 0
	}
	return p
}
