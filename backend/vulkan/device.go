//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
	"github.com/anygpu/gpu/errors"
)

// queue is a VkQueue; submissions to it are serialized by mu.
type queue struct {
	mu      sync.Mutex
	h       uintptr
	family  uint32
	tsBits  uint32 // timestampValidBits of the family (0: no timestamps)
	compute bool   // the family has compute (or graphics): it can reset queries
}

// device is an opened VkDevice: backend.Device.
type device struct {
	in   *instance
	pd   *physicalDevice
	vd   *vk.Device
	info backend.DeviceInfo
	opts Driver

	// mu is held for reading by every operation that uses the VkDevice and
	// for writing by Close.
	mu     sync.RWMutex
	closed bool
	lost   atomic.Pointer[error]

	compute  []*queue
	transfer []*queue
	families []uint32 // queue families buffers are shared between
	nextQ    atomic.Uint32

	timeline  bool // timeline semaphores (else a fence per submission)
	push      bool // VK_KHR_push_descriptor
	hostReset bool // queries are reset on the host (hostQueryReset)
	budget    bool // VK_EXT_memory_budget
	uma       bool // device memory is host-visible

	devMem  *allocator
	hostMem *allocator

	maxStorageRange uint64
	maxUniformRange uint64
	uniformAlign    uint64
	maxPush         uint32
	tsPeriod        float64

	objMu    sync.Mutex
	buffers  map[*buffer]struct{}
	hostBufs map[*hostBuffer]struct{}
	streams  map[*stream]struct{}
	// spareStreams are closed streams' objects for reuse; sems are every
	// timeline semaphore made, destroyed with the device.
	spareStreams []*streamRes
	sems         []*timelineSem

	graveMu sync.Mutex
	graves  []grave

	slabs   slabPool
	queries queryPool
	kern    kernelCache
	copy16  *kernel // D2D copies as a kernel (ANYGPU_VULKAN_D2D=kernel), or nil
}

var (
	_ backend.Device    = (*device)(nil)
	_ backend.MemInfoer = (*device)(nil)
)

