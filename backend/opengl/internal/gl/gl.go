//go:build linux

package gl

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unsafe"

	"github.com/anygpu/gpu/internal/dl"
)

// GL enums used by the backend.
const (
	NoError                     = 0
	InvalidEnum                 = 0x0500
	InvalidValue                = 0x0501
	InvalidOperation            = 0x0502
	StackOverflow               = 0x0503
	StackUnderflow              = 0x0504
	OutOfMemory                 = 0x0505
	InvalidFramebufferOperation = 0x0506
	ContextLost                 = 0x0507

	Vendor                 = 0x1F00
	Renderer               = 0x1F01
	Version                = 0x1F02
	Extensions             = 0x1F03
	ShadingLanguageVersion = 0x8B8C
	NumExtensions          = 0x821D
	MajorVersion           = 0x821B
	MinorVersion           = 0x821C
	ContextFlags           = 0x821E
	ContextProfileMask     = 0x9126

	MaxComputeWorkGroupCount       = 0x91BE
	MaxComputeWorkGroupSize        = 0x91BF
	MaxComputeWorkGroupInvocations = 0x90EB
	MaxComputeSharedMemorySize     = 0x8262
	MaxComputeUniformBlocks        = 0x91BB
	MaxComputeShaderStorageBlocks  = 0x90DB
	MaxShaderStorageBlockSize      = 0x90DE
	MaxShaderStorageBufferBindings = 0x90DD
	ShaderStorageOffsetAlignment   = 0x90DF
	MaxUniformBlockSize            = 0x8A30
	MaxUniformBufferBindings       = 0x8A2F
	UniformBufferOffsetAlignment   = 0x8A34
	ShaderStorageBufferOffsetAlign = 0x90DF

	ShaderStorageBuffer = 0x90D2
	UniformBuffer       = 0x8A11
	CopyReadBuffer      = 0x8F36
	CopyWriteBuffer     = 0x8F37

	StreamRead        = 0x88E1
	StaticDraw        = 0x88E4
	DynamicDraw       = 0x88E8
	DynamicCopy       = 0x88EA
	StreamDraw        = 0x88E0
	DynamicStorageBit = 0x0100
	ClientStorageBit  = 0x0200

	ComputeShader           = 0x91B9
	CompileStatus           = 0x8B81
	LinkStatus              = 0x8B82
	InfoLogLength           = 0x8B84
	ComputeWorkGroupSize    = 0x8267
	CompletionStatusKHR     = 0x91B1
	ShaderStorageBlock      = 0x92E6
	UniformBlock            = 0x92E2
	ActiveResources         = 0x92F5
	BufferBinding           = 0x9302
	BufferDataSize          = 0x9303
	MapReadBit              = 0x0001
	MapWriteBit             = 0x0002
	MapInvalidateRangeBit   = 0x0004
	MapPersistentBit        = 0x0040
	MapCoherentBit          = 0x0080
	R32UI                   = 0x8236
	RedInteger              = 0x8D94
	UnsignedInt             = 0x1405
	ShaderStorageBarrier    = 0x2000
	BufferUpdateBarrier     = 0x0200
	UniformBarrier          = 0x0004
	AllBarrierBits          = 0xFFFFFFFF
	Timestamp               = 0x8E28
	QueryResult             = 0x8866
	QueryResultAvailable    = 0x8867
	QueryCounterBits        = 0x8864
	SyncGPUCommandsComplete = 0x9117
	SyncFlushCommandsBit    = 0x0001
	AlreadySignaled         = 0x911A
	TimeoutExpired          = 0x911B
	ConditionSatisfied      = 0x911C
	WaitFailed              = 0x911D

	// GL_NVX_gpu_memory_info, in KiB
	GPUMemoryInfoDedicatedVidmemNVX        = 0x9047
	GPUMemoryInfoTotalAvailableMemoryNVX   = 0x9048
	GPUMemoryInfoCurrentAvailableVidmemNVX = 0x9049
	// GL_NV_shader_thread_group
	WarpSizeNV    = 0x9339
	WarpsPerSMNV  = 0x933A
	SMCountNV     = 0x933B
	DeviceUUIDEXT = 0x9597 // GL_EXT_memory_object
	// GL_KHR_shader_subgroup
	SubgroupSizeKHR              = 0x9532
	SubgroupSupportedStagesKHR   = 0x9533
	SubgroupSupportedFeaturesKHR = 0x9534
	ComputeShaderBit             = 0x20 // GL_COMPUTE_SHADER_BIT
)

