//go:build linux

package egl

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Handles are opaque EGL pointers.
type (
	Display uintptr // EGLDisplay
	Config  uintptr // EGLConfig
	Context uintptr // EGLContext
	Surface uintptr // EGLSurface
	Device  uintptr // EGLDeviceEXT
)

// Null handles.
const (
	NoDisplay Display = 0
	NoContext Context = 0
	NoSurface Surface = 0
	NoConfig  Config  = 0 // EGL_NO_CONFIG_KHR
)

// EGL enums used by this package's callers.
const (
	Success           = 0x3000
	NotInitialized    = 0x3001
	BadAccess         = 0x3002
	BadAlloc          = 0x3003
	BadAttribute      = 0x3004
	BadConfig         = 0x3005
	BadContext        = 0x3006
	BadCurrentSurface = 0x3007
	BadDisplay        = 0x3008
	BadMatch          = 0x3009
	BadNativePixmap   = 0x300A
	BadNativeWindow   = 0x300B
	BadParameter      = 0x300C
	BadSurface        = 0x300D
	ContextLost       = 0x300E
	BadDeviceEXT      = 0x322B
	BadOutputLayerEXT = 0x322D
	BadOutputPortEXT  = 0x322E
	BadStateKHR       = 0x321C
	BadStreamKHR      = 0x321B

	None           = 0x3038
	Vendor         = 0x3053
	Version        = 0x3054
	Extensions     = 0x3055
	ClientAPIs     = 0x308D
	RenderableType = 0x3040
	SurfaceType    = 0x3033
	OpenGLBit      = 0x0008
	OpenGLAPI      = 0x30A2
	PbufferBit     = 0x0001

	ContextMajorVersion       = 0x3098
	ContextMinorVersion       = 0x30FB
	ContextOpenGLProfileMask  = 0x30FD
	ContextOpenGLCoreProfile  = 0x0001
	ContextOpenGLDebug        = 0x31B0
	ContextOpenGLNoErrorKHR   = 0x31B3
	ContextFlagsKHR           = 0x30FC
	PlatformDeviceEXT         = 0x313F
	PlatformSurfacelessMESA   = 0x31DD
	DRMDeviceFileEXT          = 0x3233
	DRMRenderNodeFileEXT      = 0x3377
	CUDADeviceNV              = 0x323A
	RendererEXT               = 0x335F // EGL_RENDERER_EXT (EGL_EXT_device_query_name)
	DeviceUUIDEXT             = 0x335C // EGL_DEVICE_UUID_EXT (EGL_EXT_device_persistent_id)
	DriverNameEXT             = 0x335E // EGL_DRIVER_NAME_EXT (EGL_EXT_device_persistent_id)
	defaultLibrary            = "libEGL.so.1"
	fallbackLibrary           = "libEGL.so"
	eglTrue                   = 1
	maxDevices                = 32
	ContextOpenGLRobustAccess = 0x31B2
)

// Lib is an opened libEGL and its entry points. It is never closed: driver
// libraries do not survive being unloaded, and their state is per process.
type Lib struct {
	Path string // the file that was opened

	getError, getProcAddress, queryString, getDisplay, initialize, terminate uintptr
	bindAPI, chooseConfig, createContext, destroyContext, makeCurrent        uintptr
	releaseThread                                                            uintptr
	// extensions, resolved by Load through eglGetProcAddress (0 if absent)
	getPlatformDisplayEXT, getPlatformDisplay, queryDevicesEXT, queryDeviceStringEXT uintptr
	queryDeviceAttribEXT                                                             uintptr
}

var (
	libsMu sync.Mutex
	libs   = map[string]*Lib{}
)

