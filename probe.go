package gpu

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/units"
)

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

// Backend returns the status of the named backend (its name matched ignoring
// case).
func (r Report) Backend(name string) (BackendStatus, bool) {
	for _, b := range r.Backends {
		if strings.EqualFold(b.Name, name) {
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

// Probe asks every backend, concurrently, which devices it can open. Each
// probe is bounded by ctx: one that has not answered when ctx ends is
// reported Unavailable. ANYGPU_FAKE's stand-ins replace the backends they name.
// A nil ctx, or a malformed ANYGPU_FAKE, is reported as every backend's
// reason (an error of category InvalidArgument), since Probe returns no error.
func Probe(ctx context.Context) Report {
	fake := fakeSpec{spec: os.Getenv(EnvFake)}
	var cands []candidate
	var rep Report
	for _, name := range allNames() {
		c, err := resolve([]string{name}, fake, true)
		if err == nil && ctx == nil {
			err = errorf(invalidArgument, "probe", "nil context")
		}
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
		if c.Op == "open" || c.Op == "probe" || c.Op == "choose" {
			c.Op = "" // implied by the context the reason is shown in
		}
		return strings.TrimSuffix(c.Error(), ": -")
	}
	return err.Error()
}