// Funcs holds resolved GL entry points. The zero-valued optional ones are
// absent from the driver; calling one of them does nothing.
type Funcs struct {
	// ES reports an OpenGL ES 3.1 context: glGetBufferSubData and
	// glClearBufferSubData are absent, and the timestamp queries come from
	// GL_EXT_disjoint_timer_query.
	ES bool

	getError, getString, getStringi, getIntegerv, getInteger64v, getIntegeri_v, flush, finish uintptr

	genBuffers, deleteBuffers, bindBuffer, bufferData, bufferSubData                       uintptr
	copyBufferSubData, bindBufferBase, bindBufferRange, mapBufferRange, unmapBuffer        uintptr
	createShader, shaderSource, compileShader, getShaderiv, getShaderInfoLog, deleteShader uintptr
	createProgram, attachShader, detachShader, linkProgram, getProgramiv                   uintptr
	getProgramInfoLog, deleteProgram, useProgram, dispatchCompute, memoryBarrier           uintptr
	getProgramInterfaceiv, getProgramResourceiv                                            uintptr
	fenceSync, clientWaitSync, deleteSync                                                  uintptr
	genQueries, deleteQueries, getQueryiv                                                  uintptr

	// desktop OpenGL only
	getBufferSubData, clearBufferSubData uintptr
	// optional on OpenGL ES (GL_EXT_disjoint_timer_query)
	queryCounter, getQueryObjectui64v uintptr
	// optional
	bufferStorage, maxShaderCompilerThreads, getUnsignedBytei_v uintptr

	clearValue uint32 // ClearBufferSubData's value, read by GL during the call
}

