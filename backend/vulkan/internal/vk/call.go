//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vk

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/anygpu/gpu/internal/dl"
)

// CString returns s as a NUL-terminated C string in Go memory (dl.CString).
func CString(s string) *byte { return &dl.CString(s)[0] }

// CStrings returns ss as a C array of C strings (char **; nil when ss is
// empty) and the slice that keeps it alive until the call that takes it
// returns (dl.CStrings).
func CStrings(ss []string) (unsafe.Pointer, []*byte) {
	if len(ss) == 0 {
		return nil, nil
	}
	ptrs := dl.CStrings(ss)
	return unsafe.Pointer(&ptrs[0]), ptrs
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

	getInstanceProcAddr                  uintptr
	createInstance                       uintptr
	enumerateInstanceVersion             uintptr // nil on a Vulkan 1.0 loader
	enumerateInstanceExtensionProperties uintptr
	enumerateInstanceLayerProperties     uintptr
}

// ErrUnsupportedPlatform is returned on 32-bit platforms.
var ErrUnsupportedPlatform = errors.New("the Vulkan binding supports 64-bit platforms only")

// Load opens the first of candidates that opens and is a Vulkan loader
// (exports vkGetInstanceProcAddr, which resolves vkCreateInstance). The
// error names every attempt.
func Load(candidates []string) (*Library, error) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		return nil, ErrUnsupportedPlatform
	}
	var l *Library
	_, err := dl.Load(dl.Spec{Candidates: candidates, Mode: dl.Now, Accept: func(h uintptr, name string) error {
		gipa := dl.Sym(h, "vkGetInstanceProcAddr")
		if gipa == 0 {
			return fmt.Errorf("%s: no vkGetInstanceProcAddr", name)
		}
		c := &Library{Path: name, getInstanceProcAddr: gipa}
		c.createInstance = c.proc(0, "vkCreateInstance")
		c.enumerateInstanceVersion = c.proc(0, "vkEnumerateInstanceVersion")
		c.enumerateInstanceExtensionProperties = c.proc(0, "vkEnumerateInstanceExtensionProperties")
		c.enumerateInstanceLayerProperties = c.proc(0, "vkEnumerateInstanceLayerProperties")
		if c.createInstance == 0 || c.enumerateInstanceExtensionProperties == 0 {
			return fmt.Errorf("%s: not a Vulkan loader (vkCreateInstance is missing)", name)
		}
		l = c
		return nil
	}})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// enumerate runs a two-call Vulkan enumeration: call with a nil array for
// the count, then with an array of that many, again while the result is
// VK_INCOMPLETE.
func enumerate[T any](call func(n *uint32, out *T) Result) ([]T, Result) {
	for {
		var n uint32
		if r := call(&n, nil); r != Success || n == 0 {
			return nil, r
		}
		out := make([]T, n)
		r := call(&n, &out[0])
		if r == Incomplete {
			continue
		}
		if r != Success {
			return nil, r
		}
		return out[:n], Success
	}
}

// names maps enumerated properties to their fixed-size names.
func names[T any](props []T, r Result, name func(*T) []byte) ([]string, Result) {
	if r != Success || len(props) == 0 {
		return nil, r
	}
	out := make([]string, 0, len(props))
	for i := range props {
		out = append(out, FixedString(name(&props[i])))
	}
	return out, Success
}

// proc resolves an entry point through vkGetInstanceProcAddr (0 if absent).
func (l *Library) proc(instance uintptr, name string) uintptr {
	return dl.Call(l.getInstanceProcAddr, instance, uintptr(unsafe.Pointer(CString(name))))
}

// InstanceVersion is vkEnumerateInstanceVersion: the loader's highest
// supported Vulkan version (1.0 when the loader predates the call).
func (l *Library) InstanceVersion() uint32 {
	if l.enumerateInstanceVersion == 0 {
		return MakeAPIVersion(1, 0, 0)
	}
	var v uint32
	r := dl.Call(l.enumerateInstanceVersion, uintptr(unsafe.Pointer(&v)))
	if Result(r) != Success {
		return MakeAPIVersion(1, 0, 0)
	}
	return v
}

// InstanceExtensions lists the instance extensions the loader, drivers and
// implicit layers offer (layer "" ) or those of one layer.
func (l *Library) InstanceExtensions(layer string) ([]string, Result) {
	var lp *byte
	if layer != "" {
		lp = CString(layer)
	}
	props, r := enumerate(func(n *uint32, out *ExtensionProperties) Result {
		return Result(dl.Call(l.enumerateInstanceExtensionProperties, uintptr(unsafe.Pointer(lp)), uintptr(unsafe.Pointer(n)), uintptr(unsafe.Pointer(out))))
	})
	return names(props, r, func(p *ExtensionProperties) []byte { return p.ExtensionName[:] })
}

// InstanceLayers lists the names of the instance layers installed.
func (l *Library) InstanceLayers() ([]string, Result) {
	if l.enumerateInstanceLayerProperties == 0 {
		return nil, Success
	}
	props, r := enumerate(func(n *uint32, out *LayerProperties) Result {
		return Result(dl.Call(l.enumerateInstanceLayerProperties, uintptr(unsafe.Pointer(n)), uintptr(unsafe.Pointer(out))))
	})
	return names(props, r, func(p *LayerProperties) []byte { return p.LayerName[:] })
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
	r := dl.Call(l.createInstance, uintptr(unsafe.Pointer(info)), 0, uintptr(unsafe.Pointer(&h)))
	if Result(r) != Success {
		return nil, Result(r)
	}
	in := l.resolveInstance(h)
	if in.enumeratePhysicalDevices == 0 || in.createDevice == 0 || in.getDeviceProcAddr == 0 || in.getPhysicalDeviceProperties == 0 {
		in.Destroy()
		return nil, ErrorInitializationFailed
	}
	return in, Success
}

