//go:build !cgo

package webgpu

import (
	"context"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// errNotCompiled is what the backend reports in a build without cgo: the
// wgpu-native binding is C code linked statically, so it needs cgo.
func errNotCompiled(op string) error {
	return &errors.Error{
		Backend: Name, Op: op, Category: errors.Unavailable, Err: backend.ErrNotCompiled,
		Msg:  "built without cgo",
		Hint: "the WebGPU backend links wgpu-native through cgo: build with CGO_ENABLED=1 and a C compiler (gcc or clang), or use the vulkan or opengl backend, which need no cgo",
	}
}

func probe(context.Context) ([]backend.DeviceInfo, error) { return nil, errNotCompiled("probe") }

func open(context.Context, int) (backend.Device, error) { return nil, errNotCompiled("open") }
