//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vk

// Result is a VkResult.
type Result int32

// The VkResult values the binding itself looks at; the full table with
// categories and hints lives in package vulkan.
const (
	Success                   Result = 0
	NotReady                  Result = 1
	Timeout                   Result = 2
	Incomplete                Result = 5
	ErrorOutOfHostMemory      Result = -1
	ErrorOutOfDeviceMemory    Result = -2
	ErrorInitializationFailed Result = -3
	ErrorDeviceLost           Result = -4
	ErrorLayerNotPresent      Result = -6
	ErrorExtensionNotPresent  Result = -7
	ErrorFeatureNotPresent    Result = -8
	ErrorIncompatibleDriver   Result = -9
	ErrorUnknown              Result = -13
	ErrorInvalidShaderNV      Result = -1000012000
)

// Structure types (VkStructureType).
const (
	StructureTypeApplicationInfo                             = 0
	StructureTypeInstanceCreateInfo                          = 1
	StructureTypeDeviceQueueCreateInfo                       = 2
	StructureTypeDeviceCreateInfo                            = 3
	StructureTypeSubmitInfo                                  = 4
	StructureTypeMemoryAllocateInfo                          = 5
	StructureTypeFenceCreateInfo                             = 8
	StructureTypeSemaphoreCreateInfo                         = 9
	StructureTypeQueryPoolCreateInfo                         = 11
	StructureTypeBufferCreateInfo                            = 12
	StructureTypeShaderModuleCreateInfo                      = 16
	StructureTypePipelineCacheCreateInfo                     = 17
	StructureTypePipelineShaderStageCreateInfo               = 18
	StructureTypeComputePipelineCreateInfo                   = 29
	StructureTypePipelineLayoutCreateInfo                    = 30
	StructureTypeDescriptorSetLayoutCreateInfo               = 32
	StructureTypeDescriptorPoolCreateInfo                    = 33
	StructureTypeDescriptorSetAllocateInfo                   = 34
	StructureTypeWriteDescriptorSet                          = 35
	StructureTypeCommandPoolCreateInfo                       = 39
	StructureTypeCommandBufferAllocateInfo                   = 40
	StructureTypeCommandBufferBeginInfo                      = 42
	StructureTypeMemoryBarrier                               = 46
	StructureTypePhysicalDeviceFeatures2                     = 1000059000
	StructureTypePhysicalDeviceProperties2                   = 1000059001
	StructureTypePhysicalDeviceMemoryProperties2             = 1000059006
	StructureTypePhysicalDeviceIDProperties                  = 1000071004
	StructureTypePhysicalDevicePushDescriptorPropertiesKHR   = 1000080000
	StructureTypePhysicalDeviceShaderFloat16Int8Features     = 1000082000
	StructureTypePhysicalDeviceSubgroupProperties            = 1000094000
	StructureTypeDebugUtilsMessengerCreateInfoEXT            = 1000128004
	StructureTypePhysicalDeviceShaderSMBuiltinsPropertiesNV  = 1000154001
	StructureTypePhysicalDeviceMaintenance3Properties        = 1000168000
	StructureTypePhysicalDeviceShaderCorePropertiesAMD       = 1000185000
	StructureTypePhysicalDeviceDriverProperties              = 1000196000
	StructureTypePhysicalDeviceTimelineSemaphoreFeatures     = 1000207000
	StructureTypeSemaphoreTypeCreateInfo                     = 1000207002
	StructureTypeTimelineSemaphoreSubmitInfo                 = 1000207003
	StructureTypeSemaphoreWaitInfo                           = 1000207004
	StructureTypePhysicalDevicePCIBusInfoPropertiesEXT       = 1000212000
	StructureTypePhysicalDeviceSubgroupSizeControlProperties = 1000225000
	StructureTypePhysicalDeviceSubgroupSizeControlFeatures   = 1000225002
	StructureTypePhysicalDeviceMemoryBudgetPropertiesEXT     = 1000237000
	StructureTypePhysicalDeviceHostQueryResetFeatures        = 1000261000
	StructureTypeValidationFeaturesEXT                       = 1000247000
	StructureTypePhysicalDeviceMaintenance4Features          = 1000413000
	StructureTypePhysicalDeviceMaintenance4Properties        = 1000413001
)

