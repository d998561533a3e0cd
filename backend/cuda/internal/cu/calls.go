package cu

import (
	"unsafe"

	"github.com/anygpu/gpu/internal/dl"
)

// Frame is reusable memory for the arguments of a driver call.
// purego.SyscallN is go:uintptrescapes, so the argument array of a plain
// call moves to the heap, one allocation per call; the hot-path wrappers
// (those taking a *Frame) put their arguments in a Frame the caller reuses
// instead, and allocate nothing. A Frame is used by one goroutine at a time.
// Their arguments are handles, integers and pointers to memory that does not
// move (C memory, or Go heap memory the caller keeps alive). In builds with
// cgo on Linux a Frame's call goes through a C trampoline instead of purego
// (frame_cgo.go).
type Frame struct {
	a   [frameWords]uintptr
	out uintptr // a result the driver writes (CtxGetCurrent's)
}

// frameWords is the number of argument words of a Frame: the most any
// driver call here takes (cuLaunchKernel's 11) and one spare.
const frameWords = 12

// NewFrame returns a Frame on the heap.
func NewFrame() *Frame { return new(Frame) }

func (f *Frame) call(fn uintptr, n int) Result {
	if fn == 0 {
		return ErrorNotSupported
	}
	return Result(int32(callFrame(fn, &f.a, n)))
}

// c calls s with arguments that hold no pointers; a missing (optional)
// symbol gives ErrorNotSupported.
func (l *Lib) c(s Sym, args ...uintptr) Result {
	fn := l.fn[s]
	if fn == 0 {
		return ErrorNotSupported
	}
	return Result(int32(dl.Call(fn, args...)))
}

// Init is cuInit(0).
func (l *Lib) Init() Result { return l.c(SymInit, 0) }

// DriverGetVersion is cuDriverGetVersion.
func (l *Lib) DriverGetVersion() (int, Result) {
	var v int32
	r := Result(int32(dl.Call(l.fn[SymDriverGetVersion], uintptr(unsafe.Pointer(&v)))))
	return int(v), r
}

// DeviceGetCount is cuDeviceGetCount.
func (l *Lib) DeviceGetCount() (int, Result) {
	var n int32
	r := Result(int32(dl.Call(l.fn[SymDeviceGetCount], uintptr(unsafe.Pointer(&n)))))
	return int(n), r
}

// DeviceGet is cuDeviceGet.
func (l *Lib) DeviceGet(ordinal int) (Device, Result) {
	var d int32
	r := Result(int32(dl.Call(l.fn[SymDeviceGet], uintptr(unsafe.Pointer(&d)), uintptr(ordinal))))
	return Device(d), r
}

// DeviceGetName is cuDeviceGetName.
func (l *Lib) DeviceGetName(d Device) (string, Result) {
	buf := make([]byte, 256)
	r := Result(int32(dl.Call(l.fn[SymDeviceGetName], uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(d))))
	return cstr(buf), r
}

// DeviceTotalMem is cuDeviceTotalMem_v2.
func (l *Lib) DeviceTotalMem(d Device) (int64, Result) {
	var n uint64
	r := Result(int32(dl.Call(l.fn[SymDeviceTotalMem], uintptr(unsafe.Pointer(&n)), uintptr(d))))
	return int64(n), r
}

// DeviceGetAttribute is cuDeviceGetAttribute.
func (l *Lib) DeviceGetAttribute(a Attribute, d Device) (int, Result) {
	var v int32
	r := Result(int32(dl.Call(l.fn[SymDeviceGetAttribute], uintptr(unsafe.Pointer(&v)), uintptr(a), uintptr(d))))
	return int(v), r
}

// DeviceGetUUID is cuDeviceGetUuid_v2 (or cuDeviceGetUuid).
func (l *Lib) DeviceGetUUID(d Device) ([16]byte, Result) {
	var u [16]byte
	if l.fn[SymDeviceGetUuid] == 0 {
		return u, ErrorNotSupported
	}
	r := Result(int32(dl.Call(l.fn[SymDeviceGetUuid], uintptr(unsafe.Pointer(&u[0])), uintptr(d))))
	return u, r
}

