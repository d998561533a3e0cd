package gpu

import (
	"context"
	"fmt"
	"github.com/anygpu/gpu/internal/units"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/anygpu/gpu/backend"
	_ "github.com/anygpu/gpu/backend/cpu" // the CPU device is always there to fall back to
	"github.com/anygpu/gpu/errors"
)

// DefaultOrder is the order Open tries backends in when none are named.
var DefaultOrder = []string{"cuda", "metal", "vulkan", "webgpu", "opengl", "cpu"}

const cpuBackend = "cpu"

const invalidArgument = errors.InvalidArgument

func errorf(cat errors.Category, op, format string, args ...any) error {
	return errors.E(cat, "", op, format, args...)
}

// State is a backend's condition on this machine.
type State int

// Backend states.
const (
	Available   State = iota + 1 // at least one device can be opened
	NoDevices                    // the backend works but found no device
	Unavailable                  // the library, driver or device is missing or broken
	NotCompiled                  // the backend was left out of this binary (build tag, no cgo)
)

var stateNames = map[State]string{Available: "available", NoDevices: "no devices", Unavailable: "unavailable", NotCompiled: "not compiled"}

func (s State) String() string {
	if n, ok := stateNames[s]; ok {
		return n
	}
	return "unknown"
}

// MarshalText makes State readable in JSON.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// BackendStatus is what probing found for one backend.
type BackendStatus struct {
	Name      string       `json:"name"`
	State     State        `json:"state"`
	Reason    string       `json:"reason,omitempty"`
	Hint      string       `json:"hint,omitempty"`
	Simulated bool         `json:"simulated,omitempty"` // a stand-in from ANYGPU_FAKE
	Devices   []DeviceInfo `json:"devices,omitempty"`
	Err       error        `json:"-"`
}

// Report is the result of Probe: one status per backend, in selection order.
type Report struct {
	Backends []BackendStatus `json:"backends"`
}

// Backend returns the status of the named backend.
func (r Report) Backend(name string) (BackendStatus, bool) {
	for _, b := range r.Backends {
		if b.Name == name {
			return b, true
		}
	}
	return BackendStatus{}, false
}

// String is a human-readable table of the report.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s  %-12s  %s\n", "BACKEND", "STATE", "DEVICES / REASON")
	for _, s := range r.Backends {
		state := s.State.String()
		if s.Simulated {
			state += "*"
		}
		switch {
		case len(s.Devices) > 0:
			for i, d := range s.Devices {
				name, st := s.Name, state
				if i > 0 {
					name, st = "", ""
				}
				fmt.Fprintf(&b, "%-8s  %-12s  %d: %s (%s, %s)\n", name, st, d.Ordinal, d.Name, d.Type, units.ByteSize(d.MemoryBytes))
			}
		default:
			fmt.Fprintf(&b, "%-8s  %-12s  %s\n", s.Name, state, s.Reason)
			if s.Hint != "" {
				fmt.Fprintf(&b, "%-8s  %-12s  hint: %s\n", "", "", s.Hint)
			}
		}
	}
	return b.String()
}

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

// Probe asks every backend, concurrently, which devices it can open. Each
// probe is bounded by ctx: one that has not answered when ctx ends is
// reported Unavailable. ANYGPU_FAKE's stand-ins replace the backends they name.
func Probe(ctx context.Context) Report {
	fake := os.Getenv(EnvFake)
	var cands []candidate
	var rep Report
	for _, name := range allNames(fake) {
		c, err := resolve([]string{name}, fake, true)
		if err != nil {
			rep.Backends = append(rep.Backends, statusFromErr(name, err))
			continue
		}
		cands = append(cands, c[0])
	}
	rep.Backends = append(probeAll(ctx, cands), rep.Backends...)
	return rep
}

func probeAll(ctx context.Context, cands []candidate) []BackendStatus {
	out := make([]BackendStatus, len(cands))
	for i, ch := range probeAsync(ctx, cands) {
		out[i] = <-ch
	}
	return out
}

// probeAsync starts every probe at once; each result arrives on its own channel.
func probeAsync(ctx context.Context, cands []candidate) []<-chan BackendStatus {
	out := make([]<-chan BackendStatus, len(cands))
	for i, c := range cands {
		ch := make(chan BackendStatus, 1)
		out[i] = ch
		go func() { ch <- probeOne(ctx, c) }()
	}
	return out
}

// ProbeTimeout bounds each backend's probe when the caller's context has no
// deadline, so a driver that hangs (a wedged GPU, a stuck kernel module)
// cannot hang Probe or Open.
var ProbeTimeout = 30 * time.Second

func probeOne(ctx context.Context, c candidate) BackendStatus {
	if _, ok := ctx.Deadline(); !ok && ProbeTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, ProbeTimeout)
		defer cancel()
	}
	type result struct {
		devs []DeviceInfo
		err  error
	}
	if c.missing != nil {
		return statusFromErr(c.name, c.missing)
	}
	ch := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if v := recover(); v != nil {
				r = result{err: errorf(errors.Internal, "probe", "the %s backend panicked while probing: %v", c.name, v)}
			}
			ch <- r
		}()
		r.devs, r.err = c.driver.Probe(ctx)
	}()
	var r result
	select {
	case r = <-ch:
	case <-ctx.Done():
		r.err = errors.Wrap(ctx.Err(), c.name, "probe")
	}
	st := BackendStatus{Name: c.name, Simulated: c.simulated}
	if r.err != nil {
		st = statusFromErr(c.name, r.err)
		st.Simulated = c.simulated
		return st
	}
	if len(r.devs) == 0 {
		st.State, st.Reason, st.Hint = NoDevices, "the backend found no device", "check that the device is visible to this process (drivers, permissions, container flags)"
		return st
	}
	st.State = Available
	for i := range r.devs {
		r.devs[i].Ordinal, r.devs[i].Backend = i, c.name
	}
	st.Devices = r.devs
	return st
}

func statusFromErr(name string, err error) BackendStatus {
	st := BackendStatus{Name: name, State: Unavailable, Reason: reasonOf(err), Hint: errors.Hint(err), Err: err}
	if errors.Is(err, backend.ErrNotCompiled) {
		st.State = NotCompiled
	}
	return st
}

// reasonOf is err's message without its backend prefix and hint (both have
// their own columns).
func reasonOf(err error) string {
	if err == nil {
		return ""
	}
	if e, ok := err.(*errors.Error); ok {
		c := *e
		c.Backend, c.Hint = "", "-"
		if c.Op == "open" || c.Op == "probe" {
			c.Op = "" // implied by the context the reason is shown in
		}
		return strings.TrimSuffix(c.Error(), ": -")
	}
	return err.Error()
}
