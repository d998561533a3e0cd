//go:build darwin

package objc

import (
	"fmt"
	"runtime"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/anygpu/gpu/internal/dl"
)

// Frameworks and libraries, by their install paths (on macOS 11 and later
// they live in the dyld shared cache; dlopen of the path still works).
// Everything is opened RTLD_GLOBAL, as the runtime and frameworks expect.
const (
	libobjcPath    = "/usr/lib/libobjc.A.dylib"
	foundationPath = "/System/Library/Frameworks/Foundation.framework/Foundation"
	metalPath      = "/System/Library/Frameworks/Metal.framework/Metal"
	iokitPath      = "/System/Library/Frameworks/IOKit.framework/IOKit"
)

// nsUTF8StringEncoding is NSUTF8StringEncoding, for
// initWithBytes:length:encoding:.
const nsUTF8StringEncoding = 4

// functions holds the resolved C functions. It is filled once, by load.
type functions struct {
	msgSend      uintptr // objc_msgSend
	msgSendStret uintptr // objc_msgSend_stret (amd64: struct returns in memory)
	getClass     uintptr // objc_getClass
	registerName uintptr // sel_registerName
	poolPush     uintptr // objc_autoreleasePoolPush
	poolPop      uintptr // objc_autoreleasePoolPop

	createSystemDefaultDevice uintptr // MTLCreateSystemDefaultDevice
	copyAllDevices            uintptr // MTLCopyAllDevices (0 where absent)

	// IOKit, for registry lookups; all 0 when IOKit could not be opened.
	ioRegistryEntryIDMatching       uintptr
	ioServiceGetMatchingService     uintptr
	ioRegistryEntrySearchCFProperty uintptr
	ioObjectRelease                 uintptr

	// sendF64 is objc_msgSend typed for a double return: the value comes
	// back in a floating-point register, which SyscallN does not return.
	// Off the hot path, so RegisterFunc is fine.
	sendF64 func(obj ID, s Sel) float64
	// sendSize is objc_msgSend (arm64) or objc_msgSend_stret (amd64, where
	// a 24-byte struct is returned through a hidden pointer) typed for an
	// MTLSize return.
	sendSize func(obj ID, s Sel) Size
}

var (
	fn      functions
	loadErr error
	once    sync.Once
)

// Load opens libobjc, Foundation, Metal.framework and (optionally) IOKit,
// resolves the functions, classes and selectors the backend uses, and
// remembers the outcome: later calls return the first one. The error says
// which library, symbol, class or selector is missing.
func Load() error {
	once.Do(func() { loadErr = load() })
	return loadErr
}

func load() (err error) {
	// purego.RegisterFunc panics on a signature it cannot handle; ours are
	// fixed, but a panic must never escape the backend.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("setting up the Objective-C bridge failed: %v", p)
		}
	}()
	objc, err := open(libobjcPath)
	if err != nil {
		return err
	}
	names := []string{"objc_msgSend", "objc_getClass", "sel_registerName", "objc_autoreleasePoolPush", "objc_autoreleasePoolPop", "objc_msgSend_stret"}
	ptrs := make([]uintptr, len(names))
	required := len(names) - 1
	if runtime.GOARCH == "amd64" {
		required++ // struct returns need objc_msgSend_stret
	}
	if err := dl.Resolve(objc, "libobjc", ptrs, names, required); err != nil {
		return err
	}
	fn.msgSend, fn.getClass, fn.registerName, fn.poolPush, fn.poolPop, fn.msgSendStret = ptrs[0], ptrs[1], ptrs[2], ptrs[3], ptrs[4], ptrs[5]
	if _, err := open(foundationPath); err != nil {
		return err
	}
	metal, err := open(metalPath)
	if err != nil {
		return err
	}
	if fn.createSystemDefaultDevice = dl.Sym(metal, "MTLCreateSystemDefaultDevice"); fn.createSystemDefaultDevice == 0 {
		return fmt.Errorf("Metal.framework lacks MTLCreateSystemDefaultDevice")
	}
	fn.copyAllDevices = dl.Sym(metal, "MTLCopyAllDevices") // macOS only; optional
	if iokit, err := open(iokitPath); err == nil {
		io := make([]uintptr, 4)
		if dl.Resolve(iokit, "IOKit", io, []string{"IORegistryEntryIDMatching", "IOServiceGetMatchingService",
			"IORegistryEntrySearchCFProperty", "IOObjectRelease"}, 4) == nil {
			fn.ioRegistryEntryIDMatching, fn.ioServiceGetMatchingService = io[0], io[1]
			fn.ioRegistryEntrySearchCFProperty, fn.ioObjectRelease = io[2], io[3]
		}
	}
	purego.RegisterFunc(&fn.sendF64, fn.msgSend)
	if runtime.GOARCH == "amd64" {
		purego.RegisterFunc(&fn.sendSize, fn.msgSendStret)
	} else {
		purego.RegisterFunc(&fn.sendSize, fn.msgSend)
	}
	for _, c := range classes {
		if *c.p = getClass(c.name); *c.p == 0 {
			return fmt.Errorf("the Objective-C runtime has no class %s", c.name)
		}
	}
	for _, s := range selectors {
		if *s.p = registerName(s.name); *s.p == 0 {
			return fmt.Errorf("sel_registerName(%q) failed", s.name)
		}
	}
	return nil
}

