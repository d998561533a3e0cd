//go:build linux

package opengl

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/opengl/internal/egl"
	"github.com/anygpu/gpu/backend/opengl/internal/gl"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/hostmem"
)

// Minimum versions: compute shaders, shader storage buffers,
// glClearBufferSubData and program interface queries are core in OpenGL 4.3;
// compute shaders, shader storage buffers and program interface queries in
// OpenGL ES 3.1.
const (
	wantMajor   = 4
	wantMinor   = 3
	wantESMajor = 3
	wantESMinor = 1
)

// esVersionPrefix starts the GL_VERSION of every OpenGL ES context.
const esVersionPrefix = "OpenGL ES "

// apiLabel names a context's API in messages: "OpenGL 4.3 core" or "OpenGL ES
// 3.1".
func apiLabel(es bool) string {
	if es {
		return fmt.Sprintf("OpenGL ES %d.%d", wantESMajor, wantESMinor)
	}
	return fmt.Sprintf("OpenGL %d.%d core", wantMajor, wantMinor)
}

// Platforms a display comes from.
const (
	platformDevice      = "device"      // EGL_EXT_platform_device
	platformSurfaceless = "surfaceless" // EGL_MESA_platform_surfaceless
)

// candidate is one device that gave a working OpenGL 4.3 core or OpenGL ES
// 3.1 context.
type candidate struct {
	lib      *egl.Lib
	dpy      egl.Display
	es       bool // the context is OpenGL ES 3.1
	platform string
	config   egl.Config
	devExts  string // EGL device extensions ("" on the surfaceless platform)
	drmFile  string
	cudaDev  int64 // EGL_CUDA_DEVICE_NV, -1 when unknown
	software bool
	eglVer   string
	info     backend.DeviceInfo
}

var (
	probeMu    sync.Mutex
	probeCache = map[string][]*candidate{} // by ANYGPU_EGL_LIBRARY and API
)

// probe enumerates once per process (per EGL library and API) and reports
// the devices found.
func probe(ctx context.Context, api API) ([]backend.DeviceInfo, error) {
	cands, err := candidates(ctx, "probe", api)
	if err != nil {
		return nil, err
	}
	out := make([]backend.DeviceInfo, len(cands))
	for i, c := range cands {
		out[i] = c.info
	}
	return out, nil
}

// candidates returns the cached device list, enumerating on first use. The
// enumeration runs on a locked OS thread of its own; ctx bounds the wait.
func candidates(ctx context.Context, op string, api API) ([]*candidate, error) {
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	path := os.Getenv(EnvLibrary)
	key := path + "\x00" + api.String()
	type result struct {
		cands []*candidate
		err   error
	}
	ch := make(chan result, 1)
	go func() {
		probeMu.Lock()
		defer probeMu.Unlock()
		if c, ok := probeCache[key]; ok {
			ch <- result{cands: c}
			return
		}
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		c, err := enumerate(path, op, api)
		if err == nil {
			probeCache[key] = c
		}
		ch <- result{c, err}
	}()
	select {
	case r := <-ch:
		return r.cands, r.err
	case <-ctx.Done():
		return nil, errors.Wrap(ctx.Err(), Name, op)
	}
}

// quietPrimed records that Mesa's EGL logger has been initialised (it reads
// EGL_LOG_LEVEL once, at its first message) while EGL_LOG_LEVEL was set.
var quietPrimed bool

