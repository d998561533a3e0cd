//go:build linux

package egl

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/anygpu/gpu/internal/dl"
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
	OpenGLES3Bit   = 0x0040 // EGL_OPENGL_ES3_BIT (EGL_KHR_create_context, EGL 1.5)
	OpenGLAPI      = 0x30A2
	OpenGLESAPI    = 0x30A0
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

// sym names one EGL function of the library's symbol table.
type sym int

const (
	symGetError sym = iota
	symGetProcAddress
	symQueryString
	symGetDisplay
	symInitialize
	symTerminate
	symBindAPI
	symChooseConfig
	symCreateContext
	symDestroyContext
	symMakeCurrent
	symReleaseThread
	numSyms
)

// symNames are the exported functions every EGL library has (EGL 1.4).
var symNames = [numSyms]string{
	symGetError:       "eglGetError",
	symGetProcAddress: "eglGetProcAddress",
	symQueryString:    "eglQueryString",
	symGetDisplay:     "eglGetDisplay",
	symInitialize:     "eglInitialize",
	symTerminate:      "eglTerminate",
	symBindAPI:        "eglBindAPI",
	symChooseConfig:   "eglChooseConfig",
	symCreateContext:  "eglCreateContext",
	symDestroyContext: "eglDestroyContext",
	symMakeCurrent:    "eglMakeCurrent",
	symReleaseThread:  "eglReleaseThread",
}

// Lib is an opened libEGL and its entry points. It is never closed: driver
// libraries do not survive being unloaded, and their state is per process.
type Lib struct {
	Path string // the file that was opened

	fn [numSyms]uintptr
	// extensions, resolved by Open through eglGetProcAddress (0 if absent)
	getPlatformDisplayEXT, getPlatformDisplay, queryDevicesEXT, queryDeviceStringEXT uintptr
	queryDeviceAttribEXT                                                             uintptr
}

// libs is the outcome of opening the library, by the path Open was given.
var libs dl.Memo[*Lib]

// Open opens the EGL library at path (the default libEGL.so.1, then
// libEGL.so, when path is empty) with its symbols global (EGL vendor
// libraries look up the loader's), and resolves its entry points. The
// outcome, success or failure, is kept per path for the life of the
// process.
func Open(path string) (*Lib, error) {
	return libs.Get(path, func() (*Lib, error) {
		candidates := []string{path}
		if path == "" {
			candidates = []string{defaultLibrary, fallbackLibrary}
		}
		l := &Lib{}
		found, err := dl.Load(dl.Spec{Candidates: candidates, Mode: dl.Now | dl.Global, Accept: l.resolve})
		if err != nil {
			return nil, err
		}
		l.Path = found.Path
		l.getPlatformDisplayEXT = l.GetProcAddress("eglGetPlatformDisplayEXT")
		l.getPlatformDisplay = l.GetProcAddress("eglGetPlatformDisplay")
		l.queryDevicesEXT = l.GetProcAddress("eglQueryDevicesEXT")
		l.queryDeviceStringEXT = l.GetProcAddress("eglQueryDeviceStringEXT")
		l.queryDeviceAttribEXT = l.GetProcAddress("eglQueryDeviceAttribEXT")
		return l, nil
	})
}

// resolve fills l's symbol table from the library candidate path opened as
// handle; it fails naming the first function the library lacks.
func (l *Lib) resolve(handle uintptr, path string) error {
	if dl.Resolve(handle, path, l.fn[:], symNames[:], int(numSyms)) == nil {
		return nil
	}
	for i, p := range l.fn {
		if p == 0 {
			return fmt.Errorf("%s: symbol %s not found: the library is not a usable EGL implementation", path, symNames[i])
		}
	}
	return nil
}

// ok reports whether an EGLBoolean result is EGL_TRUE.
func ok(r uintptr) bool { return uint32(r) == eglTrue }

// GetError returns the calling thread's last EGL error (EGL_SUCCESS if none).
func (l *Lib) GetError() int { return int(int32(dl.Call(l.fn[symGetError]))) }

// GetProcAddress resolves an EGL or client API (GL) function; 0 if unknown.
func (l *Lib) GetProcAddress(name string) uintptr {
	b := dl.CString(name)
	return dl.Call(l.fn[symGetProcAddress], uintptr(unsafe.Pointer(&b[0])))
}