// DeviceGetPCIBusID is cuDeviceGetPCIBusId ("0000:3b:00.0").
func (l *Lib) DeviceGetPCIBusID(d Device) (string, Result) {
	if l.fn[SymDeviceGetPCIBusID] == 0 {
		return "", ErrorNotSupported
	}
	buf := make([]byte, 64)
	r := Result(int32(dl.Call(l.fn[SymDeviceGetPCIBusID], uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(d))))
	return cstr(buf), r
}

// DevicePrimaryCtxRetain is cuDevicePrimaryCtxRetain.
func (l *Lib) DevicePrimaryCtxRetain(d Device) (Context, Result) {
	var c uintptr
	r := Result(int32(dl.Call(l.fn[SymDevicePrimaryCtxRetain], uintptr(unsafe.Pointer(&c)), uintptr(d))))
	return Context(c), r
}

// DevicePrimaryCtxRelease is cuDevicePrimaryCtxRelease_v2.
func (l *Lib) DevicePrimaryCtxRelease(d Device) Result {
	return l.c(SymDevicePrimaryCtxRelease, uintptr(d))
}

// DevicePrimaryCtxReset is cuDevicePrimaryCtxReset_v2.
func (l *Lib) DevicePrimaryCtxReset(d Device) Result {
	return l.c(SymDevicePrimaryCtxReset, uintptr(d))
}

// DeviceCanAccessPeer is cuDeviceCanAccessPeer.
func (l *Lib) DeviceCanAccessPeer(d, peer Device) (bool, Result) {
	if l.fn[SymDeviceCanAccessPeer] == 0 {
		return false, ErrorNotSupported
	}
	var v int32
	r := Result(int32(dl.Call(l.fn[SymDeviceCanAccessPeer], uintptr(unsafe.Pointer(&v)), uintptr(d), uintptr(peer))))
	return v != 0, r
}

// CtxEnablePeerAccess is cuCtxEnablePeerAccess(peer, 0), for the current context.
func (l *Lib) CtxEnablePeerAccess(peer Context) Result {
	return l.c(SymCtxEnablePeerAccess, uintptr(peer), 0)
}

// CtxSetCurrent is cuCtxSetCurrent: binds c to the calling OS thread.
func (l *Lib) CtxSetCurrent(f *Frame, c Context) Result {
	f.a[0] = uintptr(c)
	return f.call(l.fn[SymCtxSetCurrent], 1)
}

// CtxGetCurrent is cuCtxGetCurrent; the driver writes the context into f
// (no allocation).
func (l *Lib) CtxGetCurrent(f *Frame) (Context, Result) {
	f.out = 0
	f.a[0] = uintptr(unsafe.Pointer(&f.out))
	r := f.call(l.fn[SymCtxGetCurrent], 1)
	return Context(f.out), r
}

// CtxSynchronize is cuCtxSynchronize.
func (l *Lib) CtxSynchronize() Result { return l.c(SymCtxSynchronize) }

// MemGetInfo is cuMemGetInfo_v2 for the current context.
func (l *Lib) MemGetInfo() (free, total int64, r Result) {
	var f, t uint64
	r = Result(int32(dl.Call(l.fn[SymMemGetInfo], uintptr(unsafe.Pointer(&f)), uintptr(unsafe.Pointer(&t)))))
	return int64(f), int64(t), r
}

// MemAlloc is cuMemAlloc_v2.
func (l *Lib) MemAlloc(size int64) (DevicePtr, Result) {
	var p uint64
	r := Result(int32(dl.Call(l.fn[SymMemAlloc], uintptr(unsafe.Pointer(&p)), uintptr(size))))
	return DevicePtr(p), r
}

// MemFree is cuMemFree_v2.
func (l *Lib) MemFree(p DevicePtr) Result {
	return Result(int32(dl.Call(l.fn[SymMemFree], uintptr(p))))
}

// Host allocation flags of cuMemHostAlloc.
const (
	MemHostAllocPortable      = 1 // pinned for every context
	MemHostAllocDeviceMap     = 2 // mapped into the device address space
	MemHostAllocWriteCombined = 4 // write-combined: fast to write from the host, slow to read
)