// open opens a library or framework with its symbols global.
func open(path string) (uintptr, error) {
	h, err := dl.Open(path, dl.Now|dl.Global)
	if err != nil {
		return 0, fmt.Errorf("cannot open %s", dl.DescribeOpenError(path, err))
	}
	return h, nil
}

func getClass(name string) ID {
	b := dl.CString(name)
	return ID(dl.Call(fn.getClass, uintptr(unsafe.Pointer(&b[0]))))
}

func registerName(name string) Sel {
	b := dl.CString(name)
	return Sel(dl.Call(fn.registerName, uintptr(unsafe.Pointer(&b[0]))))
}

// Messages with integer and pointer arguments and an integer, pointer or
// BOOL result; a message to nil does nothing and returns 0.

// Send sends s to o.
func (o ID) Send(s Sel) uintptr {
	r, _, _ := purego.SyscallN(fn.msgSend, uintptr(o), uintptr(s))
	return r
}

// Send1 sends s to o with one argument.
//
//go:uintptrescapes
func (o ID) Send1(s Sel, a uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn.msgSend, uintptr(o), uintptr(s), a)
	return r
}

// Send2 sends s to o with two arguments.
//
//go:uintptrescapes
func (o ID) Send2(s Sel, a, b uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn.msgSend, uintptr(o), uintptr(s), a, b)
	return r
}

// Send3 sends s to o with three arguments.
//
//go:uintptrescapes
func (o ID) Send3(s Sel, a, b, c uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn.msgSend, uintptr(o), uintptr(s), a, b, c)
	return r
}

// Send5 sends s to o with five arguments.
//
//go:uintptrescapes
func (o ID) Send5(s Sel, a, b, c, d, e uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn.msgSend, uintptr(o), uintptr(s), a, b, c, d, e)
	return r
}

// SendBytes sends s to o with the address and length of data, then arg: the
// shape of newBufferWithBytes:length:options: and setBytes:length:atIndex:.
// The callee copies the bytes before it returns. data must not be empty.
func (o ID) SendBytes(s Sel, data []byte, arg uintptr) uintptr {
	r, _, _ := purego.SyscallN(fn.msgSend, uintptr(o), uintptr(s), uintptr(unsafe.Pointer(&data[0])), uintptr(len(data)), arg)
	runtime.KeepAlive(data)
	return r
}

// SendError sends s to o with args and then an NSError ** out-parameter
// (the error: of newLibraryWithSource:options:error:), and returns the
// result and the NSError (autoreleased; 0 when none was set).
func (o ID) SendError(s Sel, args ...uintptr) (result, nsErr ID) {
	var e ID
	all := append([]uintptr{uintptr(o), uintptr(s)}, args...)
	all = append(all, uintptr(unsafe.Pointer(&e)))
	r, _, _ := purego.SyscallN(fn.msgSend, all...)
	runtime.KeepAlive(&e)
	return ID(r), e
}

// SendF64 sends s to o and returns its double result (GPUEndTime).
func (o ID) SendF64(s Sel) float64 { return fn.sendF64(o, s) }

// SendSize sends s to o and returns its MTLSize result
// (maxThreadsPerThreadgroup).
func (o ID) SendSize(s Sel) Size { return fn.sendSize(o, s) }

// Bool reads a BOOL result: a signed char in the low byte on x86-64 (the
// rest of the register is undefined), a bool on arm64.
func Bool(r uintptr) bool { return byte(r) != 0 }