// quietMesa sets EGL_LOG_LEVEL=fatal, unless the user set it, so that Mesa's
// loader does not print warnings ("MESA-LOADER: failed to open ...") on
// stderr while devices are probed; the returned function restores the
// environment. Mesa reads the variable once per process, so this is done only
// until one display has been initialised.
//
// Thread safety: os.Setenv also changes the C environment (through cgo or
// its cgo-free stand-in), and C's setenv is not safe against a concurrent getenv
// on another thread: a native library that reads the environment at that very
// moment (another backend probing concurrently) could read a stale entry. The
// window is a few microseconds, once per process, and only when
// EGL_LOG_LEVEL is unset; set EGL_LOG_LEVEL yourself to skip it entirely.
// Called with probeMu held.
func quietMesa() (restore func()) {
	if quietPrimed {
		return func() {}
	}
	if _, set := os.LookupEnv("EGL_LOG_LEVEL"); set {
		quietPrimed = true
		return func() {}
	}
	_ = os.Setenv("EGL_LOG_LEVEL", "fatal")
	return func() { _ = os.Unsetenv("EGL_LOG_LEVEL") }
}

// enumerate finds every device with a working context of api: OpenGL 4.3
// core, OpenGL ES 3.1, or (auto) the first of the two a device gives. It
// runs on a locked OS thread with probeMu held.
func enumerate(path, op string, api API) ([]*candidate, error) {
	restore := quietMesa()
	defer restore()
	lib, err := egl.Open(path)
	if err != nil {
		what := "libEGL.so.1"
		if path != "" {
			what = EnvLibrary + "=" + path
		}
		return nil, unavailable(op, fmt.Sprintf("cannot open %s: %v", what, err), hintInstall)
	}
	cext := lib.QueryString(egl.NoDisplay, egl.Extensions)
	lib.GetError()
	if strings.TrimSpace(cext) == "" {
		return nil, unavailable(op, "EGL ("+lib.Path+") reports no client extensions", hintVendor)
	}
	if !lib.HasPlatformDisplay() {
		return nil, unavailable(op, "EGL ("+lib.Path+") lacks eglGetPlatformDisplay (EGL_EXT_platform_base)", hintInstall)
	}
	var (
		found   []*candidate
		reasons []string
		hint    string // the first failure's own hint
	)
	fail := func(prefix string, err error) {
		reasons = append(reasons, prefix+err.Error())
		var pe *probeError
		if hint == "" && errors.As(err, &pe) {
			hint = pe.hint
		}
	}
	if egl.HasExtension(cext, "EGL_EXT_platform_device") && lib.HasDevices() {
		devs, ok := lib.QueryDevices()
		if !ok {
			reasons = append(reasons, "eglQueryDevicesEXT failed ("+hexName(eglErrorTable, int64(lib.GetError()))+")")
		}
		for i, dev := range devs {
			exts := lib.QueryDeviceString(dev, egl.Extensions)
			dpy := lib.GetPlatformDisplay(egl.PlatformDeviceEXT, uintptr(dev))
			if dpy == egl.NoDisplay {
				reasons = append(reasons, fmt.Sprintf("EGL device %d: no display (%s)", i, hexName(eglErrorTable, int64(lib.GetError()))))
				continue
			}
			c := &candidate{lib: lib, dpy: dpy, platform: platformDevice, devExts: exts, cudaDev: -1,
				software: egl.HasExtension(exts, "EGL_MESA_device_software")}
			if egl.HasExtension(exts, "EGL_EXT_device_drm") {
				c.drmFile = lib.QueryDeviceString(dev, egl.DRMDeviceFileEXT)
			}
			if egl.HasExtension(exts, "EGL_NV_device_cuda") {
				if v, ok := lib.QueryDeviceAttrib(dev, egl.CUDADeviceNV); ok {
					c.cudaDev = v
				}
			}
			if err := c.checkAPI(api); err != nil {
				fail(fmt.Sprintf("EGL device %d: ", i), err)
				continue
			}
			found = append(found, c)
		}
		// Hardware first, then software renderers; otherwise in EGL's order.
		sort.SliceStable(found, func(i, j int) bool { return !found[i].software && found[j].software })
	}
	if len(found) == 0 && egl.HasExtension(cext, "EGL_MESA_platform_surfaceless") {
		dpy := lib.GetPlatformDisplay(egl.PlatformSurfacelessMESA, 0)
		if dpy == egl.NoDisplay {
			reasons = append(reasons, "surfaceless display: "+hexName(eglErrorTable, int64(lib.GetError())))
		} else {
			c := &candidate{lib: lib, dpy: dpy, platform: platformSurfaceless, cudaDev: -1}
			if err := c.checkAPI(api); err != nil {
				fail("surfaceless display: ", err)
			} else {
				found = append(found, c)
			}
		}
	}
	if len(found) == 0 {
		if len(reasons) == 0 {
			reasons = append(reasons, "EGL ("+lib.Path+") offers neither EGL_EXT_platform_device nor EGL_MESA_platform_surfaceless")
		}
		if hint == "" {
			hint = hintInstall
		}
		return nil, unavailable(op, "no device gives a headless "+wanted(api)+" context: "+strings.Join(reasons, "; "), hint)
	}
	for i, c := range found {
		c.info.Ordinal = i
	}
	return found, nil
}