// MemHostAlloc is cuMemHostAlloc: page-locked host memory.
func (l *Lib) MemHostAlloc(size int64, flags uint32) (unsafe.Pointer, Result) {
	var p unsafe.Pointer
	r := Result(int32(dl.Call(l.fn[SymMemHostAlloc], uintptr(unsafe.Pointer(&p)), uintptr(size), uintptr(flags))))
	return p, r
}

// HostBytes views n bytes of pinned host memory at p (from MemHostAlloc),
// valid until MemFreeHost.
func HostBytes(p unsafe.Pointer, n int64) []byte {
	if p == nil || n <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}

// MemFreeHost is cuMemFreeHost.
func (l *Lib) MemFreeHost(p unsafe.Pointer) Result {
	return Result(int32(dl.Call(l.fn[SymMemFreeHost], uintptr(p))))
}

// MemcpyHtoDAsync is cuMemcpyHtoDAsync_v2 from Go memory (pageable): src
// escapes to the heap.
func (l *Lib) MemcpyHtoDAsync(dst DevicePtr, src unsafe.Pointer, n int64, s Stream) Result {
	return Result(int32(dl.Call(l.fn[SymMemcpyHtoDAsync], uintptr(dst), uintptr(src), uintptr(n), uintptr(s))))
}

// MemcpyDtoHAsync is cuMemcpyDtoHAsync_v2 into Go memory (pageable): dst
// escapes to the heap.
func (l *Lib) MemcpyDtoHAsync(dst unsafe.Pointer, src DevicePtr, n int64, s Stream) Result {
	return Result(int32(dl.Call(l.fn[SymMemcpyDtoHAsync], uintptr(dst), uintptr(src), uintptr(n), uintptr(s))))
}

// MemcpyHtoDAsyncPinned is cuMemcpyHtoDAsync_v2 from memory that never
// moves (pinned C memory).
func (l *Lib) MemcpyHtoDAsyncPinned(f *Frame, dst DevicePtr, src unsafe.Pointer, n int64, s Stream) Result {
	f.a[0], f.a[1], f.a[2], f.a[3] = uintptr(dst), uintptr(src), uintptr(n), uintptr(s)
	return f.call(l.fn[SymMemcpyHtoDAsync], 4)
}

// MemcpyDtoHAsyncPinned is cuMemcpyDtoHAsync_v2 into memory that never
// moves (pinned C memory).
func (l *Lib) MemcpyDtoHAsyncPinned(f *Frame, dst unsafe.Pointer, src DevicePtr, n int64, s Stream) Result {
	f.a[0], f.a[1], f.a[2], f.a[3] = uintptr(dst), uintptr(src), uintptr(n), uintptr(s)
	return f.call(l.fn[SymMemcpyDtoHAsync], 4)
}

// MemcpyDtoDAsync is cuMemcpyDtoDAsync_v2.
func (l *Lib) MemcpyDtoDAsync(f *Frame, dst, src DevicePtr, n int64, s Stream) Result {
	f.a[0], f.a[1], f.a[2], f.a[3] = uintptr(dst), uintptr(src), uintptr(n), uintptr(s)
	return f.call(l.fn[SymMemcpyDtoDAsync], 4)
}

// MemcpyPeerAsync is cuMemcpyPeerAsync.
func (l *Lib) MemcpyPeerAsync(f *Frame, dst DevicePtr, dstCtx Context, src DevicePtr, srcCtx Context, n int64, s Stream) Result {
	f.a[0], f.a[1], f.a[2], f.a[3], f.a[4], f.a[5] = uintptr(dst), uintptr(dstCtx), uintptr(src), uintptr(srcCtx), uintptr(n), uintptr(s)
	return f.call(l.fn[SymMemcpyPeerAsync], 6)
}

// MemsetD32Async is cuMemsetD32Async: count 32-bit words.
func (l *Lib) MemsetD32Async(f *Frame, dst DevicePtr, v uint32, count int64, s Stream) Result {
	f.a[0], f.a[1], f.a[2], f.a[3] = uintptr(dst), uintptr(v), uintptr(count), uintptr(s)
	return f.call(l.fn[SymMemsetD32Async], 4)
}

// Stream creation flags.
const (
	StreamDefault     = 0
	StreamNonBlocking = 1 // no implicit synchronization with the NULL stream
)

