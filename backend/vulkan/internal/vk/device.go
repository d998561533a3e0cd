//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vk

import (
	"fmt"
	"unsafe"

	"github.com/anygpu/gpu/internal/dl"
)

// Device is a VkDevice with its entry points, resolved through
// vkGetDeviceProcAddr (which skips the loader's dispatch on every call).
type Device struct {
	Handle uintptr // the VkDevice

	destroyDevice               uintptr
	getDeviceQueue              uintptr
	deviceWaitIdle              uintptr
	queueSubmit                 uintptr
	queueWaitIdle               uintptr
	createBuffer                uintptr
	destroyBuffer               uintptr
	getBufferMemoryRequirements uintptr
	bindBufferMemory            uintptr
	allocateMemory              uintptr
	freeMemory                  uintptr
	mapMemory                   uintptr
	unmapMemory                 uintptr
	createCommandPool           uintptr
	destroyCommandPool          uintptr
	allocateCommandBuffers      uintptr
	freeCommandBuffers          uintptr
	resetCommandBuffer          uintptr
	beginCommandBuffer          uintptr
	endCommandBuffer            uintptr
	createSemaphore             uintptr
	destroySemaphore            uintptr
	getSemaphoreCounterValue    uintptr
	waitSemaphores              uintptr
	createFence                 uintptr
	destroyFence                uintptr
	waitForFences               uintptr
	getFenceStatus              uintptr
	resetFences                 uintptr
	createQueryPool             uintptr
	destroyQueryPool            uintptr
	getQueryPoolResults         uintptr
	createShaderModule          uintptr
	destroyShaderModule         uintptr
	createDescriptorSetLayout   uintptr
	destroyDescriptorSetLayout  uintptr
	createPipelineLayout        uintptr
	destroyPipelineLayout       uintptr
	createComputePipelines      uintptr
	destroyPipeline             uintptr
	createPipelineCache         uintptr
	destroyPipelineCache        uintptr
	getPipelineCacheData        uintptr
	createDescriptorPool        uintptr
	destroyDescriptorPool       uintptr
	resetDescriptorPool         uintptr
	allocateDescriptorSets      uintptr
	updateDescriptorSets        uintptr
	cmdResetQueryPool           uintptr
	cmdWriteTimestamp           uintptr
	cmdCopyBuffer               uintptr
	cmdFillBuffer               uintptr
	cmdPipelineBarrier          uintptr
	cmdDispatch                 uintptr
	cmdBindPipeline             uintptr
	cmdBindDescriptorSets       uintptr
	cmdPushConstants            uintptr
	cmdPushDescriptorSetKHR     uintptr
	resetQueryPool              uintptr
}

// CreateDevice is vkCreateDevice followed by resolving every device entry
// point. Timeline semaphore calls resolve from their core or KHR names; push
// descriptors only when VK_KHR_push_descriptor was enabled.
func (in *Instance) CreateDevice(pd uintptr, info *DeviceCreateInfo) (*Device, Result, error) {
	var h uintptr
	r := dl.Call(in.createDevice, pd, uintptr(unsafe.Pointer(info)), 0, uintptr(unsafe.Pointer(&h)))
	if Result(r) != Success {
		return nil, Result(r), nil
	}
	d, required := in.resolveDevice(h)
	if len(required) > 0 {
		d.Destroy()
		return nil, ErrorInitializationFailed, fmt.Errorf("the driver lacks %v", required)
	}
	return d, Success, nil
}

// AttachDevice resolves the entry points of a VkDevice created elsewhere on
// this instance (another library's view of a device it was handed): the
// result must not be destroyed by its holder.
func (in *Instance) AttachDevice(h uintptr) (*Device, error) {
	if h == 0 {
		return nil, fmt.Errorf("null VkDevice")
	}
	d, required := in.resolveDevice(h)
	if len(required) > 0 {
		return nil, fmt.Errorf("VkDevice %#x: the driver lacks %v", h, required)
	}
	return d, nil
}

