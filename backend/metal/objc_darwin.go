//go:build darwin

package metal

// The Objective-C runtime, reached with purego: libobjc's objc_msgSend and a
// few runtime functions, Foundation, Metal.framework and (optionally) IOKit,
// all opened with dlopen on first use, never from init.
//
// Why not purego's objc package: its init function dlopens libobjc and panics
// when that fails, at the start of every program that links this backend —
// DESIGN §3 wants init to only register — and its Send goes through
// reflection (objc.Send[T] even registers a new function on every call),
// which the per-launch path cannot afford. Here every message with integer
// and pointer arguments is one purego.SyscallN on objc_msgSend; the three
// that need the C ABI's float and struct rules (a double return, an MTLSize
// return, two MTLSize arguments) are handled explicitly (see sendF64,
// sendSize and dispatchThreadgroups).
//
// # Ownership rules
//
// No test here can catch a leak or a double release, so every
// Objective-C object the backend touches follows these rules, and each type
// documents which objects it owns:
//
//  1. Owned references (+1). Objects returned by alloc/init, new…, copy… and
//     by the C functions MTLCreateSystemDefaultDevice and MTLCopyAllDevices
//     belong to the caller. Each is stored in exactly one Go field (or local
//     variable) that owns it, and released exactly once: by the owner's
//     release path, which clears the field, so a second call is a no-op.
//  2. Autoreleased references (+0). Everything else a message returns
//     (commandBuffer, computeCommandEncoder, blitCommandEncoder, name,
//     localizedDescription, the NSError of an error: out-parameter,
//     dictionaryWithObjects:…) is valid until the enclosing autorelease pool
//     drains. Such objects are used only inside that pool: encoders are
//     ended before it drains, strings are copied into Go strings. The one
//     kept longer, the command buffer, is retained (+1) as soon as it is
//     created and from then on follows rule 1.
//  3. Pools. Every sequence of messages that can autorelease runs between
//     enterPool and exit, which pins the goroutine to its OS thread for the
//     duration (autorelease pools are per thread) and drains the pool on
//     every return path (exit is deferred).
//  4. Children of a device. Buffers, host buffers, streams, events and
//     modules register with their device; closing one releases its objects
//     and unregisters it, and closing the device releases whatever its
//     children still hold. The root package skips the backend's Close of
//     objects whose device is closed, so without rule 4 those would leak.
//  5. Work in flight. A command buffer keeps strong references to the buffers
//     its commands use (retainedReferences, the default), so closing a
//     buffer while queued work uses it cannot free memory under the GPU. The
//     stream also holds its own reference to each committed command buffer,
//     plus any object the command buffer needs that anygpu created for it (a
//     launch's pipeline state, a staging buffer), until it has completed and
//     the stream has collected its status.
//  6. Go never releases from a finalizer: releases happen only on the paths
//     above, at times the code chooses.

import (
	"fmt"
	"runtime"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/anygpu/gpu/errors"
)

// id is an Objective-C object pointer; sel a selector.
type (
	id  uintptr
	sel uintptr
)

// Frameworks and libraries, by their install paths (on macOS 11 and later
// they live in the dyld shared cache; dlopen of the path still works).
const (
	libobjcPath    = "/usr/lib/libobjc.A.dylib"
	foundationPath = "/System/Library/Frameworks/Foundation.framework/Foundation"
	metalPath      = "/System/Library/Frameworks/Metal.framework/Metal"
	iokitPath      = "/System/Library/Frameworks/IOKit.framework/IOKit"
)

// NSUTF8StringEncoding, for initWithBytes:length:encoding:.
const nsUTF8StringEncoding = 4

