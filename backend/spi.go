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

// Device is one opened device.
type Device interface {
	Info() DeviceInfo
	// Alloc allocates size > 0 bytes of device memory. Contents are undefined.
	Alloc(size int64) (Buffer, error)
	// AllocHost allocates size > 0 bytes of host memory the device transfers
	// from fastest (pinned, page-locked, or host-visible coherent memory).
	AllocHost(size int64) (HostBuffer, error)
	NewStream() (Stream, error)
	Compile(ctx context.Context, src Source, opts CompileOptions) (Module, error)
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
// return before the work is done. The root package guarantees that offsets and
// sizes are in range and that n > 0.
type Stream interface {
	// Write copies src to dst at off. When Write returns, src may be reused:
	// a backend that cannot finish the copy at once stages src first.
	Write(dst Buffer, off int64, src []byte) error
	// Read copies from src at off into dst. dst is written when the stream
	// reaches this point; the caller synchronizes before reading it.
	Read(dst []byte, src Buffer, off int64) error
	Copy(dst Buffer, dstOff int64, src Buffer, srcOff, n int64) error
	// Fill sets n bytes (a multiple of 4) at off to the repeated 32-bit value v.
	Fill(dst Buffer, off, n int64, v uint32) error
	// Launch enqueues k. args is freshly built for this call: the backend may
	// keep it until the launch has run.
	Launch(k Kernel, grid, block Dim3, args []Arg) error
	// Record enqueues an event that completes when the work before it does.
	Record() (Event, error)
	// Wait makes work enqueued after it wait for e, which may come from
	// another stream of the same device.
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
	// Elapsed is the device time from start to this event; both must be done.
	Elapsed(start Event) (time.Duration, error)
	Close() error
}

// Module is compiled device code.
type Module interface {
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
}