// Flags and enumerants.
const (
	QueueGraphicsBit = 0x1
	QueueComputeBit  = 0x2
	QueueTransferBit = 0x4

	MemoryPropertyDeviceLocalBit  = 0x1
	MemoryPropertyHostVisibleBit  = 0x2
	MemoryPropertyHostCoherentBit = 0x4
	MemoryPropertyHostCachedBit   = 0x8
	MemoryHeapDeviceLocalBit      = 0x1

	BufferUsageTransferSrcBit   = 0x1
	BufferUsageTransferDstBit   = 0x2
	BufferUsageUniformBufferBit = 0x10
	BufferUsageStorageBufferBit = 0x20

	SharingModeExclusive  = 0
	SharingModeConcurrent = 1

	PipelineStageTopOfPipeBit     = 0x1
	PipelineStageComputeShaderBit = 0x800
	PipelineStageTransferBit      = 0x1000
	PipelineStageBottomOfPipeBit  = 0x2000
	PipelineStageHostBit          = 0x4000
	PipelineStageAllCommandsBit   = 0x10000

	AccessUniformReadBit   = 0x8
	AccessShaderReadBit    = 0x20
	AccessShaderWriteBit   = 0x40
	AccessTransferReadBit  = 0x800
	AccessTransferWriteBit = 0x1000
	AccessHostReadBit      = 0x2000
	AccessHostWriteBit     = 0x4000
	AccessMemoryReadBit    = 0x8000
	AccessMemoryWriteBit   = 0x10000

	CommandPoolCreateTransientBit          = 0x1
	CommandPoolCreateResetCommandBufferBit = 0x2
	CommandBufferLevelPrimary              = 0
	CommandBufferUsageOneTimeSubmitBit     = 0x1

	QueryTypeTimestamp     = 2
	QueryResult64Bit       = 0x1
	QueryResultWaitBit     = 0x2
	SemaphoreTypeBinary    = 0
	SemaphoreTypeTimeline  = 1
	FenceCreateSignaledBit = 0x1

	DescriptorTypeUniformBuffer                   = 6
	DescriptorTypeStorageBuffer                   = 7
	DescriptorSetLayoutCreatePushDescriptorBitKHR = 0x1
	DescriptorPoolCreateFreeDescriptorSetBit      = 0x1

	ShaderStageComputeBit = 0x20

	// PipelineShaderStageCreateRequireFullSubgroupsBit is
	// VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT (Vulkan 1.3,
	// VK_EXT_subgroup_size_control).
	PipelineShaderStageCreateRequireFullSubgroupsBit = 0x2
	PipelineBindPointCompute                         = 1

	DebugUtilsMessageSeverityVerboseBitEXT = 0x1
	DebugUtilsMessageSeverityInfoBitEXT    = 0x10
	DebugUtilsMessageSeverityWarningBitEXT = 0x100
	DebugUtilsMessageSeverityErrorBitEXT   = 0x1000
	DebugUtilsMessageTypeGeneralBitEXT     = 0x1
	DebugUtilsMessageTypeValidationBitEXT  = 0x2
	DebugUtilsMessageTypePerformanceBitEXT = 0x4

	ValidationFeatureEnableBestPracticesEXT             = 2
	ValidationFeatureEnableSynchronizationValidationEXT = 4

	InstanceCreateEnumeratePortabilityBitKHR = 0x1

	PhysicalDeviceTypeOther         = 0
	PhysicalDeviceTypeIntegratedGPU = 1
	PhysicalDeviceTypeDiscreteGPU   = 2
	PhysicalDeviceTypeVirtualGPU    = 3
	PhysicalDeviceTypeCPU           = 4

	SubgroupFeatureBasicBit      = 0x1
	SubgroupFeatureArithmeticBit = 0x4

	// WholeSize is VK_WHOLE_SIZE.
	WholeSize = ^uint64(0)
)

// MakeAPIVersion is VK_MAKE_API_VERSION(0, major, minor, patch).
func MakeAPIVersion(major, minor, patch uint32) uint32 { return major<<22 | minor<<12 | patch }

// APIVersionParts splits a version made by VK_MAKE_API_VERSION.
func APIVersionParts(v uint32) (major, minor, patch uint32) {
	return (v >> 22) & 0x7f, (v >> 12) & 0x3ff, v & 0xfff
}