// objcRuntime holds the resolved functions. It is filled once, by load.
type objcRuntime struct {
	msgSend      uintptr // objc_msgSend
	msgSendStret uintptr // objc_msgSend_stret (amd64: struct returns in memory)
	getClass     uintptr // objc_getClass
	registerName uintptr // sel_registerName
	poolPush     uintptr // objc_autoreleasePoolPush
	poolPop      uintptr // objc_autoreleasePoolPop

	createSystemDefaultDevice uintptr // MTLCreateSystemDefaultDevice
	copyAllDevices            uintptr // MTLCopyAllDevices (0 where absent)

	// IOKit, for the GPU core count; 0 when IOKit could not be opened.
	ioRegistryEntryIDMatching       uintptr
	ioServiceGetMatchingService     uintptr
	ioRegistryEntrySearchCFProperty uintptr
	ioObjectRelease                 uintptr

	// sendF64 is objc_msgSend typed for a double return (GPUStartTime,
	// GPUEndTime): the value comes back in a floating-point register, which
	// SyscallN does not return. Off the hot path, so RegisterFunc is fine.
	sendF64 func(obj id, s sel) float64
	// sendSize is objc_msgSend (arm64) or objc_msgSend_stret (amd64, where a
	// 24-byte struct is returned through a hidden pointer) typed for an
	// MTLSize return (maxThreadsPerThreadgroup). Probe only.
	sendSize func(obj id, s sel) mtlSize

	classNSString, classNSNumber, classNSDictionary, classMTLCompileOptions id
}

var (
	rt     objcRuntime
	rtOnce sync.Once
	rtErr  error
)

// loadRuntime opens the libraries and resolves everything on first use. A
// failure is remembered: it is an Unavailable error with a hint.
func loadRuntime() error {
	rtOnce.Do(func() { rtErr = rt.load() })
	return rtErr
}

func unavailable(op, format string, args ...any) *errors.Error {
	return &errors.Error{
		Backend: Name, Op: op, Category: errors.Unavailable, Msg: fmt.Sprintf(format, args...),
		Hint: "Metal needs macOS 12 or later on a Mac with a Metal GPU; check System Information > Graphics, and that the process may use the GPU",
	}
}

func (r *objcRuntime) load() (err error) {
	// purego.RegisterFunc panics on a signature it cannot handle; ours are
	// fixed, but a panic must never escape the backend.
	defer func() {
		if p := recover(); p != nil {
			err = unavailable("load", "setting up the Objective-C bridge failed: %v", p)
		}
	}()
	open := func(path string) (uintptr, error) {
		h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			return 0, unavailable("load", "cannot open %s: %v", path, err)
		}
		return h, nil
	}
	sym := func(h uintptr, lib, name string) (uintptr, error) {
		p, err := purego.Dlsym(h, name)
		if err != nil || p == 0 {
			return 0, unavailable("load", "%s has no symbol %s: %v", lib, name, err)
		}
		return p, nil
	}
	objc, err := open(libobjcPath)
	if err != nil {
		return err
	}
	for _, s := range []struct {
		p    *uintptr
		name string
	}{
		{&r.msgSend, "objc_msgSend"},
		{&r.getClass, "objc_getClass"},
		{&r.registerName, "sel_registerName"},
		{&r.poolPush, "objc_autoreleasePoolPush"},
		{&r.poolPop, "objc_autoreleasePoolPop"},
	} {
		if *s.p, err = sym(objc, "libobjc", s.name); err != nil {
			return err
		}
	}
	if runtime.GOARCH == "amd64" {
		if r.msgSendStret, err = sym(objc, "libobjc", "objc_msgSend_stret"); err != nil {
			return err
		}
	}
	if _, err := open(foundationPath); err != nil {
		return err
	}
	metal, err := open(metalPath)
	if err != nil {
		return err
	}
	if r.createSystemDefaultDevice, err = sym(metal, "Metal.framework", "MTLCreateSystemDefaultDevice"); err != nil {
		return err
	}
	r.copyAllDevices, _ = purego.Dlsym(metal, "MTLCopyAllDevices") // macOS only; optional
	if iokit, err := purego.Dlopen(iokitPath, purego.RTLD_NOW|purego.RTLD_GLOBAL); err == nil {
		a, _ := purego.Dlsym(iokit, "IORegistryEntryIDMatching")
		b, _ := purego.Dlsym(iokit, "IOServiceGetMatchingService")
		c, _ := purego.Dlsym(iokit, "IORegistryEntrySearchCFProperty")
		d, _ := purego.Dlsym(iokit, "IOObjectRelease")
		if a != 0 && b != 0 && c != 0 && d != 0 {
			r.ioRegistryEntryIDMatching, r.ioServiceGetMatchingService = a, b
			r.ioRegistryEntrySearchCFProperty, r.ioObjectRelease = c, d
		}
	}
	purego.RegisterFunc(&r.sendF64, r.msgSend)
	if runtime.GOARCH == "amd64" {
		purego.RegisterFunc(&r.sendSize, r.msgSendStret)
	} else {
		purego.RegisterFunc(&r.sendSize, r.msgSend)
	}
	for _, c := range []struct {
		p    *id
		name string
	}{
		{&r.classNSString, "NSString"},
		{&r.classNSNumber, "NSNumber"},
		{&r.classNSDictionary, "NSDictionary"},
		{&r.classMTLCompileOptions, "MTLCompileOptions"},
	} {
		if *c.p = r.class(c.name); *c.p == 0 {
			return unavailable("load", "the Objective-C runtime has no class %s", c.name)
		}
	}
	for _, s := range selectors {
		if *s.p = r.selector(s.name); *s.p == 0 {
			return unavailable("load", "sel_registerName(%q) failed", s.name)
		}
	}
	return nil
}

