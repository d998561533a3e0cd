package gpu

import (
	"slices"
	"sort"
	"strings"

	"github.com/anygpu/gpu/backend"
	_ "github.com/anygpu/gpu/backend/cpu" // the CPU device is always there to fall back to
	"github.com/anygpu/gpu/errors"
)

// DefaultOrder is the order Open tries backends in when none are named.
var DefaultOrder = []string{"cuda", "metal", "vulkan", "webgpu", "opengl", "cpu"}

const cpuBackend = "cpu"

// Backends returns the names of the registered backends, sorted.
func Backends() []string {
	var out []string
	for _, d := range backend.Drivers() {
		out = append(out, d.Name())
	}
	return out
}

// candidate is a backend Open or Probe may use: a registered driver, or a
// simulated stand-in.
type candidate struct {
	name      string
	driver    backend.Driver
	simulated bool
	missing   error // set when the backend is not linked into this binary
}

// resolve maps backend names to drivers, with the stand-ins ANYGPU_FAKE asks
// for taking the place of real backends. A name that is not registered is an
// error, unless lenient: then it becomes a candidate that reports NotCompiled
// (the default order names backends a program may not import).
func resolve(names []string, fakeSpec string, lenient bool) ([]candidate, error) {
	fakes, err := parseFake(fakeSpec)
	if err != nil {
		return nil, err
	}
	var sim backend.Simulator
	if len(fakes) > 0 {
		for _, d := range backend.Drivers() {
			if s, ok := d.(backend.Simulator); ok {
				sim = s
				break
			}
		}
		if sim == nil {
			return nil, errorf(errors.Unavailable, "open", "%s is set but no simulator is registered (forgotten import of github.com/anygpu/gpu/backend/sim?)", EnvFake)
		}
	}
	out := make([]candidate, 0, len(names))
	for _, name := range names {
		if presets, ok := fakes[name]; ok {
			d, err := sim.Simulate(name, presets)
			if err != nil {
				return nil, errors.Wrap(err, "", "open")
			}
			out = append(out, candidate{name: name, driver: d, simulated: true})
			continue
		}
		d, ok := backend.Lookup(name)
		if !ok && lenient && slices.Contains(DefaultOrder, name) {
			out = append(out, candidate{name: name, missing: &errors.Error{
				Backend: name, Category: errors.Unavailable, Err: backend.ErrNotCompiled,
				Msg:  "not linked into this program",
				Hint: "import _ \"github.com/anygpu/gpu/backend/" + name + "\" (or backend/all)",
			}})
			continue
		}
		if !ok {
			return nil, errorf(errors.Unavailable, "open", "unknown backend %q (forgotten import of github.com/anygpu/gpu/backend/all?)", name)
		}
		out = append(out, candidate{name: name, driver: d})
	}
	return out, nil
}

// parseFake reads "cuda:h100,cuda:a100,vulkan" into presets per backend.
func parseFake(spec string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, item := range splitList(spec) {
		name, preset, _ := strings.Cut(item, ":")
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, errorf(invalidArgument, "open", "%s entry %q has no backend name", EnvFake, item)
		}
		out[name] = append(out[name], strings.TrimSpace(preset))
	}
	return out, nil
}

// allNames lists every backend Probe reports: the default order, then other
// registered backends and simulated ones, sorted.
func allNames(fakeSpec string) []string {
	names := slices.Clone(DefaultOrder)
	var extra []string
	fakes, _ := parseFake(fakeSpec)
	for _, n := range Backends() {
		if !slices.Contains(names, n) {
			extra = append(extra, n)
		}
	}
	for n := range fakes {
		if !slices.Contains(names, n) && !slices.Contains(extra, n) {
			extra = append(extra, n)
		}
	}
	sort.Strings(extra)
	return append(names, extra...)
}