// resolveDevice resolves the entry points of h through vkGetDeviceProcAddr
// and lists the required ones that are missing.
func (in *Instance) resolveDevice(h uintptr) (*Device, []string) {
	d := &Device{Handle: h}
	var missing []string
	p := func(names ...string) uintptr {
		for _, n := range names {
			f := dl.Call(in.getDeviceProcAddr, h, uintptr(unsafe.Pointer(CString(n))))
			if f != 0 {
				return f
			}
		}
		missing = append(missing, names[0])
		return 0
	}
	d.destroyDevice = p("vkDestroyDevice")
	d.getDeviceQueue = p("vkGetDeviceQueue")
	d.deviceWaitIdle = p("vkDeviceWaitIdle")
	d.queueSubmit = p("vkQueueSubmit")
	d.queueWaitIdle = p("vkQueueWaitIdle")
	d.createBuffer = p("vkCreateBuffer")
	d.destroyBuffer = p("vkDestroyBuffer")
	d.getBufferMemoryRequirements = p("vkGetBufferMemoryRequirements")
	d.bindBufferMemory = p("vkBindBufferMemory")
	d.allocateMemory = p("vkAllocateMemory")
	d.freeMemory = p("vkFreeMemory")
	d.mapMemory = p("vkMapMemory")
	d.unmapMemory = p("vkUnmapMemory")
	d.createCommandPool = p("vkCreateCommandPool")
	d.destroyCommandPool = p("vkDestroyCommandPool")
	d.allocateCommandBuffers = p("vkAllocateCommandBuffers")
	d.freeCommandBuffers = p("vkFreeCommandBuffers")
	d.resetCommandBuffer = p("vkResetCommandBuffer")
	d.beginCommandBuffer = p("vkBeginCommandBuffer")
	d.endCommandBuffer = p("vkEndCommandBuffer")
	d.createSemaphore = p("vkCreateSemaphore")
	d.destroySemaphore = p("vkDestroySemaphore")
	d.createFence = p("vkCreateFence")
	d.destroyFence = p("vkDestroyFence")
	d.waitForFences = p("vkWaitForFences")
	d.getFenceStatus = p("vkGetFenceStatus")
	d.resetFences = p("vkResetFences")
	d.createQueryPool = p("vkCreateQueryPool")
	d.destroyQueryPool = p("vkDestroyQueryPool")
	d.getQueryPoolResults = p("vkGetQueryPoolResults")
	d.createShaderModule = p("vkCreateShaderModule")
	d.destroyShaderModule = p("vkDestroyShaderModule")
	d.createDescriptorSetLayout = p("vkCreateDescriptorSetLayout")
	d.destroyDescriptorSetLayout = p("vkDestroyDescriptorSetLayout")
	d.createPipelineLayout = p("vkCreatePipelineLayout")
	d.destroyPipelineLayout = p("vkDestroyPipelineLayout")
	d.createComputePipelines = p("vkCreateComputePipelines")
	d.destroyPipeline = p("vkDestroyPipeline")
	d.createPipelineCache = p("vkCreatePipelineCache")
	d.destroyPipelineCache = p("vkDestroyPipelineCache")
	d.getPipelineCacheData = p("vkGetPipelineCacheData")
	d.createDescriptorPool = p("vkCreateDescriptorPool")
	d.destroyDescriptorPool = p("vkDestroyDescriptorPool")
	d.resetDescriptorPool = p("vkResetDescriptorPool")
	d.allocateDescriptorSets = p("vkAllocateDescriptorSets")
	d.updateDescriptorSets = p("vkUpdateDescriptorSets")
	d.cmdResetQueryPool = p("vkCmdResetQueryPool")
	d.cmdWriteTimestamp = p("vkCmdWriteTimestamp")
	d.cmdCopyBuffer = p("vkCmdCopyBuffer")
	d.cmdFillBuffer = p("vkCmdFillBuffer")
	d.cmdPipelineBarrier = p("vkCmdPipelineBarrier")
	d.cmdDispatch = p("vkCmdDispatch")
	d.cmdBindPipeline = p("vkCmdBindPipeline")
	d.cmdBindDescriptorSets = p("vkCmdBindDescriptorSets")
	d.cmdPushConstants = p("vkCmdPushConstants")
	required := missing
	missing = nil
	// Optional entry points: their absence selects a fallback.
	d.getSemaphoreCounterValue = p("vkGetSemaphoreCounterValue", "vkGetSemaphoreCounterValueKHR")
	d.waitSemaphores = p("vkWaitSemaphores", "vkWaitSemaphoresKHR")
	d.cmdPushDescriptorSetKHR = p("vkCmdPushDescriptorSetKHR")
	d.resetQueryPool = p("vkResetQueryPool", "vkResetQueryPoolEXT")
	return d, required
}