// StreamCreate is cuStreamCreate.
func (l *Lib) StreamCreate(flags uint32) (Stream, Result) {
	var s uintptr
	r := Result(int32(dl.Call(l.fn[SymStreamCreate], uintptr(unsafe.Pointer(&s)), uintptr(flags))))
	return Stream(s), r
}

// StreamDestroy is cuStreamDestroy_v2.
func (l *Lib) StreamDestroy(s Stream) Result {
	return Result(int32(dl.Call(l.fn[SymStreamDestroy], uintptr(s))))
}

// StreamSynchronize is cuStreamSynchronize.
func (l *Lib) StreamSynchronize(f *Frame, s Stream) Result {
	f.a[0] = uintptr(s)
	return f.call(l.fn[SymStreamSynchronize], 1)
}

// StreamQuery is cuStreamQuery: Success when done, ErrorNotReady when not.
func (l *Lib) StreamQuery(f *Frame, s Stream) Result {
	f.a[0] = uintptr(s)
	return f.call(l.fn[SymStreamQuery], 1)
}

// StreamWaitEvent is cuStreamWaitEvent(s, e, 0).
func (l *Lib) StreamWaitEvent(f *Frame, s Stream, e Event) Result {
	f.a[0], f.a[1], f.a[2] = uintptr(s), uintptr(e), 0
	return f.call(l.fn[SymStreamWaitEvent], 3)
}

// Event creation flags.
const (
	EventDefault       = 0
	EventBlockingSync  = 1
	EventDisableTiming = 2
)

// EventCreate is cuEventCreate.
func (l *Lib) EventCreate(flags uint32) (Event, Result) {
	var e uintptr
	r := Result(int32(dl.Call(l.fn[SymEventCreate], uintptr(unsafe.Pointer(&e)), uintptr(flags))))
	return Event(e), r
}

// EventRecord is cuEventRecord.
func (l *Lib) EventRecord(f *Frame, e Event, s Stream) Result {
	f.a[0], f.a[1] = uintptr(e), uintptr(s)
	return f.call(l.fn[SymEventRecord], 2)
}

// EventQuery is cuEventQuery: Success when done, ErrorNotReady when not.
func (l *Lib) EventQuery(f *Frame, e Event) Result {
	f.a[0] = uintptr(e)
	return f.call(l.fn[SymEventQuery], 1)
}

// EventSynchronize is cuEventSynchronize.
func (l *Lib) EventSynchronize(f *Frame, e Event) Result {
	f.a[0] = uintptr(e)
	return f.call(l.fn[SymEventSynchronize], 1)
}

// EventDestroy is cuEventDestroy_v2.
func (l *Lib) EventDestroy(e Event) Result {
	return Result(int32(dl.Call(l.fn[SymEventDestroy], uintptr(e))))
}

// EventElapsedTime is cuEventElapsedTime_v2 (or cuEventElapsedTime): the
// milliseconds from start to end.
func (l *Lib) EventElapsedTime(start, end Event) (float32, Result) {
	var ms float32
	r := Result(int32(dl.Call(l.fn[SymEventElapsedTime], uintptr(unsafe.Pointer(&ms)), uintptr(start), uintptr(end))))
	return ms, r
}

// ModuleLoadData is cuModuleLoadData on a CUBIN, fatbin or NUL-terminated PTX image.
func (l *Lib) ModuleLoadData(image []byte) (Module, Result) {
	if len(image) == 0 {
		return 0, ErrorInvalidImage
	}
	var m uintptr
	r := Result(int32(dl.Call(l.fn[SymModuleLoadData], uintptr(unsafe.Pointer(&m)), uintptr(unsafe.Pointer(&image[0])))))
	return Module(m), r
}

// ModuleUnload is cuModuleUnload.
func (l *Lib) ModuleUnload(m Module) Result {
	return Result(int32(dl.Call(l.fn[SymModuleUnload], uintptr(m))))
}

// ModuleGetFunction is cuModuleGetFunction.
func (l *Lib) ModuleGetFunction(m Module, name string) (Function, Result) {
	var f uintptr
	n := dl.CString(name)
	r := Result(int32(dl.Call(l.fn[SymModuleGetFunction], uintptr(unsafe.Pointer(&f)), uintptr(m), uintptr(unsafe.Pointer(&n[0])))))
	return Function(f), r
}

