//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
	"github.com/anygpu/gpu/errors"
)

// span is a free range of a memory block.
type span struct{ off, size uint64 }

// memBlock is one VkDeviceMemory allocation, either shared by many buffers
// (free ranges in free) or dedicated to one large buffer.
type memBlock struct {
	mem       uint64
	size      uint64
	mapped    []byte // the whole block mapped, for host-visible memory
	free      []span // sorted by offset, coalesced
	used      uint64
	dedicated bool
}

// allocator sub-allocates one memory type: requests up to a quarter of
// blockSize share blockSize blocks (first fit, coalescing frees, at most one
// empty block kept); larger ones get a dedicated allocation.
type allocator struct {
	d         *device
	name      string // "device" or "host", for messages
	typeIndex uint32
	heapIndex uint32
	heapSize  uint64
	mapped    bool // host-visible: blocks are mapped for their lifetime
	blockSize uint64
	maxAlloc  uint64

	mu     sync.Mutex
	blocks []*memBlock
	total  atomic.Uint64 // bytes of VkDeviceMemory held
}

func newAllocator(d *device, name string, typeIndex uint32, blockSize uint64) *allocator {
	t := d.pd.mem.MemoryTypes[typeIndex]
	heap := d.pd.mem.MemoryHeaps[t.HeapIndex].Size
	for blockSize > 1<<20 && blockSize > heap/8 {
		blockSize /= 2
	}
	maxAlloc := d.pd.maxAllocation
	if maxAlloc == 0 || maxAlloc > heap {
		maxAlloc = heap
	}
	return &allocator{
		d: d, name: name, typeIndex: typeIndex, heapIndex: t.HeapIndex, heapSize: heap,
		mapped: t.PropertyFlags&vk.MemoryPropertyHostVisibleBit != 0, blockSize: blockSize, maxAlloc: maxAlloc,
	}
}

func alignUp(v, a uint64) uint64 {
	if a <= 1 {
		return v
	}
	return (v + a - 1) / a * a
}

func (a *allocator) oom(size uint64, why string) error {
	return &errors.Error{Backend: Name, Op: fmt.Sprintf("alloc %s", byteSize(size)), Category: errors.OutOfMemory, Retryable: true,
		Msg:  why,
		Hint: "free buffers or use a smaller batch; Device.Pool().Trim() returns cached blocks, and MemInfo shows what is left"}
}