// Load resolves every entry point through getProc, those of OpenGL 4.3 core
// or, when es is set, of OpenGL ES 3.1. It fails naming the missing required
// functions. (Mesa's eglGetProcAddress returns a stub for every GL name
// whatever the context's API, so the desktop-only functions are not even
// looked up for an ES context.)
func Load(getProc func(name string) uintptr, es bool) (*Funcs, error) {
	f := &Funcs{ES: es}
	required := []struct {
		name string
		p    *uintptr
	}{
		{"glGetError", &f.getError}, {"glGetString", &f.getString}, {"glGetStringi", &f.getStringi},
		{"glGetIntegerv", &f.getIntegerv}, {"glGetInteger64v", &f.getInteger64v}, {"glGetIntegeri_v", &f.getIntegeri_v},
		{"glFlush", &f.flush}, {"glFinish", &f.finish},
		{"glGenBuffers", &f.genBuffers}, {"glDeleteBuffers", &f.deleteBuffers}, {"glBindBuffer", &f.bindBuffer},
		{"glBufferData", &f.bufferData}, {"glBufferSubData", &f.bufferSubData},
		{"glCopyBufferSubData", &f.copyBufferSubData}, {"glMapBufferRange", &f.mapBufferRange}, {"glUnmapBuffer", &f.unmapBuffer},
		{"glBindBufferBase", &f.bindBufferBase}, {"glBindBufferRange", &f.bindBufferRange},
		{"glCreateShader", &f.createShader}, {"glShaderSource", &f.shaderSource}, {"glCompileShader", &f.compileShader},
		{"glGetShaderiv", &f.getShaderiv}, {"glGetShaderInfoLog", &f.getShaderInfoLog}, {"glDeleteShader", &f.deleteShader},
		{"glCreateProgram", &f.createProgram}, {"glAttachShader", &f.attachShader}, {"glDetachShader", &f.detachShader},
		{"glLinkProgram", &f.linkProgram}, {"glGetProgramiv", &f.getProgramiv}, {"glGetProgramInfoLog", &f.getProgramInfoLog},
		{"glDeleteProgram", &f.deleteProgram}, {"glUseProgram", &f.useProgram}, {"glDispatchCompute", &f.dispatchCompute},
		{"glMemoryBarrier", &f.memoryBarrier},
		{"glGetProgramInterfaceiv", &f.getProgramInterfaceiv}, {"glGetProgramResourceiv", &f.getProgramResourceiv},
		{"glFenceSync", &f.fenceSync}, {"glClientWaitSync", &f.clientWaitSync}, {"glDeleteSync", &f.deleteSync},
		{"glGenQueries", &f.genQueries}, {"glDeleteQueries", &f.deleteQueries}, {"glGetQueryiv", &f.getQueryiv},
	}
	if !es {
		required = append(required, []struct {
			name string
			p    *uintptr
		}{
			{"glGetBufferSubData", &f.getBufferSubData}, {"glClearBufferSubData", &f.clearBufferSubData},
			{"glQueryCounter", &f.queryCounter}, {"glGetQueryObjectui64v", &f.getQueryObjectui64v},
		}...)
	}
	var missing []string
	for _, s := range required {
		*s.p = getProc(s.name)
		if *s.p == 0 {
			missing = append(missing, s.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("OpenGL entry points missing: %s", strings.Join(missing, ", "))
	}
	if es {
		// Buffers stay mutable on OpenGL ES (they are mapped for reads and
		// fills); glBufferStorageEXT (GL_EXT_buffer_storage) makes only the
		// persistently mapped staging and host buffers.
		f.bufferStorage = getProc("glBufferStorageEXT")
		f.queryCounter = getProc("glQueryCounterEXT")
		f.getQueryObjectui64v = getProc("glGetQueryObjectui64vEXT")
	} else {
		f.bufferStorage = getProc("glBufferStorage")
	}
	f.maxShaderCompilerThreads = getProc("glMaxShaderCompilerThreadsKHR")
	if f.maxShaderCompilerThreads == 0 {
		f.maxShaderCompilerThreads = getProc("glMaxShaderCompilerThreadsARB")
	}
	f.getUnsignedBytei_v = getProc("glGetUnsignedBytei_vEXT")
	return f, nil
}

// GetError returns and clears one error flag.
func (f *Funcs) GetError() uint32 { return uint32(dl.Call(f.getError)) }

// GetString returns glGetString(name).
func (f *Funcs) GetString(name uint32) string {
	return dl.GoString(dl.Call(f.getString, uintptr(name)))
}

// GetStringi returns glGetStringi(name, i).
func (f *Funcs) GetStringi(name, i uint32) string {
	return dl.GoString(dl.Call(f.getStringi, uintptr(name), uintptr(i)))
}

// Extensions lists the context's extensions.
func (f *Funcs) Extensions() map[string]bool {
	n := f.GetInteger(NumExtensions)
	out := make(map[string]bool, n)
	for i := 0; i < int(n); i++ {
		out[f.GetStringi(Extensions, uint32(i))] = true
	}
	return out
}

// GetInteger returns glGetInteger64v(pname) (0 and an error flag when the
// driver does not know pname).
func (f *Funcs) GetInteger(pname uint32) int64 {
	var v int64
	dl.Call(f.getInteger64v, uintptr(pname), uintptr(unsafe.Pointer(&v)))
	return v
}

// GetIntegerIndexed returns glGetIntegeri_v(pname, i).
func (f *Funcs) GetIntegerIndexed(pname, i uint32) int32 {
	var v int32
	dl.Call(f.getIntegeri_v, uintptr(pname), uintptr(i), uintptr(unsafe.Pointer(&v)))
	return v
}

// DeviceUUID returns GL_DEVICE_UUID_EXT of device 0 (GL_EXT_memory_object),
// or nil when the driver lacks it.
func (f *Funcs) DeviceUUID() []byte {
	if f.getUnsignedBytei_v == 0 {
		return nil
	}
	uuid := make([]byte, 16)
	dl.Call(f.getUnsignedBytei_v, DeviceUUIDEXT, 0, uintptr(unsafe.Pointer(&uuid[0])))
	if f.GetError() != NoError {
		return nil
	}
	return uuid
}

// Flush submits queued commands.
func (f *Funcs) Flush() { dl.Call(f.flush) }

// Finish waits for every queued command.
func (f *Funcs) Finish() { dl.Call(f.finish) }

// GenBuffer creates one buffer name.
func (f *Funcs) GenBuffer() uint32 {
	var b uint32
	dl.Call(f.genBuffers, 1, uintptr(unsafe.Pointer(&b)))
	return b
}

// DeleteBuffer deletes one buffer.
func (f *Funcs) DeleteBuffer(b uint32) {
	dl.Call(f.deleteBuffers, 1, uintptr(unsafe.Pointer(&b)))
}

// BindBuffer binds b to target.
func (f *Funcs) BindBuffer(target, b uint32) { dl.Call(f.bindBuffer, uintptr(target), uintptr(b)) }

// BufferData (re)allocates the buffer bound to target, size bytes with
// undefined contents.
func (f *Funcs) BufferData(target uint32, size int64, usage uint32) {
	dl.Call(f.bufferData, uintptr(target), uintptr(size), 0, uintptr(usage))
}

// HasBufferStorage reports whether glBufferStorage is there.
func (f *Funcs) HasBufferStorage() bool { return f.bufferStorage != 0 }

// BufferStorage allocates immutable storage of size bytes, with undefined
// contents, for the buffer bound to target.
func (f *Funcs) BufferStorage(target uint32, size int64, flags uint32) {
	dl.Call(f.bufferStorage, uintptr(target), uintptr(size), 0, uintptr(flags))
}

// MapPersistent maps size bytes of the buffer bound to target, which has
// immutable storage made with the same map bits, for as long as the buffer
// lives (GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT plus access, of
// MapReadBit and MapWriteBit). It returns nil when the driver does not map
// it (an error flag is left).
func (f *Funcs) MapPersistent(target uint32, size int64, access uint32) []byte {
	p := dl.Call(f.mapBufferRange, uintptr(target), 0, uintptr(size), uintptr(access|MapPersistentBit|MapCoherentBit))
	if p == 0 || size <= 0 {
		return nil
	}
	return mapped(p, size)
}

// BufferSubData copies data into the buffer bound to target at off.
func (f *Funcs) BufferSubData(target uint32, off int64, data []byte) {
	dl.Call(f.bufferSubData, uintptr(target), uintptr(off), uintptr(len(data)), uintptr(unsafe.Pointer(unsafe.SliceData(data))))
}

// GetBufferSubData copies len(data) bytes of the buffer bound to target at
// off into data (desktop OpenGL only; see ReadMapped for OpenGL ES).
func (f *Funcs) GetBufferSubData(target uint32, off int64, data []byte) {
	if f.getBufferSubData == 0 {
		return
	}
	dl.Call(f.getBufferSubData, uintptr(target), uintptr(off), uintptr(len(data)), uintptr(unsafe.Pointer(unsafe.SliceData(data))))
}

// CopyBufferSubData copies between the buffers bound to two targets.
func (f *Funcs) CopyBufferSubData(readTarget, writeTarget uint32, readOff, writeOff, size int64) {
	dl.Call(f.copyBufferSubData, uintptr(readTarget), uintptr(writeTarget), uintptr(readOff), uintptr(writeOff), uintptr(size))
}

// ClearBufferSubData fills size bytes at off of the buffer bound to target
// with the 32-bit value v (internal format R32UI).
// Desktop OpenGL only; see FillMapped for OpenGL ES.
func (f *Funcs) ClearBufferSubData(target uint32, off, size int64, v uint32) {
	if f.clearBufferSubData == 0 {
		return
	}
	f.clearValue = v // GL reads it during the call; a field, so no allocation
	dl.Call(f.clearBufferSubData, uintptr(target), R32UI, uintptr(off), uintptr(size), RedInteger, UnsignedInt, uintptr(unsafe.Pointer(&f.clearValue)))
}

// ReadMapped copies len(data) bytes of the buffer bound to target at off into
// data through glMapBufferRange (GL_MAP_READ_BIT), which waits for the
// commands that write the buffer. It reports false when the driver does not
// map the range (an error flag is left).
func (f *Funcs) ReadMapped(target uint32, off int64, data []byte) bool {
	if len(data) == 0 {
		return true
	}
	p := dl.Call(f.mapBufferRange, uintptr(target), uintptr(off), uintptr(len(data)), MapReadBit)
	if p == 0 {
		return false
	}
	copy(data, mapped(p, int64(len(data))))
	return uint32(dl.Call(f.unmapBuffer, uintptr(target))) != 0
}

// mapped views n bytes of driver memory at p, valid until glUnmapBuffer.
func mapped(p uintptr, n int64) []byte {
	base := *(*unsafe.Pointer)(unsafe.Pointer(&p)) // C memory: the GC never moves it
	return unsafe.Slice((*byte)(base), n)
}

// FillMapped writes the 32-bit value v (in the host's byte order) over size
// bytes at off of the buffer bound to target through glMapBufferRange
// (GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_RANGE_BIT), which waits for the
// commands that use the buffer. It reports false when the driver does not map
// the range (an error flag is left). size is a multiple of 4.
func (f *Funcs) FillMapped(target uint32, off, size int64, v uint32) bool {
	if size <= 0 {
		return true
	}
	p := dl.Call(f.mapBufferRange, uintptr(target), uintptr(off), uintptr(size), MapWriteBit|MapInvalidateRangeBit)
	if p == 0 {
		return false
	}
	dst := mapped(p, size)
	binary.NativeEndian.PutUint32(dst, v)
	for n := 4; n < len(dst); n *= 2 { // doubling copies: a few memmoves, not a loop per word
		copy(dst[n:], dst[:n])
	}
	return uint32(dl.Call(f.unmapBuffer, uintptr(target))) != 0
}

// BindBufferBase binds b to the indexed target.
func (f *Funcs) BindBufferBase(target, index, b uint32) {
	dl.Call(f.bindBufferBase, uintptr(target), uintptr(index), uintptr(b))
}

// BindBufferRange binds a range of b to the indexed target.
func (f *Funcs) BindBufferRange(target, index, b uint32, off, size int64) {
	dl.Call(f.bindBufferRange, uintptr(target), uintptr(index), uintptr(b), uintptr(off), uintptr(size))
}

// CreateShader creates a shader object of type typ.
func (f *Funcs) CreateShader(typ uint32) uint32 { return uint32(dl.Call(f.createShader, uintptr(typ))) }

// ShaderSource sets a shader's source text.
func (f *Funcs) ShaderSource(sh uint32, src string) {
	b := []byte(src)
	if len(b) == 0 {
		b = []byte{0}
	}
	p := &b[0]
	n := int32(len(src))
	dl.Call(f.shaderSource, uintptr(sh), 1, uintptr(unsafe.Pointer(&p)), uintptr(unsafe.Pointer(&n)))
}

// CompileShader starts compiling sh.
func (f *Funcs) CompileShader(sh uint32) { dl.Call(f.compileShader, uintptr(sh)) }

// GetShader returns glGetShaderiv(sh, pname).
func (f *Funcs) GetShader(sh, pname uint32) int32 {
	var v int32
	dl.Call(f.getShaderiv, uintptr(sh), uintptr(pname), uintptr(unsafe.Pointer(&v)))
	return v
}

// ShaderInfoLog returns sh's info log.
func (f *Funcs) ShaderInfoLog(sh uint32) string {
	return infoLog(f.GetShader(sh, InfoLogLength), f.getShaderInfoLog, sh)
}

// infoLog reads the info log of n bytes (NUL included) of object obj
// through glGetShaderInfoLog or glGetProgramInfoLog (getLog).
func infoLog(n int32, getLog uintptr, obj uint32) string {
	if n <= 1 {
		return ""
	}
	b := make([]byte, n)
	var got int32
	dl.Call(getLog, uintptr(obj), uintptr(n), uintptr(unsafe.Pointer(&got)), uintptr(unsafe.Pointer(&b[0])))
	return strings.TrimRight(string(b[:max(0, min(int(got), len(b)))]), "\x00\n ")
}

// DeleteShader deletes sh.
func (f *Funcs) DeleteShader(sh uint32) { dl.Call(f.deleteShader, uintptr(sh)) }

// CreateProgram creates a program object.
func (f *Funcs) CreateProgram() uint32 { return uint32(dl.Call(f.createProgram)) }

// AttachShader attaches sh to p.
func (f *Funcs) AttachShader(p, sh uint32) { dl.Call(f.attachShader, uintptr(p), uintptr(sh)) }

// DetachShader detaches sh from p.
func (f *Funcs) DetachShader(p, sh uint32) { dl.Call(f.detachShader, uintptr(p), uintptr(sh)) }

// LinkProgram starts linking p.
func (f *Funcs) LinkProgram(p uint32) { dl.Call(f.linkProgram, uintptr(p)) }

// GetProgram returns glGetProgramiv(p, pname).
func (f *Funcs) GetProgram(p, pname uint32) int32 {
	var v int32
	dl.Call(f.getProgramiv, uintptr(p), uintptr(pname), uintptr(unsafe.Pointer(&v)))
	return v
}

// WorkGroupSize returns the linked compute program's local size.
func (f *Funcs) WorkGroupSize(p uint32) [3]int32 {
	var v [3]int32
	dl.Call(f.getProgramiv, uintptr(p), ComputeWorkGroupSize, uintptr(unsafe.Pointer(&v[0])))
	return v
}

// ProgramInfoLog returns p's info log.
func (f *Funcs) ProgramInfoLog(p uint32) string {
	return infoLog(f.GetProgram(p, InfoLogLength), f.getProgramInfoLog, p)
}

// DeleteProgram deletes p.
func (f *Funcs) DeleteProgram(p uint32) { dl.Call(f.deleteProgram, uintptr(p)) }

// UseProgram makes p the current program.
func (f *Funcs) UseProgram(p uint32) { dl.Call(f.useProgram, uintptr(p)) }

// DispatchCompute launches the current program over x×y×z work groups.
func (f *Funcs) DispatchCompute(x, y, z uint32) {
	dl.Call(f.dispatchCompute, uintptr(x), uintptr(y), uintptr(z))
}

// MemoryBarrier orders shader writes before later commands of the kinds in bits.
func (f *Funcs) MemoryBarrier(bits uint32) { dl.Call(f.memoryBarrier, uintptr(bits)) }

// ActiveResources returns how many resources program interface iface of p has.
func (f *Funcs) ActiveResources(p, iface uint32) int32 {
	var v int32
	dl.Call(f.getProgramInterfaceiv, uintptr(p), uintptr(iface), ActiveResources, uintptr(unsafe.Pointer(&v)))
	return v
}

// ResourceProp returns one property of resource i of interface iface of p.
func (f *Funcs) ResourceProp(p, iface, i, prop uint32) int32 {
	var v, length int32
	dl.Call(f.getProgramResourceiv, uintptr(p), uintptr(iface), uintptr(i), 1, uintptr(unsafe.Pointer(&prop)),
		1, uintptr(unsafe.Pointer(&length)), uintptr(unsafe.Pointer(&v)))
	return v
}

// HasParallelCompile reports whether the driver compiles shaders on its own
// threads (GL_KHR/ARB_parallel_shader_compile).
func (f *Funcs) HasParallelCompile() bool { return f.maxShaderCompilerThreads != 0 }

// MaxShaderCompilerThreads sets how many threads the driver compiles on.
func (f *Funcs) MaxShaderCompilerThreads(n uint32) {
	if f.maxShaderCompilerThreads != 0 {
		dl.Call(f.maxShaderCompilerThreads, uintptr(n))
	}
}

// FenceSync inserts a fence that signals when the commands before it are done.
func (f *Funcs) FenceSync() uintptr { return dl.Call(f.fenceSync, SyncGPUCommandsComplete, 0) }

// ClientWaitSync waits up to timeout nanoseconds for s.
func (f *Funcs) ClientWaitSync(s uintptr, flags uint32, timeout uint64) uint32 {
	return uint32(dl.Call(f.clientWaitSync, s, uintptr(flags), uintptr(timeout)))
}

// DeleteSync deletes s.
func (f *Funcs) DeleteSync(s uintptr) { dl.Call(f.deleteSync, s) }

// GenQueries creates len(ids) query names.
func (f *Funcs) GenQueries(ids []uint32) {
	if len(ids) > 0 {
		dl.Call(f.genQueries, uintptr(len(ids)), uintptr(unsafe.Pointer(&ids[0])))
	}
}

// DeleteQueries deletes queries.
func (f *Funcs) DeleteQueries(ids []uint32) {
	if len(ids) > 0 {
		dl.Call(f.deleteQueries, uintptr(len(ids)), uintptr(unsafe.Pointer(&ids[0])))
	}
}

// HasTimestamps reports whether glQueryCounter and glGetQueryObjectui64v (or
// their GL_EXT_disjoint_timer_query forms) are there.
func (f *Funcs) HasTimestamps() bool { return f.queryCounter != 0 && f.getQueryObjectui64v != 0 }

// QueryCounter records the GPU time into query id once the commands before
// it are done (target Timestamp).
func (f *Funcs) QueryCounter(id, target uint32) {
	if f.queryCounter == 0 {
		return
	}
	dl.Call(f.queryCounter, uintptr(id), uintptr(target))
}

// QueryResult64 reads a 64-bit query result into *dst (pname QueryResult
// waits for it; QueryResultAvailable does not).
func (f *Funcs) QueryResult64(id, pname uint32, dst *uint64) {
	if f.getQueryObjectui64v == 0 {
		*dst = 0
		return
	}
	dl.Call(f.getQueryObjectui64v, uintptr(id), uintptr(pname), uintptr(unsafe.Pointer(dst)))
}

// GetQuery returns glGetQueryiv(target, pname).
func (f *Funcs) GetQuery(target, pname uint32) int32 {
	var v int32
	dl.Call(f.getQueryiv, uintptr(target), uintptr(pname), uintptr(unsafe.Pointer(&v)))
	return v
}
