package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
)

// openChoice is the device gpu.Open would open, as `gpu info` tells it.
type openChoice struct {
	Backend string `json:"backend"`
	Ordinal int    `json:"ordinal"`
	Name    string `json:"name"`
	// Why says how it was chosen.
	Why string `json:"why"`
	// Skipped lists the backends passed over for a software renderer,
	// with why.
	Skipped []string `json:"skipped,omitempty"`
	// Err, when not "", is why gpu.Open would fail instead.
	Err string `json:"error,omitempty"`
}

// chooseDevice applies gpu.Open's selection to a probe report: the backends
// of ANYGPU_BACKEND (else gpu.DefaultOrder), in order; the first available
// one that has device ANYGPU_DEVICE (default 0) wins, except that a software
// renderer (lavapipe, llvmpipe) is passed over unless its backend is named;
// failing all, the CPU device (unless the CPU was in the list already). It reads the report rather than opening a
// device so `gpu info` stays a probe (TestChooseDeviceMatchesOpen checks
// it against gpu.Open).
func chooseDevice(rep gpu.Report, getenv func(string) string) openChoice {
	var names []string
	env := strings.TrimSpace(getenv(gpu.EnvBackend))
	named := env != ""
	order := "the default order " + strings.Join(gpu.DefaultOrder, ",")
	if named {
		order = gpu.EnvBackend + "=" + env
		for _, n := range strings.Split(env, ",") {
			if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
				names = append(names, n)
			}
		}
	} else {
		names = gpu.DefaultOrder
	}
	ordinal := 0
	if env := strings.TrimSpace(getenv(gpu.EnvDevice)); env != "" {
		n, err := strconv.Atoi(env)
		if err != nil || n < 0 {
			return openChoice{Err: fmt.Sprintf("%s=%q is not a device ordinal (0, 1, ...)", gpu.EnvDevice, env)}
		}
		ordinal = n
	}
	var c openChoice
	for _, name := range names {
		st, ok := rep.Backend(name)
		if !ok || st.State != gpu.Available || ordinal >= len(st.Devices) {
			continue
		}
		d := st.Devices[ordinal]
		if d.Type == backend.TypeSoftware && !named {
			c.Skipped = append(c.Skipped, fmt.Sprintf("%s:%d %s is a software renderer, slower than the CPU backend (%s=%s uses it anyway)",
				name, ordinal, d.Name, gpu.EnvBackend, name))
			continue
		}
		c.Backend, c.Ordinal, c.Name = name, ordinal, d.Name
		c.Why = "the first usable backend of " + order
		if name == "cpu" && !named {
			c.Why = "no GPU backend is usable: the CPU fallback"
		}
		return c
	}
	if !slices.Contains(names, "cpu") {
		if st, ok := rep.Backend("cpu"); ok && st.State == gpu.Available {
			c.Backend, c.Ordinal, c.Name, c.Why = "cpu", 0, st.Devices[0].Name, "no backend of "+order+" is usable: the CPU fallback"
			return c
		}
	}
	c.Err = "no usable device in " + order
	return c
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