// Args is reused argument memory for the calls on hot paths: dl.Call takes
// its arguments as a variadic slice, which is allocated on every call, while
// dl.CallArgs takes a slice the caller already has. Pointer arguments stored here
// must point to memory that stays reachable (and, being heap memory, in
// place) for the call, such as fields of the struct that holds the Args.
type Args struct{ a [12]uintptr }

func (a *Args) call(fn uintptr, n int) uintptr { return dl.CallArgs(fn, a.a[:n]) }

// create calls a vkCreate* entry point of the form (device, info,
// allocator, out handle) and returns the handle.
func (d *Device) create(fn uintptr, info unsafe.Pointer) (uint64, Result) {
	var h uint64
	r := dl.Call(fn, d.Handle, uintptr(info), 0, uintptr(unsafe.Pointer(&h)))
	return h, Result(r)
}

// HasTimelineCalls reports whether the timeline semaphore calls resolved.
func (d *Device) HasTimelineCalls() bool {
	return d.getSemaphoreCounterValue != 0 && d.waitSemaphores != 0
}

// HasHostQueryReset reports whether vkResetQueryPool resolved.
func (d *Device) HasHostQueryReset() bool { return d.resetQueryPool != 0 }

// ResetQueryPool is vkResetQueryPool (host query reset).
func (d *Device) ResetQueryPool(pool uint64, first, count uint32) {
	dl.Call(d.resetQueryPool, d.Handle, uintptr(pool), uintptr(first), uintptr(count))
}

// HasPushDescriptors reports whether vkCmdPushDescriptorSetKHR resolved.
func (d *Device) HasPushDescriptors() bool { return d.cmdPushDescriptorSetKHR != 0 }

// Destroy is vkDestroyDevice.
func (d *Device) Destroy() {
	if d.destroyDevice != 0 && d.Handle != 0 {
		dl.Call(d.destroyDevice, d.Handle, 0)
	}
	d.Handle = 0
}

// Queue is vkGetDeviceQueue.
func (d *Device) Queue(family, index uint32) uintptr {
	var q uintptr
	dl.Call(d.getDeviceQueue, d.Handle, uintptr(family), uintptr(index), uintptr(unsafe.Pointer(&q)))
	return q
}

// WaitIdle is vkDeviceWaitIdle.
func (d *Device) WaitIdle() Result {
	r := dl.Call(d.deviceWaitIdle, d.Handle)
	return Result(r)
}

// QueueSubmit is vkQueueSubmit with count SubmitInfos at submits.
func (d *Device) QueueSubmit(a *Args, queue uintptr, count uint32, submits unsafe.Pointer, fence uint64) Result {
	a.a[0], a.a[1], a.a[2], a.a[3] = queue, uintptr(count), uintptr(submits), uintptr(fence)
	return Result(a.call(d.queueSubmit, 4))
}

// QueueWaitIdle is vkQueueWaitIdle.
func (d *Device) QueueWaitIdle(queue uintptr) Result {
	r := dl.Call(d.queueWaitIdle, queue)
	return Result(r)
}

// CreateBuffer is vkCreateBuffer.
func (d *Device) CreateBuffer(info *BufferCreateInfo) (uint64, Result) {
	return d.create(d.createBuffer, unsafe.Pointer(info))
}

// DestroyBuffer is vkDestroyBuffer.
func (d *Device) DestroyBuffer(b uint64) {
	dl.Call(d.destroyBuffer, d.Handle, uintptr(b), 0)
}