func openDevice(in *instance, pd *physicalDevice, opts Driver) (backend.Device, error) {
	d := &device{
		in: in, pd: pd, opts: opts,
		buffers: map[*buffer]struct{}{}, hostBufs: map[*hostBuffer]struct{}{}, streams: map[*stream]struct{}{},
	}
	cf := computeFamily(pd.families)
	d.timeline = pd.timeline && !opts.NoTimeline
	tf := -1
	if d.timeline && !opts.NoTransferQueue {
		tf = transferFamily(pd.families)
	}
	var exts []string
	want := func(name string, ok bool) bool {
		if ok && pd.has(name) {
			exts = append(exts, name)
			return true
		}
		return false
	}
	d.push = want("VK_KHR_push_descriptor", !opts.NoPushDescriptors)
	want("VK_KHR_timeline_semaphore", d.timeline && !pd.atLeast(1, 2))
	want("VK_KHR_shader_float16_int8", (pd.float16 || pd.int8) && !pd.atLeast(1, 2))
	d.budget = want("VK_EXT_memory_budget", true)
	want("VK_KHR_portability_subset", true)

	// Queues: up to 4 compute queues (streams are spread over them) and 2
	// transfer queues.
	prio := []float32{1, 1, 1, 1}
	qinfos := []vk.DeviceQueueCreateInfo{{
		SType: vk.StructureTypeDeviceQueueCreateInfo, QueueFamilyIndex: uint32(cf),
		QueueCount: min(pd.families[cf].QueueCount, 4), PQueuePriorities: unsafe.Pointer(&prio[0]),
	}}
	if tf >= 0 {
		qinfos = append(qinfos, vk.DeviceQueueCreateInfo{
			SType: vk.StructureTypeDeviceQueueCreateInfo, QueueFamilyIndex: uint32(tf),
			QueueCount: min(pd.families[tf].QueueCount, 2), PQueuePriorities: unsafe.Pointer(&prio[0]),
		})
	}
	feats := &vk.PhysicalDeviceFeatures2{SType: vk.StructureTypePhysicalDeviceFeatures2}
	f := &feats.Features
	f.ShaderInt64, f.ShaderFloat64, f.ShaderInt16 = pd.features.ShaderInt64, pd.features.ShaderFloat64, pd.features.ShaderInt16
	var chain unsafe.Pointer
	timeline := &vk.PhysicalDeviceTimelineSemaphoreFeatures{SType: vk.StructureTypePhysicalDeviceTimelineSemaphoreFeatures, TimelineSemaphore: 1}
	if d.timeline {
		timeline.PNext, chain = chain, unsafe.Pointer(timeline)
	}
	f16 := &vk.PhysicalDeviceShaderFloat16Int8Features{SType: vk.StructureTypePhysicalDeviceShaderFloat16Int8Features}
	if pd.float16 || pd.int8 {
		f16.ShaderFloat16, f16.ShaderInt8 = b32(pd.float16), b32(pd.int8)
		f16.PNext, chain = chain, unsafe.Pointer(f16)
	}
	m4 := &vk.PhysicalDeviceMaintenance4Features{SType: vk.StructureTypePhysicalDeviceMaintenance4Features, Maintenance4: 1}
	if pd.maintenance4 {
		want("VK_KHR_maintenance4", !pd.atLeast(1, 3))
		m4.PNext, chain = chain, unsafe.Pointer(m4)
	}
	hqr := &vk.PhysicalDeviceHostQueryResetFeatures{SType: vk.StructureTypePhysicalDeviceHostQueryResetFeatures, HostQueryReset: 1}
	if pd.hostQueryReset && !opts.noHostQueryReset {
		want("VK_EXT_host_query_reset", !pd.atLeast(1, 2))
		hqr.PNext, chain = chain, unsafe.Pointer(hqr)
		d.hostReset = true
	}
	full := &vk.PhysicalDeviceSubgroupSizeControlFeatures{SType: vk.StructureTypePhysicalDeviceSubgroupSizeControlFeatures, ComputeFullSubgroups: 1}
	if pd.fullSubgroups {
		want("VK_EXT_subgroup_size_control", !pd.atLeast(1, 3))
		full.PNext, chain = chain, unsafe.Pointer(full)
	}
	feats.PNext = chain
	extPtrs, extKeep := vk.CStrings(exts)
	info := &vk.DeviceCreateInfo{
		SType: vk.StructureTypeDeviceCreateInfo, PNext: unsafe.Pointer(feats),
		QueueCreateInfoCount: uint32(len(qinfos)), PQueueCreateInfos: unsafe.Pointer(&qinfos[0]),
		EnabledExtensionCount: uint32(len(exts)), PpEnabledExtensionNames: extPtrs,
	}
	vd, r, err := in.vki.CreateDevice(pd.handle, info)
	runtime.KeepAlive(extKeep)
	runtime.KeepAlive(prio)
	runtime.KeepAlive(qinfos)
	if err != nil {
		return nil, &errors.Error{Backend: Name, Op: "open " + pd.info.Name, Category: errors.Initialization,
			Msg: err.Error(), Hint: "update the GPU driver: anygpu needs Vulkan 1.1 entry points it does not export"}
	}
	if r != vk.Success {
		return nil, FromVkResult(int64(r), "open "+pd.info.Name)
	}
	d.vd = vd
	if d.timeline && !vd.HasTimelineCalls() {
		d.timeline, tf = false, -1 // the queues of tf exist but stay unused
	}
	if d.push && !vd.HasPushDescriptors() {
		d.push = false
	}
	if d.hostReset && !vd.HasHostQueryReset() {
		d.hostReset = false
	}
	for i := uint32(0); i < qinfos[0].QueueCount; i++ {
		d.compute = append(d.compute, &queue{h: vd.Queue(uint32(cf), i), family: uint32(cf), tsBits: pd.families[cf].TimestampValidBits, compute: true})
	}
	d.families = []uint32{uint32(cf)}
	if tf < 0 && opts.transferOnCompute && d.timeline {
		d.transfer = []*queue{d.compute[len(d.compute)-1]}
	}
	if tf >= 0 {
		for i := uint32(0); i < qinfos[1].QueueCount; i++ {
			d.transfer = append(d.transfer, &queue{h: vd.Queue(uint32(tf), i), family: uint32(tf), tsBits: pd.families[tf].TimestampValidBits})
		}
		d.families = append(d.families, uint32(tf))
	}
	lim := &pd.props.Limits
	d.maxStorageRange = uint64(lim.MaxStorageBufferRange)
	d.maxUniformRange = uint64(lim.MaxUniformBufferRange)
	d.uniformAlign = max(lim.MinUniformBufferOffsetAlignment, 16)
	d.maxPush = lim.MaxPushConstantsSize
	d.tsPeriod = float64(lim.TimestampPeriod)
	if err := d.chooseMemory(); err != nil {
		vd.Destroy()
		return nil, err
	}
	d.slabs.d = d
	d.queries.d = d
	d.kern.init(d)

	d.info = pd.info
	if err := d.internalKernels(); err != nil {
		d.kern.destroy()
		d.slabs.destroy()
		vd.Destroy()
		return nil, err
	}
	d.info.Extra = cloneMap(pd.info.Extra)
	d.info.Features = append([]string(nil), pd.info.Features...)
	x := d.info.Extra
	x["queues"] = d.queuesString()
	x["sync"] = map[bool]string{true: "timeline semaphores", false: "fences"}[d.timeline]
	x["descriptors"] = map[bool]string{true: "push descriptors", false: "descriptor pools"}[d.push]
	x["d2d"] = map[bool]string{true: "copy kernel", false: "vkCmdCopyBuffer"}[d.copy16 != nil]
	x["query_reset"] = map[bool]string{true: "host", false: "command buffer"}[d.hostReset]
	x["device_memory_type"] = fmt.Sprint(d.devMem.typeIndex)
	x["host_memory_type"] = fmt.Sprint(d.hostMem.typeIndex)
	return d, nil
}