func (r *objcRuntime) class(name string) id {
	b := cstr(name)
	c, _, _ := purego.SyscallN(r.getClass, uintptr(unsafe.Pointer(&b[0])))
	runtime.KeepAlive(b)
	return id(c)
}

func (r *objcRuntime) selector(name string) sel {
	b := cstr(name)
	s, _, _ := purego.SyscallN(r.registerName, uintptr(unsafe.Pointer(&b[0])))
	runtime.KeepAlive(b)
	return sel(s)
}

// cstr is s as a NUL-terminated C string in Go memory.
func cstr(s string) []byte { return append([]byte(s), 0) }

// Messages with integer and pointer arguments and an integer, pointer or
// BOOL result. objc_msgSend to nil does nothing and returns 0.

func send(o id, s sel) uintptr {
	r, _, _ := purego.SyscallN(rt.msgSend, uintptr(o), uintptr(s))
	return r
}

func send1(o id, s sel, a uintptr) uintptr {
	r, _, _ := purego.SyscallN(rt.msgSend, uintptr(o), uintptr(s), a)
	return r
}

func send2(o id, s sel, a, b uintptr) uintptr {
	r, _, _ := purego.SyscallN(rt.msgSend, uintptr(o), uintptr(s), a, b)
	return r
}

func send3(o id, s sel, a, b, c uintptr) uintptr {
	r, _, _ := purego.SyscallN(rt.msgSend, uintptr(o), uintptr(s), a, b, c)
	return r
}

func send5(o id, s sel, a, b, c, d, e uintptr) uintptr {
	r, _, _ := purego.SyscallN(rt.msgSend, uintptr(o), uintptr(s), a, b, c, d, e)
	return r
}

// boolOf reads a BOOL result: a signed char in the low byte on x86-64 (the
// rest of the register is undefined), a bool on arm64.
func boolOf(r uintptr) bool { return byte(r) != 0 }

// retain adds an owned reference to o (rule 1) and returns o.
func retain(o id) id {
	if o != 0 {
		send(o, selRetain)
	}
	return o
}

// release drops one owned reference; release(0) does nothing.
func release(o id) {
	if o != 0 {
		send(o, selRelease)
	}
}

// responds reports whether o implements selector s, for the methods newer
// than the oldest macOS Go supports (sending an unknown selector raises an
// Objective-C exception, which would abort the process).
func responds(o id, s sel) bool {
	return o != 0 && boolOf(send1(o, selRespondsToSelector, uintptr(s)))
}

// pool is an autorelease pool pushed on the current OS thread (rule 3).
type pool uintptr

// enterPool pins the goroutine to its thread and pushes a pool; exit, which
// every caller defers, drains it and unpins.
func enterPool() pool {
	runtime.LockOSThread()
	p, _, _ := purego.SyscallN(rt.poolPush)
	return pool(p)
}

func (p pool) exit() {
	purego.SyscallN(rt.poolPop, uintptr(p))
	runtime.UnlockOSThread()
}