// QueryString returns eglQueryString(dpy, name); "" when it returns NULL.
// With NoDisplay and Extensions it lists the client extensions.
func (l *Lib) QueryString(dpy Display, name int) string {
	return dl.GoString(dl.Call(l.fn[symQueryString], uintptr(dpy), uintptr(name)))
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
	return Display(dl.Call(fn, uintptr(platform), native, 0))
}

// Initialize initializes dpy and returns its EGL version.
func (l *Lib) Initialize(dpy Display) (major, minor int, success bool) {
	var v [2]int32
	r := dl.Call(l.fn[symInitialize], uintptr(dpy), uintptr(unsafe.Pointer(&v[0])), uintptr(unsafe.Pointer(&v[1])))
	return int(v[0]), int(v[1]), ok(r)
}

// Terminate releases dpy's resources.
func (l *Lib) Terminate(dpy Display) bool { return ok(dl.Call(l.fn[symTerminate], uintptr(dpy))) }

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
	r := dl.Call(l.queryDevicesEXT, uintptr(len(devs)), uintptr(unsafe.Pointer(&devs[0])), uintptr(unsafe.Pointer(&n)))
	if !ok(r) {
		return nil, false
	}
	return devs[:n], true
}

// QueryDeviceString returns eglQueryDeviceStringEXT(dev, name), "" on error.
func (l *Lib) QueryDeviceString(dev Device, name int) string {
	if l.queryDeviceStringEXT == 0 {
		return ""
	}
	r := dl.Call(l.queryDeviceStringEXT, uintptr(dev), uintptr(name))
	if r == 0 {
		l.GetError() // clear EGL_BAD_PARAMETER for an unsupported name
	}
	return dl.GoString(r)
}

// QueryDeviceAttrib returns eglQueryDeviceAttribEXT(dev, attr).
func (l *Lib) QueryDeviceAttrib(dev Device, attr int) (int64, bool) {
	if l.queryDeviceAttribEXT == 0 {
		return 0, false
	}
	var v int64 // EGLAttrib is intptr_t
	if !ok(dl.Call(l.queryDeviceAttribEXT, uintptr(dev), uintptr(attr), uintptr(unsafe.Pointer(&v)))) {
		l.GetError()
		return 0, false
	}
	return v, true
}

// BindAPI sets the calling thread's client API (OpenGLAPI or OpenGLESAPI).
func (l *Lib) BindAPI(api int) bool { return ok(dl.Call(l.fn[symBindAPI], uintptr(api))) }

// attribList returns attribs (a list of name, value pairs) with the closing
// None appended.
func attribList(attribs []int32) []int32 { return append(append([]int32(nil), attribs...), None) }

// ChooseConfig returns the first config of dpy matching attribs (a list of
// name, value pairs; None is appended).
func (l *Lib) ChooseConfig(dpy Display, attribs []int32) (Config, bool) {
	list := attribList(attribs)
	var cfg Config
	var n int32
	r := dl.Call(l.fn[symChooseConfig], uintptr(dpy), uintptr(unsafe.Pointer(&list[0])),
		uintptr(unsafe.Pointer(&cfg)), 1, uintptr(unsafe.Pointer(&n)))
	return cfg, ok(r) && n > 0
}

// CreateContext creates a context of the thread's bound API (attribs as for
// ChooseConfig).
func (l *Lib) CreateContext(dpy Display, cfg Config, share Context, attribs []int32) Context {
	list := attribList(attribs)
	return Context(dl.Call(l.fn[symCreateContext], uintptr(dpy), uintptr(cfg), uintptr(share), uintptr(unsafe.Pointer(&list[0]))))
}

// DestroyContext destroys ctx (deferred by EGL while it is current).
func (l *Lib) DestroyContext(dpy Display, ctx Context) bool {
	return ok(dl.Call(l.fn[symDestroyContext], uintptr(dpy), uintptr(ctx)))
}

// MakeCurrent binds ctx to the calling thread with no surface (ctx NoContext
// releases the current one).
func (l *Lib) MakeCurrent(dpy Display, ctx Context) bool {
	return ok(dl.Call(l.fn[symMakeCurrent], uintptr(dpy), uintptr(NoSurface), uintptr(NoSurface), uintptr(ctx)))
}

// ReleaseThread releases the calling thread's EGL state.
func (l *Lib) ReleaseThread() bool { return ok(dl.Call(l.fn[symReleaseThread])) }

// HasExtension reports whether the space-separated list exts names ext.
func HasExtension(exts, ext string) bool {
	for _, e := range strings.Fields(exts) {
		if e == ext {
			return true
		}
	}
	return false
}
