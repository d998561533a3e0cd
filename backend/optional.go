package backend

// Optional interfaces. The root package finds each by type assertion on the
// object a backend returned, and says below what it does when the object does
// not implement it. The contract of the package doc holds for their methods
// too; each lists what the root guarantees beyond it.

// MemInfoer is implemented by devices that can report memory use. Without it,
// the root's Device.MemInfo returns an error of category NotSupported, with
// DeviceInfo.MemoryBytes as the total.
type MemInfoer interface {
	MemInfo() (free, total int64, err error)
}

// PeerEnabler is implemented by devices that can map the memory of another
// device of the same backend for direct access (CUDA: cuCtxEnablePeerAccess,
// over NVLink or PCIe). After EnablePeer, copies this device makes from
// other's memory go peer to peer. Enabling twice is not an error; two devices
// that cannot reach each other give an error of category NotSupported.
//
// The root calls it only from OpenAll, right after opening the devices and
// before using them, with other an open device of the same backend that this
// device's DeviceInfo.Peers lists. Without it, OpenAll enables nothing and
// cross-device copies are whatever PeerCopier (or the staged path) does.
type PeerEnabler interface {
	EnablePeer(other Device) error
}

// NativeRunner is implemented by devices whose native API makes a context
// current per OS thread (CUDA). RunNative runs f on a locked OS thread with
// the device's context current, so that native libraries called from f (NCCL,
// cuBLAS) act on this device. f is never nil. Without it, the root's
// Device.RunNative runs f on a locked OS thread and makes nothing current.
type NativeRunner interface {
	RunNative(f func() error) error
}

// NativeHandle is implemented by buffers and streams that expose their native
// handle (CUdeviceptr, VkBuffer, GLuint, CUstream, ...), for interoperation.
// Without it, the root's Buffer.NativeHandle and Stream.NativeHandle return an
// error of category NotSupported.
type NativeHandle interface {
	NativeHandle() uintptr
}

// HostMemory is implemented by buffers whose contents live in host memory the
// calling process can address directly (the CPU and simulated backends). Go
// kernels reach their buffer arguments through it (Arg.Bytes). The root
// package itself does not use it: without it, a Go kernel sees nil buffers.
type HostMemory interface {
	Bytes() []byte
}

// HostCopier is implemented by streams that copy between device memory and a
// HostBuffer of their own device asynchronously, without staging: the host
// buffer must stay untouched until the stream passes the copy. The root
// guarantees that the host buffer is the backend's own, open, of the stream's
// device, and that both ranges are in range (see the package doc). Without
// it, the root's Stream.WriteHost and Stream.ReadHost call Write and Read
// with the host buffer's bytes.
type HostCopier interface {
	WriteHost(dst Buffer, off int64, src HostBuffer, srcOff, n int64) error
	ReadHost(dst HostBuffer, dstOff int64, src Buffer, srcOff, n int64) error
}

// PeerCopier is implemented by streams that can copy from a buffer of another
// device of the same backend directly. The root guarantees that dst is an
// open buffer of the stream's device, src an open buffer of another device
// opened through a driver of the same name, and both ranges in range with
// n > 0. Without it, the root's Stream.Copy between devices reads the source
// on its device, waits for it, and writes it here: a synchronous copy through
// the host, counted in Stats.Fallbacks.
type PeerCopier interface {
	CopyPeer(dst Buffer, dstOff int64, src Buffer, srcOff, n int64) error
}

// PeerWaiter is implemented by streams that can make their later work wait,
// on the device, for an event recorded on a stream of another device of the
// same backend (CUDA: cuStreamWaitEvent accepts an event of another context).
// The root guarantees that e is open and of another device of the same
// backend. Without it, the root's Stream.Wait waits for such an event on the
// host, counted in Stats.Fallbacks.
type PeerWaiter interface {
	WaitPeer(e Event) error
}

// ArgsCopier is implemented by streams whose Launch is done with its argument
// slice once it returns (the CUDA backend copies the arguments into its
// parameter block), so that the root may pass the slice in memory it reuses
// for the next launch. The root asks once, when it creates the stream;
// returning false is the same as not implementing it. Without it, the root
// allocates a fresh argument slice for every launch, which the backend may
// keep until the launch has run.
type ArgsCopier interface {
	LaunchCopiesArgs() bool
}

// HostTimer is implemented by events timed on the host clock rather than by
// the device (a backend without timestamp queries). The profiler marks the
// records it times with such events as HostTimed. Without it, records are
// taken as timed by the device.
type HostTimer interface {
	HostTimed() bool
}

// KernelAttributes describes the resources a compiled kernel uses; it feeds the
// occupancy calculator.
type KernelAttributes struct {
	Registers          int // registers per thread
	SharedMemBytes     int // static shared memory per block
	LocalMemBytes      int // local (spill) memory per thread
	ConstMemBytes      int // constant memory
	MaxThreadsPerBlock int // the most threads per block this kernel can launch with
	MaxDynamicShared   int // the most dynamic shared memory per block
	// WorkGroupSize is the block size fixed in the source (GLSL local_size,
	// WGSL @workgroup_size), zero when the launch chooses it.
	WorkGroupSize Dim3
}

// KernelAttributer is implemented by kernels that can report their resources.
// Without it, the root's Kernel.Attributes returns an error of category
// NotSupported and the profiler records no occupancy.
type KernelAttributer interface {
	Attributes() (KernelAttributes, error)
}