// LaunchKernel is cuLaunchKernel with kernelParams (an array of pointers to
// each argument's value, in memory the caller keeps alive) and no extra.
func (l *Lib) LaunchKernel(fr *Frame, f Function, gx, gy, gz, bx, by, bz, smem uint32, s Stream, params unsafe.Pointer) Result {
	a := &fr.a
	a[0], a[1], a[2], a[3], a[4], a[5], a[6] = uintptr(f), uintptr(gx), uintptr(gy), uintptr(gz), uintptr(bx), uintptr(by), uintptr(bz)
	a[7], a[8], a[9], a[10] = uintptr(smem), uintptr(s), uintptr(params), 0
	return fr.call(l.fn[SymLaunchKernel], 11)
}

// LaunchCooperativeKernel is cuLaunchCooperativeKernel (the blocks of the
// grid may synchronise with each other: every block must be resident at
// once), with kernelParams as in LaunchKernel.
func (l *Lib) LaunchCooperativeKernel(fr *Frame, f Function, gx, gy, gz, bx, by, bz, smem uint32, s Stream, params unsafe.Pointer) Result {
	if l.fn[SymLaunchCooperativeKernel] == 0 {
		return ErrorNotSupported
	}
	a := &fr.a
	a[0], a[1], a[2], a[3], a[4], a[5], a[6] = uintptr(f), uintptr(gx), uintptr(gy), uintptr(gz), uintptr(bx), uintptr(by), uintptr(bz)
	a[7], a[8], a[9] = uintptr(smem), uintptr(s), uintptr(params)
	return fr.call(l.fn[SymLaunchCooperativeKernel], 10)
}

// JITOption is a CUjit_option of cuModuleLoadDataEx.
type JITOption int32

// JIT options (the value of each is an unsigned int, passed in the pointer).
const (
	JITMaxRegisters      JITOption = 0
	JITThreadsPerBlock   JITOption = 1
	JITOptimizationLevel JITOption = 7
)

// ModuleLoadDataEx is cuModuleLoadDataEx: ModuleLoadData with JIT options
// for PTX (integer values only; options and values of equal length).
func (l *Lib) ModuleLoadDataEx(image []byte, opts []JITOption, values []uintptr) (Module, Result) {
	if len(image) == 0 || len(opts) != len(values) {
		return 0, ErrorInvalidImage
	}
	if len(opts) == 0 || l.fn[SymModuleLoadDataEx] == 0 {
		return l.ModuleLoadData(image)
	}
	var m uintptr
	r := Result(int32(dl.Call(l.fn[SymModuleLoadDataEx], uintptr(unsafe.Pointer(&m)), uintptr(unsafe.Pointer(&image[0])),
		uintptr(len(opts)), uintptr(unsafe.Pointer(&opts[0])), uintptr(unsafe.Pointer(&values[0])))))
	return Module(m), r
}

// PointerAttribute is a CUpointer_attribute.
type PointerAttribute int32

// Pointer attributes (the type each writes in parentheses).
const (
	PointerMemoryType    PointerAttribute = 2  // CUmemorytype (uint32)
	PointerDeviceOrdinal PointerAttribute = 9  // int32
	PointerRangeStart    PointerAttribute = 11 // CUdeviceptr
	PointerRangeSize     PointerAttribute = 12 // size_t
)

// Memory types (CU_POINTER_ATTRIBUTE_MEMORY_TYPE).
const (
	MemoryTypeHost    = 1
	MemoryTypeDevice  = 2
	MemoryTypeUnified = 4
)

// PointerGetAttribute32 is cuPointerGetAttribute for attributes of 4 bytes
// (MemoryType, DeviceOrdinal).
func (l *Lib) PointerGetAttribute32(a PointerAttribute, p DevicePtr) (int32, Result) {
	if l.fn[SymPointerGetAttribute] == 0 {
		return 0, ErrorNotSupported
	}
	var v int32
	r := Result(int32(dl.Call(l.fn[SymPointerGetAttribute], uintptr(unsafe.Pointer(&v)), uintptr(a), uintptr(p))))
	return v, r
}

