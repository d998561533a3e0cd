//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/vulkan"
	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
)

// foreignBuffer is a VkBuffer with host-visible memory that the test creates
// on the device's handles as another library would.
type foreignBuffer struct {
	vd     *vk.Device
	buf    uint64
	mem    uint64
	mapped []byte
	size   uint64
}

// newForeignBuffer creates, binds and maps a VkBuffer of size bytes with
// vulkan.BorrowUsage on the VkDevice of nd, through the loader of its own.
func newForeignBuffer(t *testing.T, nd gpu.NativeDevice, size uint64) *foreignBuffer {
	t.Helper()
	lib, err := vk.Load([]string{"libvulkan.so.1", "vulkan-1.dll", "libvulkan.1.dylib"})
	require.NoError(t, err)
	in, err := lib.AttachInstance(nd.Instance)
	require.NoError(t, err)
	vd, err := in.AttachDevice(nd.Device)
	require.NoError(t, err)
	info := vk.BufferCreateInfo{SType: vk.StructureTypeBufferCreateInfo, Size: size, Usage: vulkan.BorrowUsage, SharingMode: vk.SharingModeExclusive}
	if len(nd.QueueFamilies) > 1 {
		info.SharingMode = vk.SharingModeConcurrent
		info.QueueFamilyIndexCount = uint32(len(nd.QueueFamilies))
		info.PQueueFamilyIndices = unsafe.Pointer(&nd.QueueFamilies[0])
	}
	buf, r := vd.CreateBuffer(&info)
	require.Equal(t, vk.Success, r)
	var req vk.MemoryRequirements
	vd.BufferMemoryRequirements(buf, &req)
	var props vk.PhysicalDeviceMemoryProperties
	in.MemoryProperties(nd.PhysicalDevice, &props)
	const hv = vk.MemoryPropertyHostVisibleBit | vk.MemoryPropertyHostCoherentBit
	typeIndex := -1
	for i := uint32(0); i < props.MemoryTypeCount; i++ {
		if req.MemoryTypeBits&(1<<i) != 0 && props.MemoryTypes[i].PropertyFlags&hv == hv {
			typeIndex = int(i)
			break
		}
	}
	if typeIndex < 0 {
		vd.DestroyBuffer(buf)
		t.Skip("no host-visible coherent memory type for a storage buffer")
	}
	mem, r := vd.AllocateMemory(&vk.MemoryAllocateInfo{SType: vk.StructureTypeMemoryAllocateInfo, AllocationSize: req.Size, MemoryTypeIndex: uint32(typeIndex)})
	require.Equal(t, vk.Success, r)
	require.Equal(t, vk.Success, vd.BindBufferMemory(buf, mem, 0))
	mapped, r := vd.MapMemory(mem, size)
	require.Equal(t, vk.Success, r)
	return &foreignBuffer{vd: vd, buf: buf, mem: mem, mapped: mapped, size: size}
}

// free destroys the buffer and frees its memory, as its owner does.
func (f *foreignBuffer) free() {
	f.vd.UnmapMemory(f.mem)
	f.vd.DestroyBuffer(f.buf)
	f.vd.FreeMemory(f.mem)
}

func (f *foreignBuffer) floats() []float32 {
	out := make([]float32, f.size/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(f.mapped[4*i:]))
	}
	return out
}