// Simulator is implemented by a registered driver that can stand in for other
// backends (backend/sim). When ANYGPU_FAKE names a backend, the root package
// asks the Simulator for a driver that presents the listed presets under that
// backend's name, and uses it in place of the real one. Without a registered
// Simulator, a set ANYGPU_FAKE makes Open fail, and Probe report every
// backend, with category Unavailable.
type Simulator interface {
	Simulate(backendName string, presets []string) (Driver, error)
}

// UncachedCompiler is implemented by a Module whose compile the backend's
// kernel cache could neither serve nor keep (a CUDA program with a computed
// #include, say): UncachedReason says why ("" when it was cached), and the
// root package logs it, so a program that compiles on every run is
// explained.
type UncachedCompiler interface {
	UncachedReason() string
}

// LaunchOptions are what a launch asks for beyond its geometry and
// arguments.
type LaunchOptions struct {
	// SharedMemBytes is the dynamic shared (threadgroup) memory per block.
	// The root has checked it against the device's limit
	// (DeviceInfo.SharedMemPerBlockOptin, else SharedMemPerBlock) less the
	// kernel's static shared memory, where it knows them.
	SharedMemBytes int
	// Cooperative asks that every block of the grid be resident at once, so
	// that they may synchronise with each other (CUDA:
	// cuLaunchCooperativeKernel).
	Cooperative bool
}

// OptionLauncher is implemented by streams that launch with LaunchOptions.
// LaunchWithOptions is Launch (with its guarantees) plus the options; an
// option the device cannot honour is an error of category NotSupported, an
// amount it cannot give InvalidArgument, never a fault. Without it, the root
// refuses a launch with options with NotSupported.
type OptionLauncher interface {
	LaunchWithOptions(k Kernel, grid, block Dim3, args []Arg, opts LaunchOptions) error
}

// Borrower is implemented by devices that can use memory another library
// allocated: Borrow wraps the native handle (a CUdeviceptr on CUDA) of size
// bytes as a Buffer without copying, after checking what the native API can
// tell (that it is memory of this device, at least size bytes long). The
// Buffer's Close frees nothing; the device's Close leaves it alone. Without
// it, the root's Device.Borrow is NotSupported.
type Borrower interface {
	Borrow(handle uintptr, size int64) (Buffer, error)
}

// NativeDevice is a device's native handles, for native libraries that act
// on the same device: they create objects on it (a VkBuffer to hand to
// Device.Borrow) or share its context. A field the backend has no such
// handle for is zero.
type NativeDevice struct {
	// Instance is the VkInstance (Vulkan).
	Instance uintptr
	// PhysicalDevice is the VkPhysicalDevice (Vulkan).
	PhysicalDevice uintptr
	// Device is the VkDevice (Vulkan), the CUdevice (CUDA: the driver's
	// ordinal of the GPU) or the id<MTLDevice> (Metal).
	Device uintptr
	// Context is the CUcontext (CUDA: the GPU's primary context, which the
	// device holds a reference to).
	Context uintptr
	// APIVersion is the Vulkan version the device may be used at, the
	// lower of the instance's and the device's (VK_MAKE_API_VERSION), for
	// libraries that ask for it (Vulkan).
	APIVersion uint32
	// QueueFamily is the index of the queue family that runs the device's
	// kernels (Vulkan).
	QueueFamily uint32
	// QueueFamilies are the queue families the device's streams use
	// (Vulkan): the compute family first, then a transfer family where the
	// device has one. A VkBuffer to borrow must be shared between them
	// (VK_SHARING_MODE_CONCURRENT) when there are more than one.
	QueueFamilies []uint32
}

// NativeDeviceProvider is implemented by devices that expose their native
// handles. The root calls it only on an open device and hands the caller a
// copy (QueueFamilies cloned). Without it, the root's Device.NativeDevice
// returns an error of category NotSupported.
type NativeDeviceProvider interface {
	NativeDevice() NativeDevice
}

// MatMuler is implemented by streams that multiply matrices with a vendor
// library (CUDA: cuBLASLt), on the stream, in order with its other work. A
// stream whose library is missing, has no kernel for the argument types or
// cannot apply the activation (MatMulArgs.Act) returns an error of category
// NotSupported without enqueueing anything; callers then use a kernel of
// their own. The root guarantees what MatMulArgs says. Without it, the
// root's Stream.MatMul returns NotSupported.
type MatMuler interface {
	MatMul(m MatMulArgs) error
}

// GraphCapturer is implemented by streams that record their work into a
// native graph (CUDA: stream capture into a CUDA graph). Between
// BeginCapture and EndCapture the root calls only Launch,
// LaunchWithOptions, Copy (within the device), Fill and MatMul on the
// stream, which the backend records instead of running; the root refuses
// everything else on it (host transfers, Record, Wait, Synchronize) before
// the backend sees it. BeginCapture on a stream whose driver cannot capture
// (missing entry points) returns an error of category NotSupported and
// changes nothing: the root then records the operations itself and replays
// them one by one. EndCapture ends the capture whether or not it succeeds,
// and returns the graph ready to launch. Without it, the root records.
type GraphCapturer interface {
	BeginCapture() error
	EndCapture() (Graph, error)
}

// Graph is recorded work (GraphCapturer.EndCapture). Launch enqueues all of
// it on s, a stream of the same device (it may be another stream than the
// one captured), as one submission; the root calls it only while the graph
// is open and s is not capturing. The root keeps every buffer the recorded
// work uses open until Close has returned; Close may be called while
// launches are still running on the device (the driver defers the release).
type Graph interface {
	Launch(s Stream) error
	Close() error
}
