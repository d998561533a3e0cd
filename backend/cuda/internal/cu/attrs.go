package cu

// Attribute is a CUdevice_attribute.
type Attribute int32

// The device attributes DeviceInfo is filled from (values of the 12.6 and
// 13.0 headers).
const (
	AttrMaxThreadsPerBlock           Attribute = 1
	AttrMaxBlockDimX                 Attribute = 2
	AttrMaxBlockDimY                 Attribute = 3
	AttrMaxBlockDimZ                 Attribute = 4
	AttrMaxGridDimX                  Attribute = 5
	AttrMaxGridDimY                  Attribute = 6
	AttrMaxGridDimZ                  Attribute = 7
	AttrMaxSharedMemoryPerBlock      Attribute = 8
	AttrTotalConstantMemory          Attribute = 9
	AttrWarpSize                     Attribute = 10
	AttrMaxPitch                     Attribute = 11
	AttrMaxRegistersPerBlock         Attribute = 12
	AttrClockRate                    Attribute = 13 // kHz
	AttrMultiprocessorCount          Attribute = 16
	AttrKernelExecTimeout            Attribute = 17
	AttrIntegrated                   Attribute = 18
	AttrCanMapHostMemory             Attribute = 19
	AttrComputeMode                  Attribute = 20
	AttrConcurrentKernels            Attribute = 31
	AttrECCEnabled                   Attribute = 32
	AttrPCIBusID                     Attribute = 33
	AttrPCIDeviceID                  Attribute = 34
	AttrTCCDriver                    Attribute = 35
	AttrMemoryClockRate              Attribute = 36 // kHz
	AttrGlobalMemoryBusWidth         Attribute = 37 // bits
	AttrL2CacheSize                  Attribute = 38
	AttrMaxThreadsPerMultiprocessor  Attribute = 39
	AttrAsyncEngineCount             Attribute = 40
	AttrUnifiedAddressing            Attribute = 41
	AttrPCIDomainID                  Attribute = 50
	AttrComputeCapabilityMajor       Attribute = 75
	AttrComputeCapabilityMinor       Attribute = 76
	AttrStreamPrioritiesSupported    Attribute = 78
	AttrMaxSharedMemoryPerSM         Attribute = 81
	AttrMaxRegistersPerSM            Attribute = 82
	AttrManagedMemory                Attribute = 83
	AttrMultiGPUBoard                Attribute = 84
	AttrPageableMemoryAccess         Attribute = 88
	AttrConcurrentManagedAccess      Attribute = 89
	AttrCooperativeLaunch            Attribute = 95
	AttrMaxSharedMemoryPerBlockOptin Attribute = 97
	AttrMaxBlocksPerMultiprocessor   Attribute = 106
	AttrMaxPersistingL2CacheSize     Attribute = 108
	AttrReservedSharedMemoryPerBlock Attribute = 111
	AttrMemoryPoolsSupported         Attribute = 115
	AttrClusterLaunch                Attribute = 120
)

// InfoAttributes lists the attributes the backend reads for DeviceInfo.
var InfoAttributes = []Attribute{
	AttrMaxThreadsPerBlock, AttrMaxBlockDimX, AttrMaxBlockDimY, AttrMaxBlockDimZ,
	AttrMaxGridDimX, AttrMaxGridDimY, AttrMaxGridDimZ, AttrMaxSharedMemoryPerBlock,
	AttrTotalConstantMemory, AttrWarpSize, AttrMaxRegistersPerBlock, AttrClockRate,
	AttrMultiprocessorCount, AttrKernelExecTimeout, AttrIntegrated, AttrCanMapHostMemory,
	AttrComputeMode, AttrConcurrentKernels, AttrECCEnabled, AttrPCIBusID, AttrPCIDeviceID,
	AttrTCCDriver, AttrMemoryClockRate, AttrGlobalMemoryBusWidth, AttrL2CacheSize,
	AttrMaxThreadsPerMultiprocessor, AttrAsyncEngineCount, AttrUnifiedAddressing,
	AttrPCIDomainID, AttrComputeCapabilityMajor, AttrComputeCapabilityMinor,
	AttrStreamPrioritiesSupported, AttrMaxSharedMemoryPerSM, AttrMaxRegistersPerSM,
	AttrManagedMemory, AttrMultiGPUBoard, AttrPageableMemoryAccess, AttrConcurrentManagedAccess,
	AttrCooperativeLaunch, AttrMaxSharedMemoryPerBlockOptin, AttrMaxBlocksPerMultiprocessor,
	AttrMaxPersistingL2CacheSize, AttrReservedSharedMemoryPerBlock, AttrMemoryPoolsSupported,
	AttrClusterLaunch,
}
