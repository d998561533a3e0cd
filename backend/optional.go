package backend

// MemInfoer is implemented by devices that can report memory use.
type MemInfoer interface {
	MemInfo() (free, total int64, err error)
}

// PeerCopier is implemented by streams that can copy from a buffer of another
// device (of the same backend) directly.
type PeerCopier interface {
	CopyPeer(dst Buffer, dstOff int64, src Buffer, srcOff, n int64) error
}

// NativeHandle is implemented by objects that expose their native handle
// (CUdeviceptr, VkBuffer, GLuint, CUstream, ...), for interoperation.
type NativeHandle interface {
	NativeHandle() uintptr
}

// HostMemory is implemented by buffers whose contents live in host memory the
// calling process can address directly (the CPU and simulated backends). Go
// kernels reach their buffer arguments through it.
type HostMemory interface {
	Bytes() []byte
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
type KernelAttributer interface {
	Attributes() (KernelAttributes, error)
}

// HostCopier is implemented by streams that copy between device memory and a
// HostBuffer of their own device asynchronously, without staging: the host
// buffer must stay untouched until the stream passes the copy. Without it the
// root package uses Write and Read on the host buffer's bytes.
type HostCopier interface {
	WriteHost(dst Buffer, off int64, src HostBuffer, srcOff, n int64) error
	ReadHost(dst HostBuffer, dstOff int64, src Buffer, srcOff, n int64) error
}

// Simulator is implemented by a registered driver that can stand in for other
// backends (backend/sim). When ANYGPU_FAKE names a backend, the root package
// asks the Simulator for a driver that presents the listed presets under that
// backend's name, and uses it in place of the real one.
type Simulator interface {
	Simulate(backendName string, presets []string) (Driver, error)
}

// HostTimer is implemented by events timed on the host clock rather than by
// the device (a backend without timestamp queries). The profiler marks the
// records it times with such events as HostTimed.
type HostTimer interface {
	HostTimed() bool
}
