// Package vk is anygpu's own small binding of the Vulkan API: the loader
// (libvulkan.so.1, vulkan-1.dll, libvulkan.1.dylib) is opened at run time
// through purego, with no cgo, and only the entry points compute work needs
// are resolved, through vkGetInstanceProcAddr and vkGetDeviceProcAddr.
//
// Every entry point is called with purego.SyscallN on its resolved function
// pointer: none of them takes a floating-point parameter, so the integer
// calling convention SyscallN implements is the right one. Pointer arguments
// are passed as unsafe.Pointer and converted to uintptr only inside the
// SyscallN argument list, which keeps the pointed-to memory alive and in
// place for the call; callers on hot paths pass memory they reuse, so calls
// do not allocate.
//
// The Go mirrors of the C structs (structs_gen.go) are generated from
// vulkan_core.h by testdata/gen.py; a test checks every field offset and
// every struct size against what the C compiler computes from the header
// (layout_data_test.go, made by testdata/layout.c).
//
// Handles: dispatchable handles (VkInstance, VkPhysicalDevice, VkDevice,
// VkQueue, VkCommandBuffer) are uintptr; non-dispatchable ones (VkBuffer,
// VkDeviceMemory, ...) are uint64, as on every 64-bit platform. The binding
// supports 64-bit platforms only.
package vk
