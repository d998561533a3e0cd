//go:build darwin

package objc

// Classes, looked up by Load.
var (
	// ClassMTLCompileOptions is MTLCompileOptions.
	ClassMTLCompileOptions ID

	classNSString, classNSNumber, classNSDictionary ID
)

var classes = []struct {
	p    *ID
	name string
}{
	{&classNSString, "NSString"},
	{&classNSNumber, "NSNumber"},
	{&classNSDictionary, "NSDictionary"},
	{&ClassMTLCompileOptions, "MTLCompileOptions"},
}

// Selectors of Foundation and of the runtime that this package sends,
// registered by Load.
var (
	selAlloc                          Sel // alloc
	selRetain                         Sel // retain
	selRelease                        Sel // release
	selRespondsToSelector             Sel // respondsToSelector:
	selInitWithBytesLengthEncoding    Sel // initWithBytes:length:encoding:
	selUTF8String                     Sel // UTF8String
	selCount                          Sel // count
	selObjectAtIndex                  Sel // objectAtIndex:
	selDomain                         Sel // domain
	selCode                           Sel // code
	selLocalizedDescription           Sel // localizedDescription
	selIsKindOfClass                  Sel // isKindOfClass:
	selLongLongValue                  Sel // longLongValue
	selDictionaryWithObjectsKeysCount Sel // dictionaryWithObjects:forKeys:count:
	selDispatchThreadgroups           Sel // dispatchThreadgroups:threadsPerThreadgroup:
	selFillBuffer                     Sel // fillBuffer:range:value:
)

// Selectors of Metal.framework (and NSObject's new) that the backend
// sends, registered by Load; each is named after its selector.
var (
	SelNew                           Sel // new
	SelName                          Sel // name
	SelRegistryID                    Sel // registryID
	SelRecommendedMaxWorkingSetSize  Sel // recommendedMaxWorkingSetSize
	SelCurrentAllocatedSize          Sel // currentAllocatedSize
	SelHasUnifiedMemory              Sel // hasUnifiedMemory
	SelMaxThreadsPerTG               Sel // maxThreadsPerThreadgroup
	SelMaxThreadgroupMemoryLength    Sel // maxThreadgroupMemoryLength
	SelMaxBufferLength               Sel // maxBufferLength
	SelIsLowPower                    Sel // isLowPower
	SelIsHeadless                    Sel // isHeadless
	SelIsRemovable                   Sel // isRemovable
	SelLocation                      Sel // location
	SelMaxTransferRate               Sel // maxTransferRate
	SelArchitecture                  Sel // architecture
	SelSupportsFamily                Sel // supportsFamily:
	SelNewCommandQueueWithMaxCount   Sel // newCommandQueueWithMaxCommandBufferCount:
	SelNewBufferWithLength           Sel // newBufferWithLength:options:
	SelNewBufferWithBytes            Sel // newBufferWithBytes:length:options:
	SelNewSharedEvent                Sel // newSharedEvent
	SelNewLibraryWithSource          Sel // newLibraryWithSource:options:error:
	SelNewComputePipelineState       Sel // newComputePipelineStateWithFunction:error:
	SelContents                      Sel // contents
	SelLength                        Sel // length
	SelDevice                        Sel // device
	SelStorageMode                   Sel // storageMode
	SelCommandBuffer                 Sel // commandBuffer
	SelComputeCommandEncoder         Sel // computeCommandEncoder
	SelBlitCommandEncoder            Sel // blitCommandEncoder
	SelCommit                        Sel // commit
	SelWaitUntilCompleted            Sel // waitUntilCompleted
	SelStatus                        Sel // status
	SelError                         Sel // error
	SelGPUStartTime                  Sel // GPUStartTime
	SelGPUEndTime                    Sel // GPUEndTime
	SelEncodeSignalEvent             Sel // encodeSignalEvent:value:
	SelEncodeWaitForEvent            Sel // encodeWaitForEvent:value:
	SelSetComputePipelineState       Sel // setComputePipelineState:
	SelSetBuffer                     Sel // setBuffer:offset:atIndex:
	SelSetBytes                      Sel // setBytes:length:atIndex:
	SelSetThreadgroupMemoryLength    Sel // setThreadgroupMemoryLength:atIndex:
	SelEndEncoding                   Sel // endEncoding
	SelCopyFromBuffer                Sel // copyFromBuffer:sourceOffset:toBuffer:destinationOffset:size:
	SelSignaledValue                 Sel // signaledValue
	SelSetSignaledValue              Sel // setSignaledValue:
	SelNewFunctionWithName           Sel // newFunctionWithName:
	SelFunctionNames                 Sel // functionNames
	SelMaxTotalThreadsPerThreadgroup Sel // maxTotalThreadsPerThreadgroup
	SelThreadExecutionWidth          Sel // threadExecutionWidth
	SelStaticThreadgroupMemoryLength Sel // staticThreadgroupMemoryLength
	SelSetFastMathEnabled            Sel // setFastMathEnabled:
	SelSetMathMode                   Sel // setMathMode:
	SelSetLanguageVersion            Sel // setLanguageVersion:
	SelSetPreprocessorMacros         Sel // setPreprocessorMacros:
)

