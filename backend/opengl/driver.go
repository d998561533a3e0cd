package opengl

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/suggest"
)

// Name is the backend's registered name.
const Name = "opengl"

// EnvLibrary names an explicit EGL library to open instead of libEGL.so.1.
const EnvLibrary = "ANYGPU_EGL_LIBRARY"

// EnvAPI picks the client API of the registered driver's contexts: "gl"
// (desktop OpenGL 4.3 core), "gles" (OpenGL ES 3.1) or "auto" (the default:
// OpenGL 4.3 where a device has it, else OpenGL ES 3.1). Case and surrounding
// spaces do not matter. Driver.API, when set, takes precedence.
const EnvAPI = "ANYGPU_OPENGL_API"

// EnvStaging picks how a Write or Read of at least 2 MiB moves where the
// driver maps buffers persistently (glBufferStorage): "on" through a ring of
// mapped staging buffers that several goroutines fill and drain while the
// GPU copies, "off" through glBufferSubData and glGetBufferSubData, or
// "auto" (the default, also for any other value): on for hardware devices,
// off for software renderers, where staging adds a copy to a plain memcpy.
const EnvStaging = "ANYGPU_OPENGL_STAGING"

// EnvCopy picks how Copy moves data within a device: "shader" (a compute
// shader for the 16-byte-aligned bulk), "driver" (glCopyBufferSubData), or
// "auto" (the default, also for any other value): shader on hardware
// devices, driver on software renderers, whose glCopyBufferSubData is a
// memcpy.
const EnvCopy = "ANYGPU_OPENGL_COPY"

// EnvHostCopy picks how copies between device buffers and host or staging
// buffers (WriteHost, ReadHost, staged Writes and Reads) run: "driver" (the
// default, also for any other value: glCopyBufferSubData, which the driver
// may give a copy engine) or "shader" (the copy shader, whose loads or
// stores then cross the bus from the GPU's cores). A tuning knob.
const EnvHostCopy = "ANYGPU_OPENGL_HOST_COPY"

// stagingWanted reads EnvStaging's value for a device.
func stagingWanted(v string, software bool) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on":
		return true
	case "off":
		return false
	}
	return !software
}

func init() { backend.Register(Driver{}) }

// API is the client API of a device's context.
type API int

// Client APIs. APIAuto opens desktop OpenGL 4.3 core on a device that has it
// and OpenGL ES 3.1 on one that has only that.
const (
	APIAuto API = iota // OpenGL 4.3 core where there, else OpenGL ES 3.1
	APIGL              // desktop OpenGL 4.3 core only
	APIGLES            // OpenGL ES 3.1 only
)

// apiNames spell the APIs as EnvAPI does, in the order of the constants.
var apiNames = [...]string{"auto", "gl", "gles"}

// String returns the API as ANYGPU_OPENGL_API spells it ("gles").
func (a API) String() string {
	if a >= 0 && int(a) < len(apiNames) {
		return apiNames[a]
	}
	return fmt.Sprintf("API(%d)", int(a))
}

// ParseAPI reads an API as EnvAPI spells it, ignoring case and surrounding
// spaces ("" is auto). Anything else is an InvalidArgument error naming the
// value and the accepted forms, with a guess for a near miss.
func ParseAPI(s string) (API, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "" {
		return APIAuto, nil
	}
	for i, n := range apiNames {
		if v == n {
			return API(i), nil
		}
	}
	return APIAuto, &errors.Error{
		Backend: Name, Op: "client API", Category: errors.InvalidArgument,
		Msg: fmt.Sprintf("unknown OpenGL API %q (accepted: %s)%s", s, strings.Join(apiNames[:], ", "),
			suggest.DidYouMean(v, apiNames[:])),
		Hint: "set " + EnvAPI + " to gl (desktop OpenGL 4.3), gles (OpenGL ES 3.1) or auto (OpenGL 4.3 where there, else OpenGL ES 3.1), or unset it",
	}
}

// resolveAPI is the API a driver opens: its own field when set, else the
// environment's (env is EnvAPI's value). A malformed value names the variable
// or the field it came from.
func resolveAPI(field API, env string) (API, error) {
	switch field {
	case APIAuto:
	case APIGL, APIGLES:
		return field, nil
	default:
		return APIAuto, &errors.Error{Backend: Name, Op: "client API", Category: errors.InvalidArgument,
			Msg:  fmt.Sprintf("Driver.API is %v: not an OpenGL API", field),
			Hint: "use opengl.APIAuto, opengl.APIGL or opengl.APIGLES"}
	}
	a, err := ParseAPI(env)
	if err != nil {
		var e *errors.Error
		if errors.As(err, &e) {
			e.Msg = fmt.Sprintf("%s=%q: %s", EnvAPI, env, e.Msg)
		}
		return APIAuto, err
	}
	return a, nil
}

// Driver is the OpenGL backend's driver. The zero value, registered as
// "opengl", opens the client API EnvAPI asks for (by default desktop OpenGL
// 4.3 core, or OpenGL ES 3.1 where that is all a device has); open a device
// through gpu.OpenDriver with API set to ask for one.
type Driver struct {
	// API is the client API of the contexts; APIAuto defers to
	// ANYGPU_OPENGL_API, then to the device (OpenGL 4.3 core where there).
	API API
}

var _ backend.Driver = Driver{}

// Name returns "opengl".
func (Driver) Name() string { return Name }

// Probe lists the devices that give a headless context of the driver's API
// (see Driver.API): the EGL devices (EGL_EXT_platform_device) first, else
// Mesa's surfaceless display. It creates and destroys one context per device
// to check the version the driver really offers: OpenGL 4.3 core, or OpenGL
// ES 3.1. Without EGL, a vendor library, a driver or either API it returns an
// Unavailable error with the reason and a hint; a malformed ANYGPU_OPENGL_API
// is an InvalidArgument error. The first successful enumeration is kept for
// the life of the process, per API.
func (d Driver) Probe(ctx context.Context) ([]backend.DeviceInfo, error) {
	api, err := resolveAPI(d.API, os.Getenv(EnvAPI))
	if err != nil {
		return nil, err
	}
	return probe(ctx, api)
}

// Open creates a context of the driver's API on device ordinal (an index into
// Probe's list), owned by a goroutine on a locked OS thread.
func (d Driver) Open(ctx context.Context, ordinal int) (backend.Device, error) {
	api, err := resolveAPI(d.API, os.Getenv(EnvAPI))
	if err != nil {
		return nil, errors.Wrap(err, Name, fmt.Sprintf("open device %d", ordinal))
	}
	return open(ctx, ordinal, api)
}
