//go:build !((darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64))

package vulkan

import (
	"context"
	"fmt"
	"runtime"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

func init() { backend.Register(Driver{}) }

// Driver is the Vulkan backend's driver; on this platform it reports that the
// backend was not compiled in.
type Driver struct {
	NoTimeline        bool // fences instead of timeline semaphores (see the real backend)
	NoPushDescriptors bool // descriptor pools instead of push descriptors
	NoTransferQueue   bool // every command on the compute queue
}

// Name returns "vulkan".
func (Driver) Name() string { return Name }

func notCompiled() error {
	return &errors.Error{Backend: Name, Op: "probe", Category: errors.Unavailable,
		Msg:  fmt.Sprintf("the Vulkan backend supports 64-bit Linux, Windows, macOS and BSD, not %s/%s", runtime.GOOS, runtime.GOARCH),
		Hint: "use another backend on this platform", Err: backend.ErrNotCompiled}
}

// Probe reports that the backend is not compiled for this platform.
func (Driver) Probe(context.Context) ([]backend.DeviceInfo, error) { return nil, notCompiled() }

// Open reports that the backend is not compiled for this platform.
func (Driver) Open(context.Context, int) (backend.Device, error) { return nil, notCompiled() }

// ValidationMessages returns nothing: the backend is not compiled here.
func ValidationMessages() []ValidationMessage { return nil }

// ValidationEnabled reports false: the backend is not compiled here.
func ValidationEnabled() (bool, string) { return false, notCompiled().Error() }

// GLSLCompiler reports false: the backend is not compiled here.
func GLSLCompiler() (bool, string) { return false, notCompiled().Error() }

// SPIRVValidator reports false: the backend is not compiled here.
func SPIRVValidator() (bool, string) { return false, notCompiled().Error() }
