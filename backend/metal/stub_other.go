//go:build !darwin

package metal

import (
	"context"
	"runtime"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// unavailable is the error of every Probe and Open off Apple platforms.
func unavailable(op string) error {
	return &errors.Error{
		Backend: Name, Op: op, Category: errors.Unavailable,
		Msg: "Metal exists only on Apple platforms (this is " + runtime.GOOS + "/" + runtime.GOARCH + ")",
		Hint: "run on macOS to use Metal; on this machine use another backend (gpu info lists them), " +
			"or ANYGPU_FAKE=metal to simulate an Apple GPU in tests",
	}
}

func probe(context.Context) ([]backend.DeviceInfo, error) { return nil, unavailable("probe") }

func open(_ context.Context, _ int, _ Storage, _ string) (backend.Device, error) {
	return nil, unavailable("open")
}