// BufferMemoryRequirements is vkGetBufferMemoryRequirements.
func (d *Device) BufferMemoryRequirements(b uint64, out *MemoryRequirements) {
	dl.Call(d.getBufferMemoryRequirements, d.Handle, uintptr(b), uintptr(unsafe.Pointer(out)))
}

// BindBufferMemory is vkBindBufferMemory.
func (d *Device) BindBufferMemory(b, mem, offset uint64) Result {
	r := dl.Call(d.bindBufferMemory, d.Handle, uintptr(b), uintptr(mem), uintptr(offset))
	return Result(r)
}

// AllocateMemory is vkAllocateMemory.
func (d *Device) AllocateMemory(info *MemoryAllocateInfo) (uint64, Result) {
	return d.create(d.allocateMemory, unsafe.Pointer(info))
}

// FreeMemory is vkFreeMemory.
func (d *Device) FreeMemory(mem uint64) {
	dl.Call(d.freeMemory, d.Handle, uintptr(mem), 0)
}

// MapMemory is vkMapMemory of the whole allocation of size bytes: the
// mapped memory, valid until UnmapMemory.
func (d *Device) MapMemory(mem, size uint64) ([]byte, Result) {
	var p unsafe.Pointer
	r := dl.Call(d.mapMemory, d.Handle, uintptr(mem), 0, uintptr(WholeSize), 0, uintptr(unsafe.Pointer(&p)))
	if Result(r) != Success || p == nil {
		return nil, Result(r)
	}
	return unsafe.Slice((*byte)(p), size), Success
}

// UnmapMemory is vkUnmapMemory.
func (d *Device) UnmapMemory(mem uint64) {
	dl.Call(d.unmapMemory, d.Handle, uintptr(mem))
}

// CreateCommandPool is vkCreateCommandPool.
func (d *Device) CreateCommandPool(info *CommandPoolCreateInfo) (uint64, Result) {
	return d.create(d.createCommandPool, unsafe.Pointer(info))
}

// DestroyCommandPool is vkDestroyCommandPool.
func (d *Device) DestroyCommandPool(h uint64) {
	dl.Call(d.destroyCommandPool, d.Handle, uintptr(h), 0)
}

// AllocateCommandBuffer allocates one primary command buffer from pool.
func (d *Device) AllocateCommandBuffer(pool uint64) (uintptr, Result) {
	info := CommandBufferAllocateInfo{
		SType: StructureTypeCommandBufferAllocateInfo, CommandPool: pool,
		Level: CommandBufferLevelPrimary, CommandBufferCount: 1,
	}
	var cb uintptr
	r := dl.Call(d.allocateCommandBuffers, d.Handle, uintptr(unsafe.Pointer(&info)), uintptr(unsafe.Pointer(&cb)))
	return cb, Result(r)
}

// FreeCommandBuffer is vkFreeCommandBuffers of one buffer.
func (d *Device) FreeCommandBuffer(pool uint64, cb *uintptr) {
	dl.Call(d.freeCommandBuffers, d.Handle, uintptr(pool), 1, uintptr(unsafe.Pointer(cb)))
}

// ResetCommandBuffer is vkResetCommandBuffer.
func (d *Device) ResetCommandBuffer(cb uintptr) Result {
	r := dl.Call(d.resetCommandBuffer, cb, 0)
	return Result(r)
}

// BeginCommandBuffer is vkBeginCommandBuffer.
func (d *Device) BeginCommandBuffer(a *Args, cb uintptr, info *CommandBufferBeginInfo) Result {
	a.a[0], a.a[1] = cb, uintptr(unsafe.Pointer(info))
	return Result(a.call(d.beginCommandBuffer, 2))
}

// EndCommandBuffer is vkEndCommandBuffer.
func (d *Device) EndCommandBuffer(a *Args, cb uintptr) Result {
	a.a[0] = cb
	return Result(a.call(d.endCommandBuffer, 1))
}

// CreateSemaphore is vkCreateSemaphore.
func (d *Device) CreateSemaphore(info *SemaphoreCreateInfo) (uint64, Result) {
	return d.create(d.createSemaphore, unsafe.Pointer(info))
}

// DestroySemaphore is vkDestroySemaphore.
func (d *Device) DestroySemaphore(h uint64) {
	dl.Call(d.destroySemaphore, d.Handle, uintptr(h), 0)
}