var selectors = []struct {
	p    *Sel
	name string
}{
	{&selAlloc, "alloc"},
	{&SelNew, "new"},
	{&selRetain, "retain"},
	{&selRelease, "release"},
	{&selRespondsToSelector, "respondsToSelector:"},
	{&selInitWithBytesLengthEncoding, "initWithBytes:length:encoding:"},
	{&selUTF8String, "UTF8String"},
	{&selCount, "count"},
	{&selObjectAtIndex, "objectAtIndex:"},
	{&selDomain, "domain"},
	{&selCode, "code"},
	{&selLocalizedDescription, "localizedDescription"},
	{&selIsKindOfClass, "isKindOfClass:"},
	{&selLongLongValue, "longLongValue"},
	{&selDictionaryWithObjectsKeysCount, "dictionaryWithObjects:forKeys:count:"},
	// MTLDevice
	{&SelName, "name"},
	{&SelRegistryID, "registryID"},
	{&SelRecommendedMaxWorkingSetSize, "recommendedMaxWorkingSetSize"},
	{&SelCurrentAllocatedSize, "currentAllocatedSize"},
	{&SelHasUnifiedMemory, "hasUnifiedMemory"},
	{&SelMaxThreadsPerTG, "maxThreadsPerThreadgroup"},
	{&SelMaxThreadgroupMemoryLength, "maxThreadgroupMemoryLength"},
	{&SelMaxBufferLength, "maxBufferLength"},
	{&SelIsLowPower, "isLowPower"},
	{&SelIsHeadless, "isHeadless"},
	{&SelIsRemovable, "isRemovable"},
	{&SelLocation, "location"},
	{&SelMaxTransferRate, "maxTransferRate"},
	{&SelArchitecture, "architecture"},
	{&SelSupportsFamily, "supportsFamily:"},
	{&SelNewCommandQueueWithMaxCount, "newCommandQueueWithMaxCommandBufferCount:"},
	{&SelNewBufferWithLength, "newBufferWithLength:options:"},
	{&SelNewBufferWithBytes, "newBufferWithBytes:length:options:"},
	{&SelNewSharedEvent, "newSharedEvent"},
	{&SelNewLibraryWithSource, "newLibraryWithSource:options:error:"},
	{&SelNewComputePipelineState, "newComputePipelineStateWithFunction:error:"},
	// MTLBuffer
	{&SelContents, "contents"},
	{&SelLength, "length"},
	// MTLResource
	{&SelDevice, "device"},
	{&SelStorageMode, "storageMode"},
	// MTLCommandQueue, MTLCommandBuffer
	{&SelCommandBuffer, "commandBuffer"},
	{&SelComputeCommandEncoder, "computeCommandEncoder"},
	{&SelBlitCommandEncoder, "blitCommandEncoder"},
	{&SelCommit, "commit"},
	{&SelWaitUntilCompleted, "waitUntilCompleted"},
	{&SelStatus, "status"},
	{&SelError, "error"},
	{&SelGPUStartTime, "GPUStartTime"},
	{&SelGPUEndTime, "GPUEndTime"},
	{&SelEncodeSignalEvent, "encodeSignalEvent:value:"},
	{&SelEncodeWaitForEvent, "encodeWaitForEvent:value:"},
	// encoders
	{&SelSetComputePipelineState, "setComputePipelineState:"},
	{&SelSetBuffer, "setBuffer:offset:atIndex:"},
	{&SelSetBytes, "setBytes:length:atIndex:"},
	{&SelSetThreadgroupMemoryLength, "setThreadgroupMemoryLength:atIndex:"},
	{&selDispatchThreadgroups, "dispatchThreadgroups:threadsPerThreadgroup:"},
	{&SelEndEncoding, "endEncoding"},
	{&SelCopyFromBuffer, "copyFromBuffer:sourceOffset:toBuffer:destinationOffset:size:"},
	{&selFillBuffer, "fillBuffer:range:value:"},
	// MTLSharedEvent
	{&SelSignaledValue, "signaledValue"},
	{&SelSetSignaledValue, "setSignaledValue:"},
	// MTLLibrary, MTLComputePipelineState
	{&SelNewFunctionWithName, "newFunctionWithName:"},
	{&SelFunctionNames, "functionNames"},
	{&SelMaxTotalThreadsPerThreadgroup, "maxTotalThreadsPerThreadgroup"},
	{&SelThreadExecutionWidth, "threadExecutionWidth"},
	{&SelStaticThreadgroupMemoryLength, "staticThreadgroupMemoryLength"},
	// MTLCompileOptions
	{&SelSetFastMathEnabled, "setFastMathEnabled:"},
	{&SelSetMathMode, "setMathMode:"},
	{&SelSetLanguageVersion, "setLanguageVersion:"},
	{&SelSetPreprocessorMacros, "setPreprocessorMacros:"},
}