// BoolArg is b as a BOOL argument.
func BoolArg(b bool) uintptr {
	if b {
		return 1
	}
	return 0
}

// Retain adds an owned reference to o and returns o.
func (o ID) Retain() ID {
	if o != 0 {
		o.Send(selRetain)
	}
	return o
}

// Release drops one owned reference; it does nothing on nil.
func (o ID) Release() {
	if o != 0 {
		o.Send(selRelease)
	}
}

// Responds reports whether o implements s, for methods newer than the
// oldest macOS Go supports (sending an unknown selector raises an
// Objective-C exception, which aborts the process).
func (o ID) Responds(s Sel) bool {
	return o != 0 && Bool(o.Send1(selRespondsToSelector, uintptr(s)))
}

// Pool is an autorelease pool pushed on the current OS thread.
type Pool uintptr

// EnterPool pins the goroutine to its OS thread (autorelease pools are per
// thread) and pushes a pool; Exit, which every caller defers, drains it and
// unpins.
func EnterPool() Pool {
	runtime.LockOSThread()
	p, _, _ := purego.SyscallN(fn.poolPush)
	return Pool(p)
}

// Exit drains the pool and unpins the goroutine.
func (p Pool) Exit() {
	purego.SyscallN(fn.poolPop, uintptr(p))
	runtime.UnlockOSThread()
}

// NewString returns an owned (+1) NSString holding s, or 0 when s is not
// valid UTF-8 (Foundation would return nil).
func NewString(s string) ID {
	if !utf8.ValidString(s) {
		return 0
	}
	b := dl.CString(s) // never empty, so &b[0] is valid; Foundation copies the bytes
	obj := ID(classNSString.Send(selAlloc))
	return ID(obj.Send3(selInitWithBytesLengthEncoding, uintptr(unsafe.Pointer(&b[0])), uintptr(len(s)), nsUTF8StringEncoding))
}

// GoString copies an NSString into Go memory ("" for nil). Call inside a
// pool: UTF8String returns memory that lives as long as the pool.
func GoString(str ID) string {
	if str == 0 {
		return ""
	}
	return dl.GoString(str.Send(selUTF8String))
}

// Strings copies an NSArray of NSStrings. Call inside a pool.
func Strings(arr ID) []string {
	n := int(arr.Send(selCount))
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, GoString(ID(arr.Send1(selObjectAtIndex, uintptr(i)))))
	}
	return out
}

// Objects returns the elements of an NSArray (+0: the array owns them).
func Objects(arr ID) []ID {
	n := int(arr.Send(selCount))
	out := make([]ID, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, ID(arr.Send1(selObjectAtIndex, uintptr(i))))
	}
	return out
}

// Dictionary returns an autoreleased NSDictionary of vals by keys (equal
// lengths, not empty), or 0. Call inside a pool.
func Dictionary(keys, vals []ID) ID {
	r := classNSDictionary.Send3(selDictionaryWithObjectsKeysCount,
		uintptr(unsafe.Pointer(&vals[0])), uintptr(unsafe.Pointer(&keys[0])), uintptr(len(keys)))
	runtime.KeepAlive(keys)
	runtime.KeepAlive(vals)
	return ID(r)
}

// Bytes views n bytes of memory at p that does not belong to Go (an
// MTLBuffer's contents) as a slice, valid while that memory is; nil for a
// nil p or n <= 0.
func Bytes(p uintptr, n int64) []byte {
	if p == 0 || n <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&p))), n)
}

// ReadError reads an NSError (the zero NSError for nil). Call inside a
// pool.
func ReadError(e ID) NSError {
	if e == 0 {
		return NSError{}
	}
	return NSError{
		Domain:      GoString(ID(e.Send(selDomain))),
		Code:        int64(e.Send(selCode)),
		Description: GoString(ID(e.Send(selLocalizedDescription))),
	}
}

// CreateSystemDefaultDevice is MTLCreateSystemDefaultDevice: the default
// MTLDevice (+1), or 0 (no GPU, or no window server).
func CreateSystemDefaultDevice() ID {
	return ID(dl.Call(fn.createSystemDefaultDevice))
}

// CopyAllDevices is MTLCopyAllDevices: an NSArray of every MTLDevice (+1),
// or 0 where the function does not exist.
func CopyAllDevices() ID {
	if fn.copyAllDevices == 0 {
		return 0
	}
	return ID(dl.Call(fn.copyAllDevices))
}