func b32(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func (d *device) queuesString() string {
	s := fmt.Sprintf("%d compute (family %d)", len(d.compute), d.compute[0].family)
	if len(d.transfer) > 0 {
		s += fmt.Sprintf(", %d transfer (family %d)", len(d.transfer), d.transfer[0].family)
	}
	return s
}

// chooseMemory picks the memory types of device buffers (the first
// device-local type a buffer may use) and of host buffers (host-visible and
// coherent, cached if possible, preferring system memory over a device-local
// window), and sets up their allocators.
func (d *device) chooseMemory() error {
	info := vk.BufferCreateInfo{SType: vk.StructureTypeBufferCreateInfo, Size: 4096, Usage: deviceUsage, SharingMode: vk.SharingModeExclusive}
	if len(d.families) > 1 {
		info.SharingMode = vk.SharingModeConcurrent
		info.QueueFamilyIndexCount = uint32(len(d.families))
		info.PQueueFamilyIndices = unsafe.Pointer(&d.families[0])
	}
	h, r := d.vd.CreateBuffer(&info)
	if r != vk.Success {
		return d.check(r, "open: probe buffer")
	}
	var req vk.MemoryRequirements
	d.vd.BufferMemoryRequirements(h, &req)
	d.vd.DestroyBuffer(h)
	info.Usage = hostUsage
	h, r = d.vd.CreateBuffer(&info)
	if r != vk.Success {
		return d.check(r, "open: probe buffer")
	}
	var hreq vk.MemoryRequirements
	d.vd.BufferMemoryRequirements(h, &hreq)
	d.vd.DestroyBuffer(h)

	m := &d.pd.mem
	devType, hostType := -1, -1
	for i := uint32(0); i < m.MemoryTypeCount; i++ {
		if req.MemoryTypeBits&(1<<i) != 0 && m.MemoryTypes[i].PropertyFlags&vk.MemoryPropertyDeviceLocalBit != 0 {
			devType = int(i)
			break
		}
	}
	if devType < 0 {
		for i := uint32(0); i < m.MemoryTypeCount; i++ {
			if req.MemoryTypeBits&(1<<i) != 0 {
				devType = int(i)
				break
			}
		}
	}
	score := func(fl uint32) int {
		const hv = vk.MemoryPropertyHostVisibleBit | vk.MemoryPropertyHostCoherentBit
		if fl&hv != hv {
			return -1
		}
		s := 0
		if fl&vk.MemoryPropertyHostCachedBit != 0 {
			s += 2
		}
		if fl&vk.MemoryPropertyDeviceLocalBit == 0 || d.pd.info.UnifiedMemory {
			s += 4
		}
		return s
	}
	best := -1
	for i := uint32(0); i < m.MemoryTypeCount; i++ {
		if hreq.MemoryTypeBits&(1<<i) == 0 {
			continue
		}
		if s := score(m.MemoryTypes[i].PropertyFlags); s > best {
			best, hostType = s, int(i)
		}
	}
	if devType < 0 || hostType < 0 {
		return errors.E(errors.Unavailable, Name, "open", "no usable memory types (device %d, host %d): %s", devType, hostType, memoryTypesString(m))
	}
	d.devMem = newAllocator(d, "device", uint32(devType), 64<<20)
	d.hostMem = newAllocator(d, "host", uint32(hostType), 32<<20)
	const hv = vk.MemoryPropertyHostVisibleBit | vk.MemoryPropertyHostCoherentBit
	d.uma = m.MemoryTypes[devType].PropertyFlags&hv == hv
	return nil
}

// Info describes the device.
func (d *device) Info() backend.DeviceInfo { return d.info }

// NativeHandle is the VkDevice.
func (d *device) NativeHandle() uintptr { return d.vd.Handle }

// whileOpen runs release with d.mu read-held, unless the device is closed:
// its Close released every object (a child's Close may race with it).
func (d *device) whileOpen(release func()) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if !d.closed {
		release()
	}
}

// usable reports Closed or a lost device. d.mu is held.
func (d *device) usable(op string) error {
	if d.closed {
		return &errors.Error{Backend: Name, Op: op, Category: errors.Closed, Msg: "device is closed", Hint: "open the device again"}
	}
	if p := d.lost.Load(); p != nil {
		return errors.Wrap(*p, Name, op)
	}
	return nil
}