// wanted names the contexts api asks for, in messages.
func wanted(api API) string {
	switch api {
	case APIGL:
		return apiLabel(false)
	case APIGLES:
		return apiLabel(true)
	}
	return apiLabel(false) + " or " + apiLabel(true)
}

// checkAPI checks the candidate for api: with auto, desktop OpenGL 4.3 core
// first and OpenGL ES 3.1 where that fails (the reason gives both failures).
func (c *candidate) checkAPI(api API) error {
	quietPrimed = true // eglInitialize is where Mesa logs first
	if err := c.initDisplay(); err != nil {
		return err // the display fails either API
	}
	c.es = api == APIGLES
	err := c.check()
	if err == nil || api != APIAuto {
		return err
	}
	c.es = true
	errES := c.check()
	if errES == nil {
		return nil
	}
	c.es = false
	pe := &probeError{msg: err.Error() + "; and " + apiLabel(true) + ": " + errES.Error()}
	pe.hint = hintOf(err, hintOf(errES, ""))
	return pe
}

// check picks a config of the candidate's API on its initialised display,
// creates a context of the API (OpenGL 4.3 core or OpenGL ES 3.1) on the
// calling (locked) thread, reads the device's description
// from it, and destroys it again. Displays stay initialised for the life of
// the process: eglTerminate would pull them from under other devices of the
// same display, and EGL keeps no reference count.
func (c *candidate) check() error {
	if err := c.chooseConfig(); err != nil {
		return err
	}
	ctx, err := c.newContext()
	if err != nil {
		return err
	}
	defer c.destroyContext(ctx)
	f, err := gl.Load(c.lib.GetProcAddress, c.es)
	if err != nil {
		return err
	}
	lim, err := readLimits(f)
	if err != nil {
		return err
	}
	c.info = c.describe(f, lim)
	return nil
}

// initDisplay initialises the display and checks the extensions a headless
// context of either API needs.
func (c *candidate) initDisplay() error {
	l := c.lib
	major, minor, ok := l.Initialize(c.dpy)
	if !ok {
		return eglFail("eglInitialize", l.GetError())
	}
	c.eglVer = fmt.Sprintf("%d.%d", major, minor)
	exts := l.QueryString(c.dpy, egl.Extensions)
	if !egl.HasExtension(exts, "EGL_KHR_surfaceless_context") {
		return &probeError{msg: "the display lacks EGL_KHR_surfaceless_context (a context without a surface)",
			hint: "update Mesa or the GPU driver"}
	}
	if !egl.HasExtension(exts, "EGL_KHR_create_context") && (major < 1 || (major == 1 && minor < 5)) {
		return &probeError{msg: fmt.Sprintf("EGL %d.%d without EGL_KHR_create_context cannot ask for a context version (%s or %s)", major, minor, apiLabel(false), apiLabel(true)),
			hint: "update Mesa or the GPU driver"}
	}
	return nil
}

