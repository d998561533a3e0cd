package main

import (
	"fmt"
	"io"

	"github.com/anygpu/gpu"
)

// openChoice is the device gpu.Open would open, as `gpu info` tells it:
// gpu.Report.Choose's answer, flattened for the JSON report.
type openChoice struct {
	Backend string `json:"backend"`
	Ordinal int    `json:"ordinal"`
	Name    string `json:"name"`
	// Why says how it was chosen.
	Why string `json:"why"`
	// Skipped lists the backends that were available but passed over (a
	// software renderer nobody named, no device of the requested ordinal),
	// with why; the report's table already says why the others are not used.
	Skipped []string `json:"skipped,omitempty"`
	// Err, when not "", is why gpu.Open would fail instead.
	Err string `json:"error,omitempty"`
}

// chooseDevice is gpu.Open's choice on the machine that probed as rep
// (rep.Choose, under this process's ANYGPU_BACKEND and ANYGPU_DEVICE and the
// given options), without opening a device, so `gpu info` stays a probe.
func chooseDevice(rep gpu.Report, opts ...gpu.Option) openChoice {
	c, err := rep.Choose(opts...)
	if err != nil {
		return openChoice{Err: err.Error()}
	}
	oc := openChoice{Backend: c.Device.Backend, Ordinal: c.Device.Ordinal, Name: c.Device.Name, Why: c.Why}
	for _, p := range c.PassedOver {
		if p.State != gpu.Available {
			continue
		}
		s := p.Backend + ": " + p.Reason
		if p.Hint != "" {
			s += "; " + p.Hint
		}
		oc.Skipped = append(oc.Skipped, s)
	}
	return oc
}

// is reports whether the choice is device d of backend name.
func (c openChoice) is(name string, d gpu.DeviceInfo) bool {
	return c.Err == "" && c.Backend == name && c.Ordinal == d.Ordinal
}

// write prints the choice under the report's table.
func (c openChoice) write(w io.Writer) {
	if c.Err != "" {
		fmt.Fprintf(w, "gpu.Open would fail: %s\n", c.Err)
	} else {
		fmt.Fprintf(w, "gpu.Open picks %s:%d  %s (%s)\n", c.Backend, c.Ordinal, c.Name, c.Why)
	}
	for _, s := range c.Skipped {
		fmt.Fprintf(w, "  skipped %s\n", s)
	}
}