// PointerGetAttribute64 is cuPointerGetAttribute for attributes of 8 bytes
// (RangeStart, RangeSize).
func (l *Lib) PointerGetAttribute64(a PointerAttribute, p DevicePtr) (uint64, Result) {
	if l.fn[SymPointerGetAttribute] == 0 {
		return 0, ErrorNotSupported
	}
	var v uint64
	r := Result(int32(dl.Call(l.fn[SymPointerGetAttribute], uintptr(unsafe.Pointer(&v)), uintptr(a), uintptr(p))))
	return v, r
}

// FuncAttribute is a CUfunction_attribute.
type FuncAttribute int32

// Function attributes.
const (
	FuncMaxThreadsPerBlock      FuncAttribute = 0
	FuncSharedSizeBytes         FuncAttribute = 1
	FuncConstSizeBytes          FuncAttribute = 2
	FuncLocalSizeBytes          FuncAttribute = 3
	FuncNumRegs                 FuncAttribute = 4
	FuncPTXVersion              FuncAttribute = 5
	FuncBinaryVersion           FuncAttribute = 6
	FuncMaxDynamicSharedSize    FuncAttribute = 8
	FuncPreferredSharedCarveout FuncAttribute = 9
)

// FuncGetAttribute is cuFuncGetAttribute.
func (l *Lib) FuncGetAttribute(a FuncAttribute, f Function) (int, Result) {
	var v int32
	r := Result(int32(dl.Call(l.fn[SymFuncGetAttribute], uintptr(unsafe.Pointer(&v)), uintptr(a), uintptr(f))))
	return int(v), r
}

// FuncSetAttribute is cuFuncSetAttribute.
func (l *Lib) FuncSetAttribute(f Function, a FuncAttribute, v int) Result {
	return l.c(SymFuncSetAttribute, uintptr(f), uintptr(a), uintptr(v))
}

// FuncGetParamInfo is cuFuncGetParamInfo (CUDA 12.4+): the offset and size of
// parameter i; ErrorInvalidValue past the last parameter.
func (l *Lib) FuncGetParamInfo(f Function, i int) (offset, size int, r Result) {
	if l.fn[SymFuncGetParamInfo] == 0 {
		return 0, 0, ErrorNotSupported
	}
	var off, sz uint64
	r = Result(int32(dl.Call(l.fn[SymFuncGetParamInfo], uintptr(f), uintptr(i), uintptr(unsafe.Pointer(&off)), uintptr(unsafe.Pointer(&sz)))))
	return int(off), int(sz), r
}

// OccupancyMaxActiveBlocksPerMultiprocessor is the driver's occupancy
// calculator.
func (l *Lib) OccupancyMaxActiveBlocksPerMultiprocessor(f Function, blockSize int, dynSmem int) (int, Result) {
	if l.fn[SymOccupancyMaxActiveBlocksPerMultiprocessor] == 0 {
		return 0, ErrorNotSupported
	}
	var n int32
	r := Result(int32(dl.Call(l.fn[SymOccupancyMaxActiveBlocksPerMultiprocessor], uintptr(unsafe.Pointer(&n)), uintptr(f), uintptr(blockSize), uintptr(dynSmem))))
	return int(n), r
}

// OccupancyMaxPotentialBlockSize is cuOccupancyMaxPotentialBlockSize with a
// constant dynamic shared memory size (no callback).
func (l *Lib) OccupancyMaxPotentialBlockSize(f Function, dynSmem, blockSizeLimit int) (minGrid, blockSize int, r Result) {
	if l.fn[SymOccupancyMaxPotentialBlockSize] == 0 {
		return 0, 0, ErrorNotSupported
	}
	var g, b int32
	r = Result(int32(dl.Call(l.fn[SymOccupancyMaxPotentialBlockSize], uintptr(unsafe.Pointer(&g)), uintptr(unsafe.Pointer(&b)),
		uintptr(f), 0, uintptr(dynSmem), uintptr(blockSizeLimit))))
	return int(g), int(b), r
}

// cstr returns the text of a NUL-terminated buffer.
func cstr(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