// chooseConfig checks that the initialised display offers the candidate's
// API and picks a config of it (none where the display takes contexts
// without one).
func (c *candidate) chooseConfig() error {
	l := c.lib
	exts := l.QueryString(c.dpy, egl.Extensions)
	apis := l.QueryString(c.dpy, egl.ClientAPIs)
	if c.es && !egl.HasExtension(apis, "OpenGL_ES") {
		return &probeError{msg: fmt.Sprintf("the display offers no OpenGL ES (client APIs %q)", apis),
			hint: "set " + EnvAPI + "=gl (or auto) to use desktop OpenGL, or use another backend (ANYGPU_BACKEND)"}
	}
	if !c.es && !egl.HasExtension(apis, "OpenGL") {
		return &probeError{msg: fmt.Sprintf("the display offers no desktop OpenGL (client APIs %q)", apis),
			hint: "the driver supports only OpenGL ES here: set " + EnvAPI + "=gles (or auto) for OpenGL ES 3.1, or use another backend (ANYGPU_BACKEND)"}
	}
	c.config = egl.NoConfig
	if !egl.HasExtension(exts, "EGL_KHR_no_config_context") && !egl.HasExtension(exts, "EGL_MESA_configless_context") {
		api, bit, what := int(egl.OpenGLAPI), int32(egl.OpenGLBit), "desktop OpenGL"
		if c.es {
			api, bit, what = egl.OpenGLESAPI, egl.OpenGLES3Bit, "OpenGL ES 3"
		}
		if !l.BindAPI(api) {
			return eglFail(fmt.Sprintf("eglBindAPI(%s)", eglAPIName(c.es)), l.GetError())
		}
		var found bool
		for _, surface := range []int32{egl.PbufferBit, 0} {
			if c.config, found = l.ChooseConfig(c.dpy, []int32{egl.RenderableType, bit, egl.SurfaceType, surface}); found {
				break
			}
		}
		if !found {
			return eglFail("eglChooseConfig found no "+what+" config", l.GetError())
		}
	}
	return nil
}

// eglAPIName is the EGL name of the client API of a context.
func eglAPIName(es bool) string {
	if es {
		return "EGL_OPENGL_ES_API"
	}
	return "EGL_OPENGL_API"
}

// limits are the context's numbers the backend works with.
type limits struct {
	vendor, renderer, version, glsl string
	es                              bool // an OpenGL ES context (GL_VERSION "OpenGL ES ...")
	major, minor                    int
	exts                            map[string]bool
	maxBlock                        int64 // GL_MAX_SHADER_STORAGE_BLOCK_SIZE
	maxSSBOs                        int   // GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS
	maxUBO                          int64 // GL_MAX_UNIFORM_BLOCK_SIZE
	uboAlign                        int64 // GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT
	ssboAlign                       int64 // GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT
	invocations                     int
	groupSize, groupCount           backend.Dim3
	shared                          int
	timestampBits                   int
	bufferStorage, parallelCompile  bool
	// persistent: buffers can be mapped persistently and coherently
	// (glBufferStorage, core in OpenGL 4.4, GL_ARB_buffer_storage, or
	// GL_EXT_buffer_storage on OpenGL ES): host buffers and the staging of
	// large transfers are such buffers.
	persistent bool
	// subgroupOps are the GL_KHR_shader_subgroup features the compute stage
	// has (GL_SUBGROUP_SUPPORTED_FEATURES_KHR; 0 without the extension).
	subgroupOps  uint32
	subgroupSize int // GL_SUBGROUP_SIZE_KHR where subgroupOps is set
}