// SemaphoreCounterValue is vkGetSemaphoreCounterValue; out receives the value.
func (d *Device) SemaphoreCounterValue(a *Args, sem uint64, out *uint64) Result {
	a.a[0], a.a[1], a.a[2] = d.Handle, uintptr(sem), uintptr(unsafe.Pointer(out))
	return Result(a.call(d.getSemaphoreCounterValue, 3))
}

// WaitSemaphores is vkWaitSemaphores.
func (d *Device) WaitSemaphores(info *SemaphoreWaitInfo, timeoutNs uint64) Result {
	r := dl.Call(d.waitSemaphores, d.Handle, uintptr(unsafe.Pointer(info)), uintptr(timeoutNs))
	return Result(r)
}

// CreateFence is vkCreateFence.
func (d *Device) CreateFence(signaled bool) (uint64, Result) {
	info := FenceCreateInfo{SType: StructureTypeFenceCreateInfo}
	if signaled {
		info.Flags = FenceCreateSignaledBit
	}
	return d.create(d.createFence, unsafe.Pointer(&info))
}

// DestroyFence is vkDestroyFence.
func (d *Device) DestroyFence(h uint64) {
	dl.Call(d.destroyFence, d.Handle, uintptr(h), 0)
}

// WaitForFence is vkWaitForFences on one fence (held at *fence).
func (d *Device) WaitForFence(fence *uint64, timeoutNs uint64) Result {
	r := dl.Call(d.waitForFences, d.Handle, 1, uintptr(unsafe.Pointer(fence)), 1, uintptr(timeoutNs))
	return Result(r)
}

// FenceStatus is vkGetFenceStatus: Success when signaled, NotReady when not.
func (d *Device) FenceStatus(a *Args, fence uint64) Result {
	a.a[0], a.a[1] = d.Handle, uintptr(fence)
	return Result(a.call(d.getFenceStatus, 2))
}

// ResetFence is vkResetFences on one fence (held at *fence).
func (d *Device) ResetFence(fence *uint64) Result {
	r := dl.Call(d.resetFences, d.Handle, 1, uintptr(unsafe.Pointer(fence)))
	return Result(r)
}

// CreateQueryPool is vkCreateQueryPool.
func (d *Device) CreateQueryPool(info *QueryPoolCreateInfo) (uint64, Result) {
	return d.create(d.createQueryPool, unsafe.Pointer(info))
}

// DestroyQueryPool is vkDestroyQueryPool.
func (d *Device) DestroyQueryPool(h uint64) {
	dl.Call(d.destroyQueryPool, d.Handle, uintptr(h), 0)
}

// QueryResult64 reads one 64-bit query result (no wait): NotReady if it is
// not available yet.
func (d *Device) QueryResult64(pool uint64, query uint32, out *uint64) Result {
	r := dl.Call(d.getQueryPoolResults, d.Handle, uintptr(pool), uintptr(query), 1,
		8, uintptr(unsafe.Pointer(out)), 8, QueryResult64Bit)
	return Result(r)
}

// CreateShaderModule is vkCreateShaderModule.
func (d *Device) CreateShaderModule(info *ShaderModuleCreateInfo) (uint64, Result) {
	return d.create(d.createShaderModule, unsafe.Pointer(info))
}

// DestroyShaderModule is vkDestroyShaderModule.
func (d *Device) DestroyShaderModule(h uint64) {
	dl.Call(d.destroyShaderModule, d.Handle, uintptr(h), 0)
}

// CreateDescriptorSetLayout is vkCreateDescriptorSetLayout.
func (d *Device) CreateDescriptorSetLayout(info *DescriptorSetLayoutCreateInfo) (uint64, Result) {
	return d.create(d.createDescriptorSetLayout, unsafe.Pointer(info))
}

// DestroyDescriptorSetLayout is vkDestroyDescriptorSetLayout.
func (d *Device) DestroyDescriptorSetLayout(h uint64) {
	dl.Call(d.destroyDescriptorSetLayout, d.Handle, uintptr(h), 0)
}

