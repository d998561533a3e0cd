package backend

import (
	"context"
	"time"
)

// Driver is a backend's entry point, registered with Register.
type Driver interface {
	// Name is the backend's short name: "cuda", "vulkan", "cpu", ...
	Name() string
	// Probe lists the devices the backend can open, without keeping anything
	// open. It must return (never crash) when the native library, driver or
	// device is missing; the error says why (category Unavailable, or wrapping
	// ErrNotCompiled when the backend was left out of this build).
	Probe(ctx context.Context) ([]DeviceInfo, error)
	// Open opens the device with the given ordinal (an index into Probe's list).
	Open(ctx context.Context, ordinal int) (Device, error)
}

// Device is one opened device. Like every object of this package it is used
// under the contract of the package doc: the root has checked the arguments,
// calls Close at most once, and uses no object of the device after its Close.
type Device interface {
	// Info describes the device; the root reads it once, when it opens the
	// device, and checks launches against its limits.
	Info() DeviceInfo
	// Alloc allocates size > 0 bytes of device memory. Contents are undefined.
	Alloc(size int64) (Buffer, error)
	// AllocHost allocates size > 0 bytes of host memory the device transfers
	// from fastest (pinned, page-locked, or host-visible coherent memory).
	AllocHost(size int64) (HostBuffer, error)
	// NewStream creates a stream; the root creates the default one when it
	// opens the device.
	NewStream() (Stream, error)
	// Compile compiles the dialect of src the backend runs: NotSupported,
	// naming the dialect, when src lacks it; Compilation, with the compiler's
	// log, when it does not compile.
	Compile(ctx context.Context, src Source, opts CompileOptions) (Module, error)
	// Close releases the device and whatever its objects still hold. The root
	// has closed the device's streams and its pools' free buffers before.
	Close() error
}

// Buffer is device memory.
type Buffer interface {
	Size() int64
	Close() error
}

// HostBuffer is host memory allocated for fast transfers.
type HostBuffer interface {
	Bytes() []byte
	Close() error
}

// Stream is an ordered queue of device work. Every method may enqueue and
// return before the work is done. The root package guarantees that buffers
// are the backend's own, open and of the stream's device, that offsets and
// sizes are in range, and that n > 0 (the package doc lists it all).
type Stream interface {
	// Write copies src to dst at off. When Write returns, src may be reused:
	// a backend that cannot finish the copy at once stages src first.
	Write(dst Buffer, off int64, src []byte) error
	// Read copies from src at off into dst. dst is written when the stream
	// reaches this point; the caller synchronizes before reading it.
	Read(dst []byte, src Buffer, off int64) error
	Copy(dst Buffer, dstOff int64, src Buffer, srcOff, n int64) error
	// Fill sets n bytes at off (both multiples of 4) to the repeated 32-bit
	// value v.
	Fill(dst Buffer, off, n int64, v uint32) error
	// Launch enqueues k, a kernel of this device, over grid groups of block
	// threads, both within the device's limits. args match the kernel's
	// Params where the Source declares them. args is freshly built for this
	// call, so the backend may keep it until the launch has run, unless the
	// stream is an ArgsCopier.
	Launch(k Kernel, grid, block Dim3, args []Arg) error
	// Record enqueues an event that completes when the work before it does.
	Record() (Event, error)
	// Wait makes work enqueued after it wait for e, an event of the same
	// device, possibly of another stream.
	Wait(e Event) error
	// Synchronize waits for all enqueued work, or for ctx. It returns the
	// first asynchronous error the stream met since the last Synchronize.
	Synchronize(ctx context.Context) error
	Close() error
}

// Event marks a point in a stream.
type Event interface {
	Synchronize(ctx context.Context) error
	Done() (bool, error)
	// Elapsed is the device time from start, an event of the same device, to
	// this event. The root does not check that both have completed: the
	// backend returns an error when either has not.
	Elapsed(start Event) (time.Duration, error)
	Close() error
}

// Module is compiled device code.
type Module interface {
	// Kernel returns the entry point called name, or an error when the module
	// has none; the root keeps the kernels it got.
	Kernel(name string) (Kernel, error)
	Close() error
}

// Kernel is an entry point of a Module.
type Kernel interface {
	Name() string
}

// CompileOptions are the backend-neutral compile settings; Flags passes extra
// options straight to the native compiler (NVRTC, glslang, ...).
type CompileOptions struct {
	Defines  map[string]string // preprocessor macros (NAME -> value; "" for a bare define)
	FastMath bool              // allow reassociation and approximate math
	Debug    bool              // line information, no optimisation where the compiler allows
	Arch     string            // target architecture ("sm_90"); the device's when empty
	Flags    []string          // native compiler flags

	// IncludePaths are searched by #include, in order, before the
	// compiler's own directories (CUDA: before the CUDA headers).
	IncludePaths []string
	// Headers are in-memory headers: include name -> content.
	Headers map[string]string
	// KernelNames are C++ names of entry points (template instantiations
	// such as "softmax<float, 128>", functions not declared extern "C")
	// that Module.Kernel will be asked for (CUDA: NVRTC name expressions).
	KernelNames []string
	// MaxRegisters caps the registers per thread; 0 = no cap.
	MaxRegisters int
	// MaxThreadsPerBlock is the launch bound: the compiler limits registers
	// so that blocks of this many threads can run; 0 = none.
	MaxThreadsPerBlock int
	// OptLevel is the device code optimisation level, 0 (none) to 4 (the
	// most, the default); nil = the compiler's default.
	OptLevel *int
}