// Open opens the EGL library at path (the default libEGL.so.1, then
// libEGL.so, when path is empty) and resolves its entry points. A library is
// opened once per process and path.
func Open(path string) (*Lib, error) {
	libsMu.Lock()
	defer libsMu.Unlock()
	if l, ok := libs[path]; ok {
		return l, nil
	}
	candidates := []string{path}
	if path == "" {
		candidates = []string{defaultLibrary, fallbackLibrary}
	}
	var (
		handle uintptr
		used   string
		errs   []string
	)
	for _, c := range candidates {
		h, err := purego.Dlopen(c, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			handle, used = h, c
			break
		}
		errs = append(errs, err.Error())
	}
	if handle == 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	l := &Lib{Path: used}
	for _, s := range []struct {
		name string
		p    *uintptr
	}{
		{"eglGetError", &l.getError},
		{"eglGetProcAddress", &l.getProcAddress},
		{"eglQueryString", &l.queryString},
		{"eglGetDisplay", &l.getDisplay},
		{"eglInitialize", &l.initialize},
		{"eglTerminate", &l.terminate},
		{"eglBindAPI", &l.bindAPI},
		{"eglChooseConfig", &l.chooseConfig},
		{"eglCreateContext", &l.createContext},
		{"eglDestroyContext", &l.destroyContext},
		{"eglMakeCurrent", &l.makeCurrent},
		{"eglReleaseThread", &l.releaseThread},
	} {
		p, err := purego.Dlsym(handle, s.name)
		if err != nil || p == 0 {
			return nil, fmt.Errorf("%s: symbol %s not found: the library is not a usable EGL implementation", used, s.name)
		}
		*s.p = p
	}
	l.getPlatformDisplayEXT = l.GetProcAddress("eglGetPlatformDisplayEXT")
	l.getPlatformDisplay = l.GetProcAddress("eglGetPlatformDisplay")
	l.queryDevicesEXT = l.GetProcAddress("eglQueryDevicesEXT")
	l.queryDeviceStringEXT = l.GetProcAddress("eglQueryDeviceStringEXT")
	l.queryDeviceAttribEXT = l.GetProcAddress("eglQueryDeviceAttribEXT")
	libs[path] = l
	return l, nil
}

// cstr returns s as a NUL-terminated byte slice.
func cstr(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}