// CreatePipelineLayout is vkCreatePipelineLayout.
func (d *Device) CreatePipelineLayout(info *PipelineLayoutCreateInfo) (uint64, Result) {
	return d.create(d.createPipelineLayout, unsafe.Pointer(info))
}

// DestroyPipelineLayout is vkDestroyPipelineLayout.
func (d *Device) DestroyPipelineLayout(h uint64) {
	dl.Call(d.destroyPipelineLayout, d.Handle, uintptr(h), 0)
}

// CreateComputePipeline is vkCreateComputePipelines for one pipeline.
func (d *Device) CreateComputePipeline(cache uint64, info *ComputePipelineCreateInfo) (uint64, Result) {
	var h uint64
	r := dl.Call(d.createComputePipelines, d.Handle, uintptr(cache), 1, uintptr(unsafe.Pointer(info)), 0, uintptr(unsafe.Pointer(&h)))
	return h, Result(r)
}

// DestroyPipeline is vkDestroyPipeline.
func (d *Device) DestroyPipeline(h uint64) {
	dl.Call(d.destroyPipeline, d.Handle, uintptr(h), 0)
}

// CreatePipelineCache is vkCreatePipelineCache, seeded with initial (may be
// empty).
func (d *Device) CreatePipelineCache(initial []byte) (uint64, Result) {
	info := PipelineCacheCreateInfo{SType: StructureTypePipelineCacheCreateInfo}
	if len(initial) > 0 {
		info.InitialDataSize = uintptr(len(initial))
		info.PInitialData = unsafe.Pointer(&initial[0])
	}
	return d.create(d.createPipelineCache, unsafe.Pointer(&info))
}

// DestroyPipelineCache is vkDestroyPipelineCache.
func (d *Device) DestroyPipelineCache(h uint64) {
	dl.Call(d.destroyPipelineCache, d.Handle, uintptr(h), 0)
}

// PipelineCacheData is vkGetPipelineCacheData.
func (d *Device) PipelineCacheData(h uint64) ([]byte, Result) {
	for {
		var n uintptr
		r := dl.Call(d.getPipelineCacheData, d.Handle, uintptr(h), uintptr(unsafe.Pointer(&n)), 0)
		if Result(r) != Success || n == 0 {
			return nil, Result(r)
		}
		buf := make([]byte, n)
		r = dl.Call(d.getPipelineCacheData, d.Handle, uintptr(h), uintptr(unsafe.Pointer(&n)), uintptr(unsafe.Pointer(&buf[0])))
		if Result(r) == Incomplete {
			continue
		}
		return buf[:n], Result(r)
	}
}

// CreateDescriptorPool is vkCreateDescriptorPool.
func (d *Device) CreateDescriptorPool(info *DescriptorPoolCreateInfo) (uint64, Result) {
	return d.create(d.createDescriptorPool, unsafe.Pointer(info))
}

// DestroyDescriptorPool is vkDestroyDescriptorPool.
func (d *Device) DestroyDescriptorPool(h uint64) {
	dl.Call(d.destroyDescriptorPool, d.Handle, uintptr(h), 0)
}

// ResetDescriptorPool is vkResetDescriptorPool.
func (d *Device) ResetDescriptorPool(h uint64) Result {
	r := dl.Call(d.resetDescriptorPool, d.Handle, uintptr(h), 0)
	return Result(r)
}

// AllocateDescriptorSet allocates one set; info and out live in reused memory.
func (d *Device) AllocateDescriptorSet(a *Args, info *DescriptorSetAllocateInfo, out *uint64) Result {
	a.a[0], a.a[1], a.a[2] = d.Handle, uintptr(unsafe.Pointer(info)), uintptr(unsafe.Pointer(out))
	return Result(a.call(d.allocateDescriptorSets, 3))
}

// UpdateDescriptorSets is vkUpdateDescriptorSets with writes only.
func (d *Device) UpdateDescriptorSets(a *Args, count uint32, writes unsafe.Pointer) {
	a.a[0], a.a[1], a.a[2], a.a[3], a.a[4] = d.Handle, uintptr(count), uintptr(writes), 0, 0
	a.call(d.updateDescriptorSets, 5)
}

