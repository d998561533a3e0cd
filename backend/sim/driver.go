package sim

import (
	"context"
	"fmt"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// Name is the registered name of the simulator driver.
const Name = "sim"

func init() { backend.Register(Driver{}) }

// Driver is the simulator registered as "sim". By itself it has no devices:
// its Probe and Open fail with an Unavailable error that says how to
// configure simulated devices. Its Simulate method (backend.Simulator) is what
// the root package calls for ANYGPU_FAKE. The zero value is ready to use.
type Driver struct{}

var (
	_ backend.Driver    = Driver{}
	_ backend.Simulator = Driver{}
)

// Name returns "sim".
func (Driver) Name() string { return Name }

// Probe lists no device. It returns an error of category Unavailable rather
// than an empty list, so that `gpu info` explains how simulated devices are
// configured instead of reporting a backend that "found no device".
func (Driver) Probe(ctx context.Context) ([]backend.DeviceInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, "probe")
	}
	return nil, notConfigured("probe")
}

// Open fails: the sim driver has no devices of its own (see Probe).
func (Driver) Open(ctx context.Context, ordinal int) (backend.Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, "open")
	}
	return nil, notConfigured(fmt.Sprintf("open device %d", ordinal))
}

// Simulate returns a driver named backendName ("cuda", "vulkan", ...) whose
// Probe lists one simulated device per preset spec, in order, and whose Open
// opens them. A spec is a preset name with optional faults ("h100",
// "a100+oom@3", "" for the backend's default preset; see the package
// documentation). No specs at all means one device of the default preset.
// An unknown backend, preset or fault, or a malformed spec, is an
// InvalidArgument error naming ANYGPU_FAKE (whose entries the root package
// hands over) and the entry, listing the known ones, and saying which was
// likely meant when the name is near one ("did you mean").
func (Driver) Simulate(backendName string, presets []string) (backend.Driver, error) {
	if len(presets) == 0 {
		presets = []string{""}
	}
	for _, spec := range presets {
		if backendName == "" {
			break // newDriver says so
		}
		if _, _, err := ParseSpec(backendName, spec); err != nil {
			return nil, fakeEntryError(backendName, spec, err)
		}
	}
	return newDriver(backendName, presets, Faults{})
}

// envFake is the variable whose entries Simulate reads (the root package's
// gpu.EnvFake).
const envFake = "ANYGPU_FAKE"

// fakeEntryError is err, from reading spec for backendName, attributed to
// the ANYGPU_FAKE entry it came from, with the accepted presets.
func fakeEntryError(backendName, spec string, err error) error {
	entry := backendName
	if spec != "" {
		entry += ":" + spec
	}
	e, ok := err.(*errors.Error)
	if !ok {
		return errors.Wrap(err, Name, "simulate")
	}
	c := *e
	c.Op = "simulate"
	c.Msg = fmt.Sprintf("%s entry %q: %s", envFake, entry, e.Msg)
	c.Hint = "write " + envFake + "=backend:preset+fault,... with a preset of " + backendName + " (" + strings.Join(Presets(backendName), ", ") + ") or none for its default; " + specDocs
	if Presets(backendName) == nil {
		c.Hint = "write " + envFake + "=backend:preset+fault,... naming a simulated backend (" + strings.Join(Backends(), ", ") + "); " + specDocs
	}
	return &c
}

// NewDriver returns a driver that simulates devices of backendName, one per
// preset spec as Simulate does, with faults f injected into every device, for
// tests that pass it to gpu.OpenDriver. A spec's own faults ("h100+lose@2")
// take precedence over f's where both set the same fault. f.Unavailable makes
// the whole driver unavailable.
func NewDriver(backendName string, presets []string, f Faults) (backend.Driver, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	return newDriver(backendName, presets, f)
}

// simDriver presents simulated devices under a backend's name.
type simDriver struct {
	name        string
	devices     []deviceSpec
	unavailable string // reason, when some spec asks for it
}

// deviceSpec is one device a simDriver lists.
type deviceSpec struct {
	preset preset
	faults Faults
}

var _ backend.Driver = (*simDriver)(nil)

func newDriver(backendName string, specs []string, base Faults) (*simDriver, error) {
	if backendName == "" {
		return nil, errors.E(errors.InvalidArgument, Name, "simulate", "empty backend name (simulated backends: %s)", strings.Join(Backends(), ", "))
	}
	if len(specs) == 0 {
		specs = []string{""}
	}
	d := &simDriver{name: backendName}
	var reasons []string
	for _, spec := range specs {
		name, f, err := ParseSpec(backendName, spec)
		if err != nil {
			return nil, err
		}
		p, err := lookupPreset(backendName, name)
		if err != nil {
			return nil, err
		}
		f = base.over(f)
		d.devices = append(d.devices, deviceSpec{preset: p, faults: f})
		if f.Unavailable != "" && !containsString(reasons, f.Unavailable) {
			reasons = append(reasons, f.Unavailable)
		}
	}
	d.unavailable = strings.Join(reasons, "; ")
	return d, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Name is the simulated backend's name ("cuda", ...).
func (d *simDriver) Name() string { return d.name }

// Probe lists the simulated devices, or fails as an unavailable backend does.
func (d *simDriver) Probe(ctx context.Context) ([]backend.DeviceInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, d.name, "probe")
	}
	if d.unavailable != "" {
		return nil, unavailableError(d.name, "probe", d.unavailable)
	}
	out := make([]backend.DeviceInfo, len(d.devices))
	for i, s := range d.devices {
		out[i] = s.preset.build(d.name, i, s.faults)
	}
	return out, nil
}

// Open opens simulated device ordinal: a CPU device that reports the
// preset's DeviceInfo and injects the spec's faults.
func (d *simDriver) Open(ctx context.Context, ordinal int) (backend.Device, error) {
	op := fmt.Sprintf("open device %d", ordinal)
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, d.name, op)
	}
	if d.unavailable != "" {
		return nil, unavailableError(d.name, op, d.unavailable)
	}
	if ordinal < 0 || ordinal >= len(d.devices) {
		return nil, invalidDeviceError(d.name, op, ordinal, len(d.devices))
	}
	s := d.devices[ordinal]
	info := s.preset.build(d.name, ordinal, s.faults)
	return newDevice(info, s.preset.name, s.faults), nil
}