// readLimits queries the current context (of f's API) and checks its
// version.
func readLimits(f *gl.Funcs) (*limits, error) {
	l := &limits{
		vendor:   f.GetString(gl.Vendor),
		renderer: f.GetString(gl.Renderer),
		version:  f.GetString(gl.Version),
		glsl:     f.GetString(gl.ShadingLanguageVersion),
	}
	var ok bool
	l.es, l.major, l.minor, ok = parseVersion(l.version)
	if !ok {
		return nil, fmt.Errorf("cannot read GL_VERSION %q", l.version)
	}
	if l.es != f.ES {
		return nil, fmt.Errorf("asked for %s, the driver made a context of GL_VERSION %q", apiLabel(f.ES), l.version)
	}
	if l.es && (l.major < wantESMajor || (l.major == wantESMajor && l.minor < wantESMinor)) {
		return nil, &probeError{
			msg:  fmt.Sprintf("the driver gives OpenGL ES %d.%d (%s, %s); compute shaders need %d.%d", l.major, l.minor, l.renderer, l.version, wantESMajor, wantESMinor),
			hint: "update the GPU driver or Mesa, set " + EnvAPI + "=gl (or auto) where the device has desktop OpenGL 4.3, or use another backend (ANYGPU_BACKEND)",
		}
	}
	if !l.es && (l.major < wantMajor || (l.major == wantMajor && l.minor < wantMinor)) {
		return nil, &probeError{
			msg:  fmt.Sprintf("the driver gives OpenGL %d.%d (%s, %s); compute shaders need %d.%d", l.major, l.minor, l.renderer, l.version, wantMajor, wantMinor),
			hint: "update the GPU driver or Mesa (llvmpipe offers OpenGL 4.5 since Mesa 20.2), set " + EnvAPI + "=auto (or gles) to use OpenGL ES 3.1 where the device has it, or use another backend (ANYGPU_BACKEND)",
		}
	}
	l.exts = f.Extensions()
	if l.exts["GL_KHR_shader_subgroup"] && f.GetInteger(gl.SubgroupSupportedStagesKHR)&gl.ComputeShaderBit != 0 {
		// Only for a size package kernel allows: a power of two up to 128.
		if size := f.GetInteger(gl.SubgroupSizeKHR); size > 0 && size <= 128 && size&(size-1) == 0 {
			l.subgroupOps = uint32(f.GetInteger(gl.SubgroupSupportedFeaturesKHR))
			l.subgroupSize = int(size)
		}
	}
	l.maxBlock = f.GetInteger(gl.MaxShaderStorageBlockSize)
	l.maxSSBOs = int(f.GetInteger(gl.MaxComputeShaderStorageBlocks))
	l.maxUBO = f.GetInteger(gl.MaxUniformBlockSize)
	l.uboAlign = max(f.GetInteger(gl.UniformBufferOffsetAlignment), 4)
	l.ssboAlign = max(f.GetInteger(gl.ShaderStorageBufferOffsetAlign), 4)
	l.invocations = int(f.GetInteger(gl.MaxComputeWorkGroupInvocations))
	l.shared = int(f.GetInteger(gl.MaxComputeSharedMemorySize))
	l.groupSize = backend.Dim3{X: int(f.GetIntegerIndexed(gl.MaxComputeWorkGroupSize, 0)),
		Y: int(f.GetIntegerIndexed(gl.MaxComputeWorkGroupSize, 1)), Z: int(f.GetIntegerIndexed(gl.MaxComputeWorkGroupSize, 2))}
	l.groupCount = backend.Dim3{X: int(uint32(f.GetIntegerIndexed(gl.MaxComputeWorkGroupCount, 0))),
		Y: int(uint32(f.GetIntegerIndexed(gl.MaxComputeWorkGroupCount, 1))), Z: int(uint32(f.GetIntegerIndexed(gl.MaxComputeWorkGroupCount, 2)))}
	if f.HasTimestamps() && (!l.es || l.exts["GL_EXT_disjoint_timer_query"]) {
		l.timestampBits = int(f.GetQuery(gl.Timestamp, gl.QueryCounterBits))
	}
	// OpenGL ES buffers stay mutable (glBufferData): reads and fills map
	// them, which immutable storage allows only with the map bits set.
	l.bufferStorage = !l.es && f.HasBufferStorage() && (l.major > 4 || l.minor >= 4 || l.exts["GL_ARB_buffer_storage"])
	l.persistent = f.HasBufferStorage() && (l.bufferStorage || (l.es && l.exts["GL_EXT_buffer_storage"]))
	l.parallelCompile = f.HasParallelCompile() && (l.exts["GL_KHR_parallel_shader_compile"] || l.exts["GL_ARB_parallel_shader_compile"])
	for f.GetError() != gl.NoError { // a query the driver does not know leaves a flag
	}
	if l.invocations <= 0 || l.groupSize.X <= 0 || l.groupCount.X <= 0 || l.maxBlock <= 0 || l.maxSSBOs <= 0 {
		return nil, fmt.Errorf("the driver reports no compute limits (%s, %s)", l.renderer, l.version)
	}
	return l, nil
}