// check converts a failed VkResult to an error, remembering a lost device.
func (d *device) check(r vk.Result, op string) error {
	err := FromVkResult(int64(r), op)
	if r == vk.ErrorDeviceLost && err != nil {
		d.lost.CompareAndSwap(nil, &err)
	}
	return err
}

// MemInfo reports free and total memory of the heap device buffers come
// from: the driver's budget where VK_EXT_memory_budget is enabled, else the
// heap minus what this device allocated.
func (d *device) MemInfo() (free, total int64, err error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if err := d.usable("mem info"); err != nil {
		return 0, 0, err
	}
	heap := d.devMem.heapIndex
	total = int64(d.devMem.heapSize)
	if d.budget {
		budget := &vk.PhysicalDeviceMemoryBudgetPropertiesEXT{SType: vk.StructureTypePhysicalDeviceMemoryBudgetPropertiesEXT}
		p2 := &vk.PhysicalDeviceMemoryProperties2{SType: vk.StructureTypePhysicalDeviceMemoryProperties2, PNext: unsafe.Pointer(budget)}
		if d.in.vki.MemoryProperties2(d.pd.handle, p2) && budget.HeapBudget[heap] > 0 {
			if budget.HeapBudget[heap] > budget.HeapUsage[heap] {
				free = int64(budget.HeapBudget[heap] - budget.HeapUsage[heap])
			}
			return min(free, total), total, nil
		}
	}
	return max(total-int64(d.devMem.total.Load()), 0), total, nil
}

// nextQueues picks the queues of a new stream, round-robin.
func (d *device) nextQueues() (compute, transfer *queue) {
	n := d.nextQ.Add(1) - 1
	compute = d.compute[int(n)%len(d.compute)]
	if len(d.transfer) > 0 {
		transfer = d.transfer[int(n)%len(d.transfer)]
	}
	return compute, transfer
}

// Close waits for the device to go idle and destroys everything it made.
func (d *device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	var errs []error
	if r := d.vd.WaitIdle(); r != vk.Success && r != vk.ErrorDeviceLost {
		errs = append(errs, FromVkResult(int64(r), "close: wait idle"))
	}
	d.objMu.Lock()
	streams := d.streams
	d.streams = map[*stream]struct{}{}
	buffers, hostBufs := d.buffers, d.hostBufs
	d.buffers, d.hostBufs = nil, nil
	d.objMu.Unlock()
	for s := range streams {
		s.destroy()
	}
	for _, res := range d.spareStreams {
		res.destroy(d)
	}
	d.spareStreams = nil
	for _, sem := range d.sems {
		d.vd.DestroySemaphore(sem.h)
	}
	d.sems = nil
	d.graveMu.Lock()
	for _, g := range d.graves {
		g.vb.destroy(d)
	}
	d.graves = nil
	d.graveMu.Unlock()
	for b := range buffers {
		b.vb.destroy(d)
	}
	for h := range hostBufs {
		h.vb.destroy(d)
	}
	d.slabs.destroy()
	d.queries.destroy()
	if err := d.kern.destroy(); err != nil {
		errs = append(errs, err)
	}
	d.devMem.destroy()
	d.hostMem.destroy()
	d.vd.Destroy()
	return errors.Join(errs...)
}

// grave is a buffer closed while streams still had work that may use it.
type grave struct {
	vb    *vkBuffer
	marks []streamMark
}

// streamMark is a point a stream must pass.
type streamMark struct {
	s     *stream
	value uint64
}

// retireBuffer destroys vb now if no stream has unfinished work, else once
// every stream has passed the work it had queued. d.mu is held.
func (d *device) retireBuffer(vb *vkBuffer) {
	var marks []streamMark
	d.objMu.Lock()
	for s := range d.streams {
		if m := s.mark.Load(); m > s.known.Load() {
			marks = append(marks, streamMark{s, m})
		}
	}
	d.objMu.Unlock()
	if len(marks) == 0 {
		vb.destroy(d)
		return
	}
	d.graveMu.Lock()
	d.graves = append(d.graves, grave{vb, marks})
	d.graveMu.Unlock()
}

// reap destroys the buffers whose streams have passed their marks. d.mu is
// held.
func (d *device) reap() {
	d.graveMu.Lock()
	defer d.graveMu.Unlock()
	kept := d.graves[:0]
	for _, g := range d.graves {
		done := true
		for _, m := range g.marks {
			if !m.s.gone.Load() && m.s.known.Load() < m.value {
				done = false
				break
			}
		}
		if done {
			g.vb.destroy(d)
			continue
		}
		kept = append(kept, g)
	}
	for i := len(kept); i < len(d.graves); i++ {
		d.graves[i] = grave{}
	}
	d.graves = kept
}

func (d *device) String() string {
	return strings.TrimSpace(fmt.Sprintf("%s (%s)", d.info.Name, d.info.APIVersion))
}