// CmdResetQueryPool is vkCmdResetQueryPool.
func (d *Device) CmdResetQueryPool(a *Args, cb uintptr, pool uint64, first, count uint32) {
	a.a[0], a.a[1], a.a[2], a.a[3] = cb, uintptr(pool), uintptr(first), uintptr(count)
	a.call(d.cmdResetQueryPool, 4)
}

// CmdWriteTimestamp is vkCmdWriteTimestamp.
func (d *Device) CmdWriteTimestamp(a *Args, cb uintptr, stage uint32, pool uint64, query uint32) {
	a.a[0], a.a[1], a.a[2], a.a[3] = cb, uintptr(stage), uintptr(pool), uintptr(query)
	a.call(d.cmdWriteTimestamp, 4)
}

// CmdCopyBuffer is vkCmdCopyBuffer with one region.
func (d *Device) CmdCopyBuffer(a *Args, cb uintptr, src, dst uint64, region *BufferCopy) {
	a.a[0], a.a[1], a.a[2], a.a[3], a.a[4] = cb, uintptr(src), uintptr(dst), 1, uintptr(unsafe.Pointer(region))
	a.call(d.cmdCopyBuffer, 5)
}

// CmdFillBuffer is vkCmdFillBuffer.
func (d *Device) CmdFillBuffer(a *Args, cb uintptr, dst, offset, size uint64, data uint32) {
	a.a[0], a.a[1], a.a[2], a.a[3], a.a[4] = cb, uintptr(dst), uintptr(offset), uintptr(size), uintptr(data)
	a.call(d.cmdFillBuffer, 5)
}

// CmdMemoryBarrier is vkCmdPipelineBarrier with one global memory barrier.
func (d *Device) CmdMemoryBarrier(a *Args, cb uintptr, srcStage, dstStage uint32, barrier *MemoryBarrier) {
	a.a = [12]uintptr{cb, uintptr(srcStage), uintptr(dstStage), 0, 1, uintptr(unsafe.Pointer(barrier))}
	a.call(d.cmdPipelineBarrier, 10)
}

// CmdDispatch is vkCmdDispatch.
func (d *Device) CmdDispatch(a *Args, cb uintptr, x, y, z uint32) {
	a.a[0], a.a[1], a.a[2], a.a[3] = cb, uintptr(x), uintptr(y), uintptr(z)
	a.call(d.cmdDispatch, 4)
}

// CmdBindComputePipeline is vkCmdBindPipeline at the compute bind point.
func (d *Device) CmdBindComputePipeline(a *Args, cb uintptr, pipeline uint64) {
	a.a[0], a.a[1], a.a[2] = cb, PipelineBindPointCompute, uintptr(pipeline)
	a.call(d.cmdBindPipeline, 3)
}

// CmdBindDescriptorSet is vkCmdBindDescriptorSets of one set at set 0; set
// points at the handle.
func (d *Device) CmdBindDescriptorSet(a *Args, cb uintptr, layout uint64, set *uint64) {
	a.a = [12]uintptr{cb, PipelineBindPointCompute, uintptr(layout), 0, 1, uintptr(unsafe.Pointer(set)), 0, 0}
	a.call(d.cmdBindDescriptorSets, 8)
}

// CmdPushConstants is vkCmdPushConstants for the compute stage.
func (d *Device) CmdPushConstants(a *Args, cb uintptr, layout uint64, offset, size uint32, data unsafe.Pointer) {
	a.a = [12]uintptr{cb, uintptr(layout), ShaderStageComputeBit, uintptr(offset), uintptr(size), uintptr(data)}
	a.call(d.cmdPushConstants, 6)
}

// CmdPushDescriptorSet is vkCmdPushDescriptorSetKHR at set 0.
func (d *Device) CmdPushDescriptorSet(a *Args, cb uintptr, layout uint64, count uint32, writes unsafe.Pointer) {
	a.a = [12]uintptr{cb, PipelineBindPointCompute, uintptr(layout), 0, uintptr(count), uintptr(writes)}
	a.call(d.cmdPushDescriptorSetKHR, 6)
}