// GoString copies the NUL-terminated C string at p ("" for NULL).
func GoString(p uintptr) string {
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

// GetError returns the calling thread's last EGL error (EGL_SUCCESS if none).
func (l *Lib) GetError() int {
	r, _, _ := purego.SyscallN(l.getError)
	return int(int32(r))
}

// GetProcAddress resolves an EGL or client API (GL) function; 0 if unknown.
func (l *Lib) GetProcAddress(name string) uintptr {
	b := cstr(name)
	r, _, _ := purego.SyscallN(l.getProcAddress, uintptr(unsafe.Pointer(&b[0])))
	return r
}

// QueryString returns eglQueryString(dpy, name); "" when it returns NULL.
// With NoDisplay and Extensions it lists the client extensions.
func (l *Lib) QueryString(dpy Display, name int) string {
	r, _, _ := purego.SyscallN(l.queryString, uintptr(dpy), uintptr(name))
	return GoString(r)
}

// HasPlatformDisplay reports whether eglGetPlatformDisplay(EXT) is there.
func (l *Lib) HasPlatformDisplay() bool {
	return l.getPlatformDisplayEXT != 0 || l.getPlatformDisplay != 0
}

// GetPlatformDisplay returns the display of native on platform (no
// attributes), through eglGetPlatformDisplayEXT or EGL 1.5's
// eglGetPlatformDisplay.
func (l *Lib) GetPlatformDisplay(platform int, native uintptr) Display {
	fn := l.getPlatformDisplayEXT
	if fn == 0 {
		fn = l.getPlatformDisplay
	}
	if fn == 0 {
		return NoDisplay
	}
	r, _, _ := purego.SyscallN(fn, uintptr(platform), native, 0)
	return Display(r)
}

// Initialize initializes dpy and returns its EGL version.
func (l *Lib) Initialize(dpy Display) (major, minor int, ok bool) {
	var v [2]int32
	r, _, _ := purego.SyscallN(l.initialize, uintptr(dpy), uintptr(unsafe.Pointer(&v[0])), uintptr(unsafe.Pointer(&v[1])))
	return int(v[0]), int(v[1]), uint32(r) == eglTrue
}

// Terminate releases dpy's resources.
func (l *Lib) Terminate(dpy Display) bool {
	r, _, _ := purego.SyscallN(l.terminate, uintptr(dpy))
	return uint32(r) == eglTrue
}

// HasDevices reports whether device enumeration (EGL_EXT_device_enumeration)
// is there.
func (l *Lib) HasDevices() bool { return l.queryDevicesEXT != 0 }

// QueryDevices lists the EGL devices (EGL_EXT_device_enumeration).
func (l *Lib) QueryDevices() ([]Device, bool) {
	if l.queryDevicesEXT == 0 {
		return nil, false
	}
	var n int32
	devs := make([]Device, maxDevices)
	r, _, _ := purego.SyscallN(l.queryDevicesEXT, uintptr(len(devs)), uintptr(unsafe.Pointer(&devs[0])), uintptr(unsafe.Pointer(&n)))
	if uint32(r) != eglTrue {
		return nil, false
	}
	return devs[:n], true
}

// QueryDeviceString returns eglQueryDeviceStringEXT(dev, name), "" on error.
func (l *Lib) QueryDeviceString(dev Device, name int) string {
	if l.queryDeviceStringEXT == 0 {
		return ""
	}
	r, _, _ := purego.SyscallN(l.queryDeviceStringEXT, uintptr(dev), uintptr(name))
	s := GoString(r)
	if r == 0 {
		l.GetError() // clear EGL_BAD_PARAMETER for an unsupported name
	}
	return s
}

// QueryDeviceAttrib returns eglQueryDeviceAttribEXT(dev, attr).
func (l *Lib) QueryDeviceAttrib(dev Device, attr int) (int64, bool) {
	if l.queryDeviceAttribEXT == 0 {
		return 0, false
	}
	var v int64 // EGLAttrib is intptr_t
	r, _, _ := purego.SyscallN(l.queryDeviceAttribEXT, uintptr(dev), uintptr(attr), uintptr(unsafe.Pointer(&v)))
	if uint32(r) != eglTrue {
		l.GetError()
		return 0, false
	}
	return v, true
}

// BindAPI sets the calling thread's client API (OpenGLAPI).
func (l *Lib) BindAPI(api int) bool {
	r, _, _ := purego.SyscallN(l.bindAPI, uintptr(api))
	return uint32(r) == eglTrue
}

// ChooseConfig returns the first config of dpy matching attribs (a list of
// name, value pairs; None is appended).
func (l *Lib) ChooseConfig(dpy Display, attribs []int32) (Config, bool) {
	list := append(append([]int32(nil), attribs...), None)
	var cfg Config
	var n int32
	r, _, _ := purego.SyscallN(l.chooseConfig, uintptr(dpy), uintptr(unsafe.Pointer(&list[0])),
		uintptr(unsafe.Pointer(&cfg)), 1, uintptr(unsafe.Pointer(&n)))
	return cfg, uint32(r) == eglTrue && n > 0
}

// CreateContext creates a context of the thread's bound API (attribs as for
// ChooseConfig).
func (l *Lib) CreateContext(dpy Display, cfg Config, share Context, attribs []int32) Context {
	list := append(append([]int32(nil), attribs...), None)
	r, _, _ := purego.SyscallN(l.createContext, uintptr(dpy), uintptr(cfg), uintptr(share), uintptr(unsafe.Pointer(&list[0])))
	return Context(r)
}

// DestroyContext destroys ctx (deferred by EGL while it is current).
func (l *Lib) DestroyContext(dpy Display, ctx Context) bool {
	r, _, _ := purego.SyscallN(l.destroyContext, uintptr(dpy), uintptr(ctx))
	return uint32(r) == eglTrue
}

// MakeCurrent binds ctx to the calling thread with no surface (ctx NoContext
// releases the current one).
func (l *Lib) MakeCurrent(dpy Display, ctx Context) bool {
	r, _, _ := purego.SyscallN(l.makeCurrent, uintptr(dpy), uintptr(NoSurface), uintptr(NoSurface), uintptr(ctx))
	return uint32(r) == eglTrue
}

// ReleaseThread releases the calling thread's EGL state.
func (l *Lib) ReleaseThread() bool {
	r, _, _ := purego.SyscallN(l.releaseThread)
	return uint32(r) == eglTrue
}

// HasExtension reports whether the space-separated list exts names ext.
func HasExtension(exts, ext string) bool {
	for _, e := range strings.Fields(exts) {
		if e == ext {
			return true
		}
	}
	return false
}
