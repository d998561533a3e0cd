package gpu

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anygpu/gpu/backend"
	_ "github.com/anygpu/gpu/backend/cpu" // the CPU device is always there to fall back to
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/suggest"
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

// knownBackends lists the backend names a program may name: the default
// order, then the other registered backends, sorted. Without simulators, it
// is what ANYGPU_FAKE may stand in for.
func knownBackends(simulators bool) []string {
	names := slices.Clone(DefaultOrder)
	for _, d := range backend.Drivers() {
		if _, sim := d.(backend.Simulator); sim && !simulators {
			continue
		}
		if !slices.Contains(names, d.Name()) {
			names = append(names, d.Name())
		}
	}
	return names
}

// canonicalBackend returns the name of the known backend that name spells,
// ignoring case. An unknown name is an InvalidArgument error saying where it
// came from (source: "ANYGPU_BACKEND=cdua", "WithBackends", ...), what is
// accepted and, for a near miss, which name was probably meant.
func canonicalBackend(name, source string, known []string) (string, error) {
	if slices.Contains(known, name) {
		return name, nil
	}
	for _, k := range known {
		if strings.EqualFold(k, name) {
			return k, nil
		}
	}
	return "", &errors.Error{
		Category: errors.InvalidArgument, Op: "open",
		Msg: fmt.Sprintf("%s: unknown backend %q (accepted: %s)%s",
			source, name, strings.Join(known, ", "), suggest.DidYouMean(name, known)),
		Hint: "name one of the accepted backends; one not linked into the program needs its import (github.com/anygpu/gpu/backend/all links every one)",
	}
}

// canonicalBackends maps every name to its known backend (canonicalBackend).
func canonicalBackends(names []string, source string) ([]string, error) {
	known := knownBackends(true)
	out := make([]string, len(names))
	for i, n := range names {
		c, err := canonicalBackend(n, source, known)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// resolve maps backend names (known ones, canonicalBackend) to drivers, with
// the stand-ins ANYGPU_FAKE asks for taking the place of real backends. A
// backend that is not linked into the program is an error, unless lenient:
// then it becomes a candidate that reports NotCompiled (the default order
// names backends a program may not import).
func resolve(names []string, fake fakeSpec, lenient bool) ([]candidate, error) {
	fakes, err := parseFake(fake)
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
		if d, ok := backend.Lookup(name); ok {
			out = append(out, candidate{name: name, driver: d})
			continue
		}
		missing := &errors.Error{
			Backend: name, Category: errors.Unavailable, Err: backend.ErrNotCompiled,
			Msg:  "not linked into this program",
			Hint: "import _ \"github.com/anygpu/gpu/backend/" + name + "\" (or backend/all)",
		}
		if !lenient {
			missing.Op = "open"
			return nil, missing
		}
		out = append(out, candidate{name: name, missing: missing})
	}
	return out, nil
}

// fakeSpec is the simulated devices asked for ("cuda:h100,vulkan") and where
// the request came from: ANYGPU_FAKE or WithFake.
type fakeSpec struct {
	spec   string
	option bool // WithFake, not ANYGPU_FAKE
}

// String names the setting in errors: ANYGPU_FAKE="..." or WithFake("...").
func (f fakeSpec) String() string {
	if f.option {
		return fmt.Sprintf("WithFake(%q)", f.spec)
	}
	return fmt.Sprintf("%s=%q", EnvFake, f.spec)
}

// parseFake reads "cuda:h100,cuda:a100,vulkan" into presets per backend. The
// backend names are those a simulator can stand in for (knownBackends),
// ignoring case; the presets are the simulator's to check.
func parseFake(f fakeSpec) (map[string][]string, error) {
	out := map[string][]string{}
	var known []string
	for _, item := range splitList(f.spec) {
		name, preset, _ := strings.Cut(item, ":")
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, errorf(invalidArgument, "open", "%v: entry %q has no backend name (the form is backend:preset,...)", f, item)
		}
		if known == nil {
			known = knownBackends(false)
		}
		name, err := canonicalBackend(name, f.String(), known)
		if err != nil {
			return nil, err
		}
		out[name] = append(out[name], strings.TrimSpace(preset))
	}
	return out, nil
}

// allNames lists every backend Probe reports: the default order, then the
// other registered backends, sorted.
func allNames() []string {
	return knownBackends(true)
}
