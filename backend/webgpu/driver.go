package webgpu

import (
	"context"

	"github.com/anygpu/gpu/backend"
)

// Name is the backend's registered name.
const Name = "webgpu"

func init() { backend.Register(Driver{}) }

// Driver is the WebGPU backend's driver. The zero value is ready to use.
type Driver struct{}

var _ backend.Driver = Driver{}

// Name returns "webgpu".
func (Driver) Name() string { return Name }

// Probe lists the WebGPU adapters wgpu-native finds, best first (discrete
// GPUs, then integrated, then software; Vulkan, Metal and D3D12 before
// OpenGL). Without cgo it returns an error wrapping backend.ErrNotCompiled.
func (Driver) Probe(ctx context.Context) ([]backend.DeviceInfo, error) { return probe(ctx) }

// Open creates a device on the adapter with the given ordinal, an index into
// Probe's list (ANYGPU_DEVICE picks it through the root package).
func (Driver) Open(ctx context.Context, ordinal int) (backend.Device, error) {
	return open(ctx, ordinal)
}