// newNSString returns an owned (+1) NSString holding s, which must be valid
// UTF-8 (else Foundation returns nil, which newNSString returns as 0).
func newNSString(s string) id {
	if !utf8.ValidString(s) {
		return 0
	}
	b := []byte(s + "\x00") // never empty, so &b[0] is valid; Foundation copies the bytes
	obj := id(send(rt.classNSString, selAlloc))
	str := id(send3(obj, selInitWithBytesLengthEncoding, uintptr(unsafe.Pointer(&b[0])), uintptr(len(s)), nsUTF8StringEncoding))
	runtime.KeepAlive(b)
	return str
}

// goString copies an NSString into Go memory. Call inside a pool: UTF8String
// returns memory that lives as long as the pool.
func goString(str id) string {
	if str == 0 {
		return ""
	}
	return cString(send(str, selUTF8String))
}

// cString copies a NUL-terminated C string.
func cString(p uintptr) string {
	if p == 0 {
		return ""
	}
	ptr := *(*unsafe.Pointer)(unsafe.Pointer(&p))
	n := 0
	for *(*byte)(unsafe.Add(ptr, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(ptr), n))
}

// bytesAt views n bytes of C memory at p (an MTLBuffer's contents) as a Go
// slice. The memory belongs to the MTLBuffer: the slice is valid while the
// buffer is.
func bytesAt(p uintptr, n int64) []byte {
	if p == 0 || n <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&p))), n)
}

// readNSError reads an NSError's domain, code and localizedDescription.
// Call inside a pool.
func readNSError(e id) nsError {
	if e == 0 {
		return nsError{}
	}
	return nsError{
		Domain:      goString(id(send(e, selDomain))),
		Code:        int64(send(e, selCode)),
		Description: goString(id(send(e, selLocalizedDescription))),
	}
}

// stringsOf copies an NSArray of NSStrings. Call inside a pool.
func stringsOf(arr id) []string {
	n := int(send(arr, selCount))
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, goString(id(send1(arr, selObjectAtIndex, uintptr(i)))))
	}
	return out
}

// Selectors, registered by load.
var (
	selAlloc, selNew, selRetain, selRelease, selRespondsToSelector          sel
	selInitWithBytesLengthEncoding, selUTF8String, selCount                 sel
	selObjectAtIndex, selDomain, selCode, selLocalizedDescription           sel
	selIsKindOfClass, selLongLongValue, selDictionaryWithObjectsKeysCnt     sel
	selName, selRegistryID, selRecommendedMaxWorkingSetSize                 sel
	selCurrentAllocatedSize, selHasUnifiedMemory, selMaxThreadsPerTG        sel
	selMaxThreadgroupMemoryLength, selMaxBufferLength, selIsLowPower        sel
	selIsHeadless, selIsRemovable, selLocation, selMaxTransferRate          sel
	selArchitecture, selSupportsFamily                                      sel
	selNewCommandQueueWithMaxCount, selNewBufferWithLength                  sel
	selNewBufferWithBytes, selNewSharedEvent, selNewLibraryWithSource       sel
	selNewComputePipelineState, selContents                                 sel
	selCommandBuffer, selComputeCommandEncoder, selBlitCommandEncoder       sel
	selCommit, selWaitUntilCompleted, selStatus, selError                   sel
	selGPUStartTime, selGPUEndTime, selEncodeSignalEvent                    sel
	selEncodeWaitForEvent, selSetComputePipelineState, selSetBuffer         sel
	selSetBytes, selDispatchThreadgroups, selEndEncoding                    sel
	selCopyFromBuffer, selFillBuffer, selSignaledValue                      sel
	selSetSignaledValue, selNewFunctionWithName, selFunctionNames           sel
	selMaxTotalThreadsPerThreadgroup, selThreadExecutionWidth               sel
	selStaticThreadgroupMemoryLength, selSetFastMathEnabled, selSetMathMode sel
	selSetLanguageVersion, selSetPreprocessorMacros                         sel
)