// parseVersion reads a GL_VERSION: "4.5 (Core Profile) Mesa 22.3.6" or
// "4.3.0 NVIDIA 580.1" of desktop OpenGL, "OpenGL ES 3.2 Mesa 22.3.6" (es) of
// OpenGL ES.
func parseVersion(v string) (es bool, major, minor int, ok bool) {
	v = strings.TrimSpace(v)
	if rest, found := strings.CutPrefix(v, esVersionPrefix); found {
		es, v = true, strings.TrimSpace(rest)
	}
	field, _, _ := strings.Cut(v, " ")
	parts := strings.Split(field, ".")
	if len(parts) < 2 {
		return es, 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	return es, major, minor, err1 == nil && err2 == nil
}

// describe builds the DeviceInfo of the current context.
func (c *candidate) describe(f *gl.Funcs, l *limits) backend.DeviceInfo {
	software := c.software || isSoftware(l.renderer)
	c.software = software
	name, api, apiVersion := l.renderer, "gl", fmt.Sprintf("OpenGL %d.%d core", l.major, l.minor)
	if l.es {
		name, api, apiVersion = l.renderer+" (OpenGL ES)", "gles", fmt.Sprintf("OpenGL ES %d.%d", l.major, l.minor)
	}
	info := backend.DeviceInfo{
		Backend:            Name,
		Name:               name,
		Vendor:             l.vendor,
		Type:               deviceType(l.vendor, l.renderer, software),
		DriverVersion:      l.version,
		APIVersion:         apiVersion,
		MaxThreadsPerBlock: l.invocations,
		MaxBlockDim:        l.groupSize,
		MaxGridDim:         l.groupCount,
		SharedMemPerBlock:  l.shared,
		FP64:               !l.es, // GLSL 4.00+ has double; GLSL ES has none
		UnifiedMemory:      software,
		TimestampPeriodNs:  1,
		Extra: map[string]string{
			"api":               api,
			"egl_platform":      c.platform,
			"egl_version":       c.eglVer,
			"egl_vendor":        c.lib.QueryString(c.dpy, egl.Vendor),
			"egl_library":       c.lib.Path,
			"glsl_version":      l.glsl,
			"max_storage_block": strconv.FormatInt(l.maxBlock, 10),
			"max_storage_bufs":  strconv.Itoa(l.maxSSBOs),
			"queue":             "one per context: streams are ordered queues onto it",
		},
	}
	info.Extra["host_buffers"] = "Go memory, staged by the driver (no glBufferStorage)"
	if l.persistent {
		info.Extra["host_buffers"] = "persistently mapped GL buffers"
	}
	if l.timestampBits == 0 {
		info.TimestampPeriodNs = 0
		info.Extra["timestamps"] = "none (GL_QUERY_COUNTER_BITS is 0)"
	}
	if c.drmFile != "" {
		info.Extra["drm_device"] = c.drmFile
	}
	if c.cudaDev >= 0 {
		info.Extra["cuda_device"] = strconv.FormatInt(c.cudaDev, 10)
	}
	if l.exts["GL_EXT_memory_object"] {
		if uuid := f.DeviceUUID(); len(uuid) == 16 {
			info.UUID = formatUUID(uuid)
		}
	}
	if l.exts["GL_NV_shader_thread_group"] {
		info.Units = int(f.GetInteger(gl.SMCountNV))
		info.WarpSize = int(f.GetInteger(gl.WarpSizeNV))
	}
	if info.WarpSize == 0 && l.exts["GL_KHR_shader_subgroup"] {
		info.WarpSize = int(f.GetInteger(gl.SubgroupSizeKHR))
	}
	if ops := subgroupOpsString(l.subgroupOps); ops != "" {
		info.Extra["subgroup_ops"] = ops
	}
	if l.exts["GL_NVX_gpu_memory_info"] {
		info.MemoryBytes = f.GetInteger(gl.GPUMemoryInfoDedicatedVidmemNVX) << 10
	}
	for f.GetError() != gl.NoError {
	}
	if software {
		if info.Units == 0 {
			info.Units = softwareThreads()
		}
		if info.MemoryBytes == 0 {
			info.MemoryBytes = hostmem.Total()
		}
	}
	if info.Units <= 0 {
		info.Units = 1
		info.Extra["units"] = "unknown: OpenGL does not report compute units"
	}
	if info.MemoryBytes <= 0 {
		info.MemoryBytes = hostmem.Total()
		info.Extra["memory"] = "unknown: OpenGL does not report it; the host's memory stands in"
	}
	if info.MemoryBytes <= 0 {
		info.MemoryBytes = 1 << 30
	}
	for _, e := range []string{"GL_ARB_buffer_storage", "GL_ARB_gpu_shader_int64", "GL_KHR_shader_subgroup",
		"GL_NV_shader_thread_group", "GL_NVX_gpu_memory_info", "GL_ARB_parallel_shader_compile",
		"GL_KHR_parallel_shader_compile", "GL_EXT_memory_object", "GL_KHR_robustness", "GL_ARB_ES3_1_compatibility",
		"GL_EXT_disjoint_timer_query", "GL_EXT_gpu_shader5", "GL_OES_gpu_shader5", "GL_OES_shader_image_atomic"} {
		if l.exts[e] {
			info.Features = append(info.Features, e)
		}
	}
	return info
}

func formatUUID(u []byte) string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// isSoftware reports whether renderer is a CPU rasteriser.
func isSoftware(renderer string) bool {
	r := strings.ToLower(renderer)
	for _, s := range []string{"llvmpipe", "softpipe", "swrast", "swiftshader", "software rasterizer", "lavapipe"} {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}

func deviceType(vendor, renderer string, software bool) backend.DeviceType {
	if software {
		return backend.TypeSoftware
	}
	s := strings.ToLower(vendor + " " + renderer)
	switch {
	case strings.Contains(s, "virgl") || strings.Contains(s, "virtio") || strings.Contains(s, "svga3d") || strings.Contains(s, "vmware"):
		return backend.TypeVirtualGPU
	case strings.Contains(s, "tegra") || strings.Contains(s, "orin"):
		return backend.TypeIntegratedGPU
	case strings.Contains(s, "nvidia") || strings.Contains(s, "radeon") || strings.Contains(s, "amd") || strings.Contains(s, "ati "):
		return backend.TypeDiscreteGPU
	case strings.Contains(s, "intel") && !strings.Contains(s, "arc") && !strings.Contains(s, "dg2"):
		return backend.TypeIntegratedGPU
	case strings.Contains(s, "mali") || strings.Contains(s, "adreno") || strings.Contains(s, "powervr") ||
		strings.Contains(s, "apple") || strings.Contains(s, "v3d") || strings.Contains(s, "vivante"):
		return backend.TypeIntegratedGPU
	}
	return backend.TypeDiscreteGPU
}

// softwareThreads is how many threads llvmpipe runs on (LP_NUM_THREADS, or
// one per CPU).
func softwareThreads() int {
	if n, err := strconv.Atoi(os.Getenv("LP_NUM_THREADS")); err == nil && n > 0 {
		return n
	}
	return runtime.NumCPU()
}
