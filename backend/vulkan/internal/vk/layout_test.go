package vk

import (
	"reflect"
	"testing"
)

// cLayout is a struct's size and field offsets as the C compiler lays it out.
type cLayout struct {
	Size    uintptr
	Offsets []uintptr
}

// goStructs lists every generated mirror by the name layout.c prints.
var goStructs = []any{
	ApplicationInfo{}, InstanceCreateInfo{}, DebugUtilsMessengerCreateInfoEXT{},
	DebugUtilsMessengerCallbackDataEXT{}, ValidationFeaturesEXT{}, ExtensionProperties{}, LayerProperties{},
	PhysicalDeviceLimits{}, PhysicalDeviceSparseProperties{}, PhysicalDeviceProperties{}, PhysicalDeviceProperties2{},
	PhysicalDeviceSubgroupProperties{}, PhysicalDeviceIDProperties{}, PhysicalDeviceDriverProperties{},
	ConformanceVersion{}, PhysicalDeviceMaintenance3Properties{}, PhysicalDeviceMaintenance4Properties{},
	PhysicalDevicePCIBusInfoPropertiesEXT{}, PhysicalDeviceShaderSMBuiltinsPropertiesNV{},
	PhysicalDeviceShaderCorePropertiesAMD{}, PhysicalDevicePushDescriptorPropertiesKHR{},
	PhysicalDeviceSubgroupSizeControlProperties{},
	MemoryType{}, MemoryHeap{}, PhysicalDeviceMemoryProperties{}, PhysicalDeviceMemoryProperties2{},
	PhysicalDeviceMemoryBudgetPropertiesEXT{}, Extent3D{}, QueueFamilyProperties{},
	PhysicalDeviceFeatures{}, PhysicalDeviceFeatures2{}, PhysicalDeviceTimelineSemaphoreFeatures{},
	PhysicalDeviceShaderFloat16Int8Features{}, PhysicalDeviceMaintenance4Features{}, PhysicalDeviceHostQueryResetFeatures{},
	PhysicalDeviceSubgroupSizeControlFeatures{},
	DeviceQueueCreateInfo{}, DeviceCreateInfo{}, BufferCreateInfo{}, MemoryRequirements{}, MemoryAllocateInfo{},
	CommandPoolCreateInfo{}, CommandBufferAllocateInfo{}, CommandBufferBeginInfo{}, BufferCopy{}, MemoryBarrier{},
	SubmitInfo{}, TimelineSemaphoreSubmitInfo{}, SemaphoreCreateInfo{}, SemaphoreTypeCreateInfo{}, SemaphoreWaitInfo{},
	FenceCreateInfo{}, QueryPoolCreateInfo{}, ShaderModuleCreateInfo{}, DescriptorSetLayoutBinding{},
	DescriptorSetLayoutCreateInfo{}, PushConstantRange{}, PipelineLayoutCreateInfo{}, SpecializationMapEntry{},
	SpecializationInfo{}, PipelineShaderStageCreateInfo{}, ComputePipelineCreateInfo{}, PipelineCacheCreateInfo{},
	DescriptorPoolSize{}, DescriptorPoolCreateInfo{}, DescriptorSetAllocateInfo{}, DescriptorBufferInfo{},
	WriteDescriptorSet{},
}

// TestStructLayouts checks the size of every Go mirror and the offset of
// every field against the C compiler's layout of vulkan_core.h (amd64 and
// arm64 Linux, macOS and Windows share it: LP64/LLP64 with natural alignment).
func TestStructLayouts(t *testing.T) {
	if len(goStructs) != len(cLayouts) {
		t.Fatalf("%d Go structs, %d C layouts: regenerate (go generate, then compile and run testdata/layout.c)", len(goStructs), len(cLayouts))
	}
	for _, v := range goStructs {
		typ := reflect.TypeOf(v)
		want, ok := cLayouts[typ.Name()]
		if !ok {
			t.Errorf("%s: no C layout", typ.Name())
			continue
		}
		if typ.Size() != want.Size {
			t.Errorf("%s: size %d, C says %d", typ.Name(), typ.Size(), want.Size)
		}
		if typ.NumField() != len(want.Offsets) {
			t.Errorf("%s: %d fields, C has %d", typ.Name(), typ.NumField(), len(want.Offsets))
			continue
		}
		for i := 0; i < typ.NumField(); i++ {
			if f := typ.Field(i); f.Offset != want.Offsets[i] {
				t.Errorf("%s.%s: offset %d, C says %d", typ.Name(), f.Name, f.Offset, want.Offsets[i])
			}
		}
	}
}