var selectors = []struct {
	p    *sel
	name string
}{
	{&selAlloc, "alloc"},
	{&selNew, "new"},
	{&selRetain, "retain"},
	{&selRelease, "release"},
	{&selRespondsToSelector, "respondsToSelector:"},
	{&selInitWithBytesLengthEncoding, "initWithBytes:length:encoding:"},
	{&selUTF8String, "UTF8String"},
	{&selCount, "count"},
	{&selObjectAtIndex, "objectAtIndex:"},
	{&selDomain, "domain"},
	{&selCode, "code"},
	{&selLocalizedDescription, "localizedDescription"},
	{&selIsKindOfClass, "isKindOfClass:"},
	{&selLongLongValue, "longLongValue"},
	{&selDictionaryWithObjectsKeysCnt, "dictionaryWithObjects:forKeys:count:"},
	// MTLDevice
	{&selName, "name"},
	{&selRegistryID, "registryID"},
	{&selRecommendedMaxWorkingSetSize, "recommendedMaxWorkingSetSize"},
	{&selCurrentAllocatedSize, "currentAllocatedSize"},
	{&selHasUnifiedMemory, "hasUnifiedMemory"},
	{&selMaxThreadsPerTG, "maxThreadsPerThreadgroup"},
	{&selMaxThreadgroupMemoryLength, "maxThreadgroupMemoryLength"},
	{&selMaxBufferLength, "maxBufferLength"},
	{&selIsLowPower, "isLowPower"},
	{&selIsHeadless, "isHeadless"},
	{&selIsRemovable, "isRemovable"},
	{&selLocation, "location"},
	{&selMaxTransferRate, "maxTransferRate"},
	{&selArchitecture, "architecture"},
	{&selSupportsFamily, "supportsFamily:"},
	{&selNewCommandQueueWithMaxCount, "newCommandQueueWithMaxCommandBufferCount:"},
	{&selNewBufferWithLength, "newBufferWithLength:options:"},
	{&selNewBufferWithBytes, "newBufferWithBytes:length:options:"},
	{&selNewSharedEvent, "newSharedEvent"},
	{&selNewLibraryWithSource, "newLibraryWithSource:options:error:"},
	{&selNewComputePipelineState, "newComputePipelineStateWithFunction:error:"},
	// MTLBuffer
	{&selContents, "contents"},
	// MTLCommandQueue, MTLCommandBuffer
	{&selCommandBuffer, "commandBuffer"},
	{&selComputeCommandEncoder, "computeCommandEncoder"},
	{&selBlitCommandEncoder, "blitCommandEncoder"},
	{&selCommit, "commit"},
	{&selWaitUntilCompleted, "waitUntilCompleted"},
	{&selStatus, "status"},
	{&selError, "error"},
	{&selGPUStartTime, "GPUStartTime"},
	{&selGPUEndTime, "GPUEndTime"},
	{&selEncodeSignalEvent, "encodeSignalEvent:value:"},
	{&selEncodeWaitForEvent, "encodeWaitForEvent:value:"},
	// encoders
	{&selSetComputePipelineState, "setComputePipelineState:"},
	{&selSetBuffer, "setBuffer:offset:atIndex:"},
	{&selSetBytes, "setBytes:length:atIndex:"},
	{&selDispatchThreadgroups, "dispatchThreadgroups:threadsPerThreadgroup:"},
	{&selEndEncoding, "endEncoding"},
	{&selCopyFromBuffer, "copyFromBuffer:sourceOffset:toBuffer:destinationOffset:size:"},
	{&selFillBuffer, "fillBuffer:range:value:"},
	// MTLSharedEvent
	{&selSignaledValue, "signaledValue"},
	{&selSetSignaledValue, "setSignaledValue:"},
	// MTLLibrary, MTLComputePipelineState
	{&selNewFunctionWithName, "newFunctionWithName:"},
	{&selFunctionNames, "functionNames"},
	{&selMaxTotalThreadsPerThreadgroup, "maxTotalThreadsPerThreadgroup"},
	{&selThreadExecutionWidth, "threadExecutionWidth"},
	{&selStaticThreadgroupMemoryLength, "staticThreadgroupMemoryLength"},
	// MTLCompileOptions
	{&selSetFastMathEnabled, "setFastMathEnabled:"},
	{&selSetMathMode, "setMathMode:"},
	{&selSetLanguageVersion, "setLanguageVersion:"},
	{&selSetPreprocessorMacros, "setPreprocessorMacros:"},
}
