package opengl

import (
	"context"

	"github.com/anygpu/gpu/backend"
)

// Name is the backend's registered name.
const Name = "opengl"

// EnvLibrary names an explicit EGL library to open instead of libEGL.so.1.
const EnvLibrary = "ANYGPU_EGL_LIBRARY"

func init() { backend.Register(Driver{}) }

// Driver is the OpenGL backend's driver. The zero value is ready to use.
type Driver struct{}

var _ backend.Driver = Driver{}

// Name returns "opengl".
func (Driver) Name() string { return Name }

// Probe lists the devices that give a headless OpenGL 4.3 core context: the
// EGL devices (EGL_EXT_platform_device) first, else Mesa's surfaceless
// display. It creates and destroys one context per device to check the
// version the driver really offers. Without EGL, a vendor library, a driver
// or OpenGL 4.3 it returns an Unavailable error with the reason and a hint.
// The first successful enumeration is kept for the life of the process.
func (Driver) Probe(ctx context.Context) ([]backend.DeviceInfo, error) { return probe(ctx) }

// Open creates an OpenGL context on device ordinal (an index into Probe's
// list), owned by a goroutine on a locked OS thread.
func (Driver) Open(ctx context.Context, ordinal int) (backend.Device, error) {
	return open(ctx, ordinal)
}