// allocate returns size bytes aligned to align. d.mu is held (read) by the
// caller.
func (a *allocator) allocate(size, align uint64) (*memBlock, uint64, error) {
	if size > a.maxAlloc {
		return nil, 0, a.oom(size, fmt.Sprintf("larger than the largest allocation the %s memory allows (%s)", a.name, byteSize(a.maxAlloc)))
	}
	if size > a.blockSize/4 {
		b, err := a.newBlock(size, true)
		if err != nil {
			return nil, 0, err
		}
		b.used = size
		return b, 0, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, b := range a.blocks {
		if off, ok := b.take(size, align); ok {
			return b, off, nil
		}
	}
	b, err := a.newBlock(a.blockSize, false)
	if err != nil {
		return nil, 0, err
	}
	a.blocks = append(a.blocks, b)
	off, _ := b.take(size, align)
	return b, off, nil
}

// newBlock allocates (and maps) a VkDeviceMemory of size bytes.
func (a *allocator) newBlock(size uint64, dedicated bool) (*memBlock, error) {
	if size > a.heapSize {
		return nil, a.oom(size, fmt.Sprintf("larger than the %s memory heap (%s)", a.name, byteSize(a.heapSize)))
	}
	info := vk.MemoryAllocateInfo{SType: vk.StructureTypeMemoryAllocateInfo, AllocationSize: size, MemoryTypeIndex: a.typeIndex}
	mem, r := a.d.vd.AllocateMemory(&info)
	if r != vk.Success {
		return nil, a.d.check(r, fmt.Sprintf("alloc %s", byteSize(size)))
	}
	b := &memBlock{mem: mem, size: size, dedicated: dedicated}
	if !dedicated {
		b.free = []span{{0, size}}
	}
	if a.mapped {
		p, r := a.d.vd.MapMemory(mem, size)
		if r != vk.Success {
			a.d.vd.FreeMemory(mem)
			return nil, a.d.check(r, "map memory")
		}
		b.mapped = p
	}
	a.total.Add(size)
	return b, nil
}

// take finds size bytes at align in b (first fit).
func (b *memBlock) take(size, align uint64) (uint64, bool) {
	for i, s := range b.free {
		off := alignUp(s.off, align)
		if off+size > s.off+s.size {
			continue
		}
		end := s.off + s.size
		var repl []span
		if off > s.off {
			repl = append(repl, span{s.off, off - s.off})
		}
		if off+size < end {
			repl = append(repl, span{off + size, end - off - size})
		}
		b.free = append(b.free[:i], append(repl, b.free[i+1:]...)...)
		b.used += size
		return off, true
	}
	return 0, false
}

// release returns [off, off+size) of b.
func (a *allocator) release(b *memBlock, off, size uint64) {
	if b.dedicated {
		a.freeBlock(b)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	i := sort.Search(len(b.free), func(i int) bool { return b.free[i].off > off })
	b.free = append(b.free, span{})
	copy(b.free[i+1:], b.free[i:])
	b.free[i] = span{off, size}
	// Coalesce with the neighbours.
	if i+1 < len(b.free) && b.free[i].off+b.free[i].size == b.free[i+1].off {
		b.free[i].size += b.free[i+1].size
		b.free = append(b.free[:i+1], b.free[i+2:]...)
	}
	if i > 0 && b.free[i-1].off+b.free[i-1].size == b.free[i].off {
		b.free[i-1].size += b.free[i].size
		b.free = append(b.free[:i], b.free[i+1:]...)
	}
	b.used -= size
	if b.used != 0 {
		return
	}
	// Keep one empty block for the next allocations; free the others.
	empty := 0
	for _, o := range a.blocks {
		if o.used == 0 {
			empty++
		}
	}
	if empty > 1 {
		for j, o := range a.blocks {
			if o == b {
				a.blocks = append(a.blocks[:j], a.blocks[j+1:]...)
				break
			}
		}
		a.freeBlock(b)
	}
}

func (a *allocator) freeBlock(b *memBlock) {
	if b.mapped != nil {
		a.d.vd.UnmapMemory(b.mem)
		b.mapped = nil
	}
	a.d.vd.FreeMemory(b.mem)
	a.total.Add(-b.size)
}

// trim frees the empty shared blocks.
func (a *allocator) trim() {
	a.mu.Lock()
	defer a.mu.Unlock()
	kept := a.blocks[:0]
	for _, b := range a.blocks {
		if b.used == 0 {
			a.freeBlock(b)
			continue
		}
		kept = append(kept, b)
	}
	a.blocks = kept
}

// destroy frees every block (device close).
func (a *allocator) destroy() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, b := range a.blocks {
		a.freeBlock(b)
	}
	a.blocks = nil
}

// vkBuffer is a VkBuffer bound to memory of an allocator.
type vkBuffer struct {
	h      uint64
	size   uint64 // VkBuffer size, bound whole: the request rounded up to 16 (see newVkBuffer)
	alloc  *allocator
	block  *memBlock
	off    uint64 // offset in block
	memLen uint64 // bytes taken from the block
	bytes  []byte // mapped contents (host-visible memory), len = requested size
	// borrowed marks another library's VkBuffer (Borrow): alloc and block
	// are nil, and destroy leaves the VkBuffer and its memory alone.
	borrowed bool
}

// newVkBuffer creates a VkBuffer of size bytes with usage, backed by a.
// The VkBuffer is padded to a multiple of 16 bytes: a kernel's binding is
// the whole VkBuffer, and generated kernels declare a buffer they move 4
// floats at a time as an array of 16-byte vectors, whose last partial vector
// must lie inside the binding. d.mu is held (read) by the caller.
func (d *device) newVkBuffer(a *allocator, size uint64, usage uint32) (*vkBuffer, error) {
	vsize := alignUp(max(size, 4), 16)
	if d.pd.maxBufferSize > 0 && vsize > d.pd.maxBufferSize {
		return nil, a.oom(size, fmt.Sprintf("larger than the device's largest buffer (%s)", byteSize(d.pd.maxBufferSize)))
	}
	if vsize > a.maxAlloc {
		return nil, a.oom(size, fmt.Sprintf("larger than the largest allocation the %s memory allows (%s)", a.name, byteSize(a.maxAlloc)))
	}
	info := vk.BufferCreateInfo{SType: vk.StructureTypeBufferCreateInfo, Size: vsize, Usage: usage, SharingMode: vk.SharingModeExclusive}
	if len(d.families) > 1 {
		info.SharingMode = vk.SharingModeConcurrent
		info.QueueFamilyIndexCount = uint32(len(d.families))
		info.PQueueFamilyIndices = unsafe.Pointer(&d.families[0])
	}
	h, r := d.vd.CreateBuffer(&info)
	if r != vk.Success {
		return nil, d.check(r, "create buffer")
	}
	var req vk.MemoryRequirements
	d.vd.BufferMemoryRequirements(h, &req)
	if req.MemoryTypeBits&(1<<a.typeIndex) == 0 {
		d.vd.DestroyBuffer(h)
		return nil, errors.E(errors.Internal, Name, "create buffer", "memory type %d cannot back a buffer (allowed types 0x%x)", a.typeIndex, req.MemoryTypeBits)
	}
	block, off, err := a.allocate(req.Size, max(req.Alignment, 16))
	if err != nil {
		d.vd.DestroyBuffer(h)
		return nil, err
	}
	if r := d.vd.BindBufferMemory(h, block.mem, off); r != vk.Success {
		d.vd.DestroyBuffer(h)
		a.release(block, off, req.Size)
		return nil, d.check(r, "bind buffer memory")
	}
	b := &vkBuffer{h: h, size: vsize, alloc: a, block: block, off: off, memLen: req.Size}
	if block.mapped != nil {
		b.bytes = block.mapped[off : off+uint64(size) : off+uint64(size)]
	}
	return b, nil
}

// destroy destroys the VkBuffer and returns its memory; a borrowed one is
// only forgotten. d.mu is held.
func (b *vkBuffer) destroy(d *device) {
	if b.borrowed {
		return
	}
	d.vd.DestroyBuffer(b.h)
	b.alloc.release(b.block, b.off, b.memLen)
	b.bytes = nil
}

// buffer is device memory: backend.Buffer.
type buffer struct {
	d    *device
	vb   *vkBuffer
	size int64
}

var (
	_ backend.Buffer       = (*buffer)(nil)
	_ backend.NativeHandle = (*buffer)(nil)
)

// Size is the requested size in bytes.
func (b *buffer) Size() int64 { return b.size }

// NativeHandle is the VkBuffer (its own, bound at offset 0 of the buffer).
func (b *buffer) NativeHandle() uintptr { return uintptr(b.vb.h) }

// Close destroys the buffer. Work still queued that uses it must be done:
// the root package's pools return buffers only after synchronizing.
func (b *buffer) Close() error {
	d := b.d
	d.whileOpen(func() {
		d.objMu.Lock()
		delete(d.buffers, b)
		d.objMu.Unlock()
		d.retireBuffer(b.vb)
	})
	return nil
}

// hostBuffer is host-visible, coherent memory: backend.HostBuffer.
type hostBuffer struct {
	d  *device
	vb *vkBuffer
}

var _ backend.HostBuffer = (*hostBuffer)(nil)

// Bytes is the mapped memory.
func (h *hostBuffer) Bytes() []byte { return h.vb.bytes }

// NativeHandle is the VkBuffer.
func (h *hostBuffer) NativeHandle() uintptr { return uintptr(h.vb.h) }

// Close destroys the host buffer.
func (h *hostBuffer) Close() error {
	d := h.d
	d.whileOpen(func() {
		d.objMu.Lock()
		delete(d.hostBufs, h)
		d.objMu.Unlock()
		d.retireBuffer(h.vb)
	})
	return nil
}

const deviceUsage = vk.BufferUsageStorageBufferBit | vk.BufferUsageUniformBufferBit |
	vk.BufferUsageTransferSrcBit | vk.BufferUsageTransferDstBit

const hostUsage = vk.BufferUsageTransferSrcBit | vk.BufferUsageTransferDstBit |
	vk.BufferUsageStorageBufferBit | vk.BufferUsageUniformBufferBit

// Alloc creates a device-local buffer of size bytes.
func (d *device) Alloc(size int64) (backend.Buffer, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if err := d.usable("alloc"); err != nil {
		return nil, err
	}
	vb, err := d.newVkBuffer(d.devMem, uint64(size), deviceUsage)
	if err != nil {
		return nil, err
	}
	b := &buffer{d: d, vb: vb, size: size}
	d.objMu.Lock()
	d.buffers[b] = struct{}{}
	d.objMu.Unlock()
	return b, nil
}

// AllocHost creates a host-visible, coherent, mapped buffer of size bytes.
func (d *device) AllocHost(size int64) (backend.HostBuffer, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if err := d.usable("alloc host"); err != nil {
		return nil, err
	}
	vb, err := d.newVkBuffer(d.hostMem, uint64(size), hostUsage)
	if err != nil {
		return nil, err
	}
	h := &hostBuffer{d: d, vb: vb}
	d.objMu.Lock()
	d.hostBufs[h] = struct{}{}
	d.objMu.Unlock()
	return h, nil
}