// TestBorrowForeignVkBuffer: a VkBuffer another library made on the
// device's VkDevice is written, read, filled and used by built-in kernels in
// place through Device.Borrow; closing the borrowed Buffer leaves the
// VkBuffer and its memory to their owner.
func TestBorrowForeignVkBuffer(t *testing.T) {
	dev := openDevice(t)
	ctx := context.Background()
	nd, err := dev.NativeDevice()
	require.NoError(t, err)
	require.NotZero(t, nd.Instance)
	require.NotZero(t, nd.PhysicalDevice)
	require.NotZero(t, nd.Device)
	require.NotEmpty(t, nd.QueueFamilies)
	require.Equal(t, nd.QueueFamily, nd.QueueFamilies[0])

	const n = 1024
	f := newForeignBuffer(t, nd, 4*n)
	defer f.free()
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(f.mapped[4*i:], math.Float32bits(float32(i)))
	}

	b, err := dev.Borrow(uintptr(f.buf), 4*n)
	require.NoError(t, err)
	require.True(t, b.Borrowed())
	h, err := b.NativeHandle()
	require.NoError(t, err)
	require.Equal(t, uintptr(f.buf), h, "the borrowed buffer is the owner's VkBuffer")

	// Read sees what the owner wrote through its own mapping.
	got, err := gpu.ToSlice[float32](ctx, b)
	require.NoError(t, err)
	require.Equal(t, f.floats(), got)

	mod, err := dev.Compile(ctx, kernels.Source())
	require.NoError(t, err)
	defer mod.Close()
	fill, err := mod.Kernel(kernels.OpFill)
	require.NoError(t, err)
	axpy, err := mod.Kernel(kernels.OpAxpy)
	require.NoError(t, err)
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(3 * i)
	}
	x, err := gpu.FromSlice(ctx, dev, xs)
	require.NoError(t, err)
	defer x.Close()
	live := dev.Stats().LiveBytes

	st := dev.DefaultStream()
	grid, block := gpu.D1((n+63)/64), gpu.D1(64)
	require.NoError(t, st.Launch(fill, grid, block, gpu.Buf(b), gpu.U32(n), gpu.F32(2)))
	require.NoError(t, st.Launch(axpy, grid, block, gpu.Buf(b), gpu.Buf(x), gpu.U32(n), gpu.F32(0.5)))
	// A write and a device-to-device copy into the borrowed buffer: the
	// first 16 floats become 100.., then floats 16..31 a copy of x's first.
	head := make([]float32, 16)
	for i := range head {
		head[i] = float32(100 + i)
	}
	require.NoError(t, gpu.Upload(st, b, head))
	require.NoError(t, st.Copy(b, 64, x, 0, 64))
	require.NoError(t, st.Synchronize(ctx))

	want := make([]float32, n)
	for i := range want {
		want[i] = 2 + 0.5*xs[i]
	}
	copy(want, head)
	copy(want[16:32], xs[:16])
	got, err = gpu.ToSlice[float32](ctx, b)
	require.NoError(t, err)
	require.Equal(t, want, got, "read back through the borrowed buffer")
	require.Equal(t, want, f.floats(), "the owner's memory holds the results (no copy)")
	require.Equal(t, live, dev.Stats().LiveBytes, "borrowed memory is not counted")

	require.NoError(t, b.Close())
	// The VkBuffer is still the owner's and usable: borrow it again.
	require.Equal(t, want, f.floats(), "closing the borrowed buffer leaves the memory alone")
	again, err := dev.Borrow(uintptr(f.buf), 4*n)
	require.NoError(t, err)
	require.NoError(t, st.Fill(again, 0, 16, 0x3f800000))
	require.NoError(t, st.Synchronize(ctx))
	require.Equal(t, []float32{1, 1, 1, 1}, f.floats()[:4])
	require.NoError(t, again.Close())
	requireNoValidationMessages(t)
}

// TestBorrowVkBufferChecks: what Borrow can check about a VkBuffer it is
// handed.
func TestBorrowVkBufferChecks(t *testing.T) {
	dev := openDevice(t)
	nd, err := dev.NativeDevice()
	require.NoError(t, err)
	f := newForeignBuffer(t, nd, 4096)
	defer f.free()
	for _, tc := range []struct {
		name string
		size int64
		cat  errors.Category
	}{
		{"the whole buffer", 4096, errors.None},
		{"a prefix", 256, errors.None},
		{"larger than the buffer", 4096 + 1<<20, errors.InvalidArgument},
		{"no size", 0, errors.InvalidArgument},
	} {
		b, err := dev.Borrow(uintptr(f.buf), tc.size)
		if tc.cat == errors.None {
			require.NoError(t, err, tc.name)
			require.Equal(t, tc.size, b.Size(), tc.name)
			require.NoError(t, b.Close(), tc.name)
			continue
		}
		require.Error(t, err, tc.name)
		require.Equal(t, tc.cat, errors.CategoryOf(err), "%s: %v", tc.name, err)
		require.NotEmpty(t, errors.Hint(err), tc.name)
	}
	requireNoValidationMessages(t)
}

// TestBorrowedVkBufferTransfers: writes and reads of a borrowed VkBuffer,
// small (one staging slab) and large (the pipelined path, 4 MiB and up),
// land in and come from the owner's memory.
func TestBorrowedVkBufferTransfers(t *testing.T) {
	dev := openDevice(t)
	nd, err := dev.NativeDevice()
	require.NoError(t, err)
	for _, size := range []int{4 << 10, 9<<20 + 16} {
		f := newForeignBuffer(t, nd, uint64(size))
		b, err := dev.Borrow(uintptr(f.buf), int64(size))
		require.NoError(t, err)
		src := make([]byte, size)
		for i := range src {
			src[i] = byte(i*7 + i>>12)
		}
		_, err = b.WriteAt(src, 0)
		require.NoError(t, err, "write %d bytes", size)
		require.Equal(t, src, f.mapped, "the write of %d bytes reached the owner's memory", size)
		for i := range f.mapped {
			f.mapped[i] ^= 0x5a
		}
		back := make([]byte, size)
		_, err = b.ReadAt(back, 0)
		require.NoError(t, err, "read %d bytes", size)
		require.Equal(t, f.mapped, back, "the read of %d bytes came from the owner's memory", size)
		require.NoError(t, b.Close())
		f.free()
	}
	requireNoValidationMessages(t)
}