// AttachInstance resolves the entry points of a VkInstance created
// elsewhere (another library's view of an instance it was handed): the
// result must not be destroyed by its holder.
func (l *Library) AttachInstance(h uintptr) (*Instance, error) {
	if h == 0 {
		return nil, errors.New("null VkInstance")
	}
	in := l.resolveInstance(h)
	if in.enumeratePhysicalDevices == 0 || in.getDeviceProcAddr == 0 {
		return nil, fmt.Errorf("VkInstance %#x: vkGetInstanceProcAddr resolves no instance entry points", h)
	}
	return in, nil
}

// resolveInstance resolves the instance entry points of h.
func (l *Library) resolveInstance(h uintptr) *Instance {
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
	return in
}

// Destroy is vkDestroyInstance.
func (in *Instance) Destroy() {
	if in.destroyInstance != 0 && in.Handle != 0 {
		dl.Call(in.destroyInstance, in.Handle, 0)
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
	return enumerate(func(n *uint32, out *uintptr) Result {
		return Result(dl.Call(in.enumeratePhysicalDevices, in.Handle, uintptr(unsafe.Pointer(n)), uintptr(unsafe.Pointer(out))))
	})
}

// Properties is vkGetPhysicalDeviceProperties.
func (in *Instance) Properties(pd uintptr, out *PhysicalDeviceProperties) {
	dl.Call(in.getPhysicalDeviceProperties, pd, uintptr(unsafe.Pointer(out)))
}

// Properties2 is vkGetPhysicalDeviceProperties2; out.PNext may chain
// extension structs.
func (in *Instance) Properties2(pd uintptr, out *PhysicalDeviceProperties2) {
	dl.Call(in.getPhysicalDeviceProperties2, pd, uintptr(unsafe.Pointer(out)))
}

// Features is vkGetPhysicalDeviceFeatures.
func (in *Instance) Features(pd uintptr, out *PhysicalDeviceFeatures) {
	dl.Call(in.getPhysicalDeviceFeatures, pd, uintptr(unsafe.Pointer(out)))
}

// Features2 is vkGetPhysicalDeviceFeatures2.
func (in *Instance) Features2(pd uintptr, out *PhysicalDeviceFeatures2) {
	dl.Call(in.getPhysicalDeviceFeatures2, pd, uintptr(unsafe.Pointer(out)))
}

// MemoryProperties is vkGetPhysicalDeviceMemoryProperties.
func (in *Instance) MemoryProperties(pd uintptr, out *PhysicalDeviceMemoryProperties) {
	dl.Call(in.getPhysicalDeviceMemoryProperties, pd, uintptr(unsafe.Pointer(out)))
}

// MemoryProperties2 is vkGetPhysicalDeviceMemoryProperties2 (false when the
// entry point is missing).
func (in *Instance) MemoryProperties2(pd uintptr, out *PhysicalDeviceMemoryProperties2) bool {
	if in.getPhysicalDeviceMemoryProperties2 == 0 {
		return false
	}
	dl.Call(in.getPhysicalDeviceMemoryProperties2, pd, uintptr(unsafe.Pointer(out)))
	return true
}

// QueueFamilies is vkGetPhysicalDeviceQueueFamilyProperties.
func (in *Instance) QueueFamilies(pd uintptr) []QueueFamilyProperties {
	var n uint32
	dl.Call(in.getPhysicalDeviceQueueFamilyProperties, pd, uintptr(unsafe.Pointer(&n)), 0)
	if n == 0 {
		return nil
	}
	out := make([]QueueFamilyProperties, n)
	dl.Call(in.getPhysicalDeviceQueueFamilyProperties, pd, uintptr(unsafe.Pointer(&n)), uintptr(unsafe.Pointer(&out[0])))
	return out[:n]
}

// DeviceExtensions is vkEnumerateDeviceExtensionProperties.
func (in *Instance) DeviceExtensions(pd uintptr) ([]string, Result) {
	props, r := enumerate(func(n *uint32, out *ExtensionProperties) Result {
		return Result(dl.Call(in.enumerateDeviceExtensionProperties, pd, 0, uintptr(unsafe.Pointer(n)), uintptr(unsafe.Pointer(out))))
	})
	return names(props, r, func(p *ExtensionProperties) []byte { return p.ExtensionName[:] })
}

// HasDebugUtils reports whether VK_EXT_debug_utils' messenger calls resolved.
func (in *Instance) HasDebugUtils() bool {
	return in.createDebugUtilsMessengerEXT != 0 && in.destroyDebugUtilsMessengerEXT != 0
}

// CreateDebugUtilsMessenger is vkCreateDebugUtilsMessengerEXT.
func (in *Instance) CreateDebugUtilsMessenger(info *DebugUtilsMessengerCreateInfoEXT) (uint64, Result) {
	var h uint64
	r := dl.Call(in.createDebugUtilsMessengerEXT, in.Handle, uintptr(unsafe.Pointer(info)), 0, uintptr(unsafe.Pointer(&h)))
	return h, Result(r)
}

// DestroyDebugUtilsMessenger is vkDestroyDebugUtilsMessengerEXT.
func (in *Instance) DestroyDebugUtilsMessenger(h uint64) {
	dl.Call(in.destroyDebugUtilsMessengerEXT, in.Handle, uintptr(h), 0)
}
