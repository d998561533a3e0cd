// Package vk is anygpu's own small binding of the Vulkan API: the loader
// (libvulkan.so.1, vulkan-1.dll, libvulkan.1.dylib) is opened at run time
// through internal/dl, with no cgo, and only the entry points compute work
// needs are resolved, through vkGetInstanceProcAddr and vkGetDeviceProcAddr.
//
// Every entry point is called with dl.Call on its resolved function pointer:
// none of them takes a floating-point parameter, so the integer calling
// convention it implements is the right one. Pointer arguments are passed
// as unsafe.Pointer and converted to uintptr only inside the dl.Call
// argument list, which keeps the pointed-to memory alive and in place for
// the call; calls on hot paths take their arguments in an Args the caller
// reuses (dl.CallArgs), so they do not allocate.
//
// The Go mirrors of the C structs (structs_gen.go) are generated from
// vulkan_core.h by ../vkgen (go generate; a test there fails when the file
// is not current); a test here checks every field offset and every struct
// size against what the C compiler computes from the header
// (layout_data_test.go, printed by testdata/layout.c, which vkgen writes
// too: compile and run it to refresh the table).
//
// Handles: dispatchable handles (VkInstance, VkPhysicalDevice, VkDevice,
// VkQueue, VkCommandBuffer) are uintptr; non-dispatchable ones (VkBuffer,
// VkDeviceMemory, ...) are uint64, as on every 64-bit platform. The binding
// supports 64-bit platforms only.
package vk

//go:generate go run ../vkgen -header /usr/include/vulkan/vulkan_core.h
