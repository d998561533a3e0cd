//go:build !linux

package opengl

import (
	"context"
	"runtime"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

func unsupported(op string) error {
	return &errors.Error{
		Backend: Name, Op: op, Category: errors.Unavailable,
		Msg:  "headless OpenGL through EGL is implemented on Linux only, not on " + runtime.GOOS,
		Hint: "use the metal backend on macOS, and cuda, vulkan or webgpu on Windows",
	}
}

func probe(ctx context.Context, _ API) ([]backend.DeviceInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, "probe")
	}
	return nil, unsupported("probe")
}

func open(ctx context.Context, _ int, _ API) (backend.Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, "open")
	}
	return nil, unsupported("open")
}
