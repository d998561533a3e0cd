//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"context"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

func init() { backend.Register(Driver{}) }

// Driver is the Vulkan backend's driver. The zero value is the one
// registered; the fields switch optional Vulkan features off, to exercise
// the fallbacks a driver without them takes (tests, and drivers that
// misbehave with a feature).
type Driver struct {
	// NoTimeline uses a fence per submission instead of timeline
	// semaphores; Stream.Wait then blocks the host.
	NoTimeline bool
	// NoPushDescriptors binds buffers through descriptor sets allocated
	// from pools instead of VK_KHR_push_descriptor.
	NoPushDescriptors bool
	// NoTransferQueue keeps every command on the compute queue.
	NoTransferQueue bool

	// transferOnCompute gives a device without a transfer-only queue family
	// a transfer lane on its compute queue, so tests on such a device
	// (lavapipe) exercise the switching between lanes.
	transferOnCompute bool
	// noHostQueryReset resets timestamp queries in command buffers even
	// where the device can reset them on the host.
	noHostQueryReset bool
	// stageHost stages every pageable Write and Read through host-visible
	// memory even where device memory is mapped (lavapipe), so tests and
	// benchmarks on such a device run the staged paths of a discrete GPU.
	stageHost bool
}

var _ backend.Driver = Driver{}

// Name returns "vulkan".
func (Driver) Name() string { return Name }

// Probe lists the Vulkan 1.1+ devices with a compute queue, discrete GPUs
// first. It opens the loader and creates the process's instance on first
// use; without a loader or a driver it returns an Unavailable error with the
// reason and a hint.
func (Driver) Probe(ctx context.Context) ([]backend.DeviceInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, "probe")
	}
	in, err := getInstance()
	if err != nil {
		return nil, err
	}
	out := make([]backend.DeviceInfo, len(in.devices))
	for i, d := range in.devices {
		out[i] = d.info
		out[i].Extra = cloneMap(d.info.Extra)
		out[i].Features = append([]string(nil), d.info.Features...)
	}
	return out, nil
}

// Open opens device ordinal (an index into Probe's list).
func (drv Driver) Open(ctx context.Context, ordinal int) (backend.Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, "open")
	}
	in, err := getInstance()
	if err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= len(in.devices) {
		return nil, &errors.Error{Backend: Name, Op: "open", Category: errors.InvalidArgument,
			Msg:  "no device " + itoa(ordinal) + ": there are " + itoa(len(in.devices)),
			Hint: "pick an ordinal from `gpu info` (ANYGPU_DEVICE)"}
	}
	return openDevice(in, in.devices[ordinal], drv)
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
