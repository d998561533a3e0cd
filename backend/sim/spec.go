package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/suggest"
)

// Faults are the failures a simulated device injects, for tests of error
// handling. The zero value injects nothing. Counts are per opened device:
// every Open of a simulated device starts from zero.
type Faults struct {
	// FailAllocAt makes the Nth allocation of the device (1-based, counting
	// Alloc and AllocHost together, failed ones included) fail with
	// OutOfMemory, once: the next allocation succeeds again, so the root
	// package's trim-and-retry recovers from it. Spec: oom@N.
	FailAllocAt int
	// FailAllocEvery makes every Nth allocation (N, 2N, 3N, ...) fail with
	// OutOfMemory, counted like FailAllocAt: intermittent pressure that a
	// single retry always survives (unless N is 1). Spec: oom%N.
	FailAllocEvery int
	// MemoryLimit makes a device allocation (Alloc, not AllocHost) fail with
	// OutOfMemory when the bytes of the device's live buffers would exceed it:
	// a persistent condition, lifted only by freeing buffers (the root's pool
	// keeps freed buffers until it is trimmed). MemInfo's free memory honours
	// it. 0 is no limit. Spec: memlimit=SIZE.
	MemoryLimit int64
	// FailCompile makes every Compile fail with a Compilation error that
	// carries a compiler log in the backend's format. Spec: nocompile.
	FailCompile bool
	// LoseAfterLaunches loses the device at launch number N+1: that launch
	// and every later stream operation, allocation, compile and MemInfo of the
	// device fail at once with a fatal DeviceLost error, until the device is
	// closed. 0 never loses it. Spec: lose@N.
	LoseAfterLaunches int
	// Unavailable makes the backend's Probe and Open fail with this reason
	// (category Unavailable), so selection moves on to the next backend. It
	// applies to the whole simulated backend, not to one device. Spec:
	// unavailable or unavailable=REASON.
	Unavailable string
}

// IsZero reports whether f injects nothing.
func (f Faults) IsZero() bool { return f == Faults{} }

// String renders f in the spec syntax, each fault prefixed with "+"
// ("+oom@3+lose@10"), "" when f injects nothing. A reason containing "+" or
// "," cannot be written back in a spec and is left out of unavailable=.
func (f Faults) String() string {
	var b strings.Builder
	if f.FailAllocAt > 0 {
		fmt.Fprintf(&b, "+oom@%d", f.FailAllocAt)
	}
	if f.FailAllocEvery > 0 {
		fmt.Fprintf(&b, "+oom%%%d", f.FailAllocEvery)
	}
	if f.MemoryLimit > 0 {
		fmt.Fprintf(&b, "+memlimit=%s", formatSize(f.MemoryLimit))
	}
	if f.FailCompile {
		b.WriteString("+nocompile")
	}
	if f.LoseAfterLaunches > 0 {
		fmt.Fprintf(&b, "+lose@%d", f.LoseAfterLaunches)
	}
	if f.Unavailable != "" {
		b.WriteString("+unavailable")
		if !strings.ContainsAny(f.Unavailable, "+,") && !isDefaultReason(f.Unavailable) {
			b.WriteString("=" + f.Unavailable)
		}
	}
	return b.String()
}

// validate checks f's values (none may be negative).
func (f Faults) validate() error {
	for _, c := range []struct {
		name string
		v    int64
	}{
		{"FailAllocAt", int64(f.FailAllocAt)},
		{"FailAllocEvery", int64(f.FailAllocEvery)},
		{"MemoryLimit", f.MemoryLimit},
		{"LoseAfterLaunches", int64(f.LoseAfterLaunches)},
	} {
		if c.v < 0 {
			return errors.E(errors.InvalidArgument, Name, "faults", "Faults.%s is negative (%d): use 0 to disable the fault", c.name, c.v)
		}
	}
	return nil
}

// over returns f with every fault that g sets replaced by g's.
func (f Faults) over(g Faults) Faults {
	if g.FailAllocAt != 0 {
		f.FailAllocAt = g.FailAllocAt
	}
	if g.FailAllocEvery != 0 {
		f.FailAllocEvery = g.FailAllocEvery
	}
	if g.MemoryLimit != 0 {
		f.MemoryLimit = g.MemoryLimit
	}
	if g.FailCompile {
		f.FailCompile = true
	}
	if g.LoseAfterLaunches != 0 {
		f.LoseAfterLaunches = g.LoseAfterLaunches
	}
	if g.Unavailable != "" {
		f.Unavailable = g.Unavailable
	}
	return f
}

// faultSyntax lists the fault tokens, for error messages.
const faultSyntax = "oom@N, oom%N, memlimit=SIZE, nocompile, lose@N, unavailable, unavailable=REASON"

// faultKinds are the fault tokens' names, for "did you mean".
var faultKinds = []string{"oom", "memlimit", "nocompile", "lose", "unavailable"}

// ParseSpec reads the preset part of an ANYGPU_FAKE entry for a backend (what
// follows "cuda:" in "cuda:h100+oom@3+lose@10"): an optional preset name
// followed by "+"-separated faults (see the package documentation for the
// grammar). It returns the canonical preset name (the backend's default when
// the spec names none) and the faults. A malformed spec is an InvalidArgument
// error naming the bad token.
func ParseSpec(backendName, spec string) (presetName string, f Faults, err error) {
	op := fmt.Sprintf("simulated %s device %q", backendName, spec)
	if _, ok := presetTable[backendName]; !ok {
		return "", Faults{}, specError(op, unknownBackendError(backendName))
	}
	tokens := strings.Split(spec, "+")
	first := strings.TrimSpace(tokens[0])
	faultTokens := tokens[1:]
	if first != "" {
		if _, perr := lookupPreset(backendName, first); perr != nil {
			// "cuda:unavailable" is the default preset with a fault; any
			// other word is an unknown preset.
			if ferr := parseFault(backendName, first, &Faults{}, map[string]bool{}); ferr != nil {
				return "", Faults{}, specError(op, errors.E(errors.InvalidArgument, "", "",
					"unknown %s preset %q (known presets: %s; faults: %s)%s",
					backendName, first, strings.Join(Presets(backendName), ", "), faultSyntax,
					suggest.DidYouMean(first, append(Presets(backendName), faultKinds...))))
			}
			faultTokens, first = tokens, ""
		}
	}
	p, err := lookupPreset(backendName, first)
	if err != nil {
		return "", Faults{}, specError(op, err)
	}
	seen := map[string]bool{}
	for _, tok := range faultTokens {
		if err := parseFault(backendName, tok, &f, seen); err != nil {
			return "", Faults{}, specError(op, err)
		}
	}
	return p.name, f, nil
}

// specDocs tells where the spec grammar is documented.
const specDocs = "the presets and faults are documented in package github.com/anygpu/gpu/backend/sim"

// specHint is the hint of a spec parsing error.
const specHint = "write backend:preset+fault+...; " + specDocs

// specError attributes a spec parsing error to the sim driver and op, with
// the grammar's hint.
func specError(op string, err error) error {
	e, ok := err.(*errors.Error)
	if !ok {
		return errors.Wrap(err, Name, op)
	}
	c := *e
	c.Backend, c.Op, c.Hint = Name, op, specHint
	return &c
}

// parseFault reads one fault token into f. seen records the kinds already
// given, so a repeated one is an error.
func parseFault(backendName, token string, f *Faults, seen map[string]bool) error {
	tok := strings.TrimSpace(token)
	if tok == "" {
		return errors.E(errors.InvalidArgument, "", "", "empty fault between two '+' (faults: %s)", faultSyntax)
	}
	lower := strings.ToLower(tok)
	kind, arg, sep := lower, "", ""
	if i := strings.IndexAny(lower, "@%="); i >= 0 {
		kind, sep, arg = lower[:i], lower[i:i+1], strings.TrimSpace(tok[i+1:])
	}
	kind = strings.TrimSpace(kind)
	key := kind + sep
	if kind == "unavailable" {
		key = kind
	}
	bad := func(format string, args ...any) error {
		return errors.E(errors.InvalidArgument, "", "", "fault %q: %s", tok, fmt.Sprintf(format, args...))
	}
	count := func() (int, error) {
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 {
			return 0, bad("%q is not a count of at least 1", arg)
		}
		return n, nil
	}
	var err error
	switch key {
	case "oom@":
		f.FailAllocAt, err = count()
	case "oom%":
		f.FailAllocEvery, err = count()
	case "lose@":
		f.LoseAfterLaunches, err = count()
	case "memlimit=":
		f.MemoryLimit, err = parseSize(arg)
		if err != nil {
			err = bad("%v", err)
		}
	case "nocompile":
		f.FailCompile = true
	case "unavailable":
		switch {
		case sep == "":
			f.Unavailable = defaultReason(backendName)
		case sep == "=" && arg != "":
			f.Unavailable = arg
		default:
			err = bad("write unavailable or unavailable=REASON")
		}
	default:
		return errors.E(errors.InvalidArgument, "", "", "unknown fault %q (faults: %s)%s", tok, faultSyntax, suggest.DidYouMean(kind, faultKinds))
	}
	if err != nil {
		return err
	}
	if seen[key] {
		return errors.E(errors.InvalidArgument, "", "", "fault %q: %s is given twice", tok, strings.TrimRight(key, "@%="))
	}
	seen[key] = true
	return nil
}

// sizeUnits are the suffixes parseSize accepts, lower-case.
var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "kib": 1 << 10, "kb": 1e3,
	"m": 1 << 20, "mib": 1 << 20, "mb": 1e6,
	"g": 1 << 30, "gib": 1 << 30, "gb": 1e9,
	"t": 1 << 40, "tib": 1 << 40, "tb": 1e12,
}

// parseSize reads a byte count such as "1GiB", "512MiB", "1.5G", "64KB" or
// "1048576": IEC suffixes (and bare K, M, G, T) are powers of 1024, SI ones
// (KB, MB, GB, TB) powers of 1000; case does not matter.
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	num, unit := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	mult, ok := sizeUnits[unit]
	if num == "" || !ok {
		return 0, fmt.Errorf("%q is not a size (examples: 1GiB, 512MiB, 64KB, 1048576)", s)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size: %v", s, err)
	}
	bytes := v * mult
	if bytes < 1 || bytes > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q is out of range (at least 1 byte)", s)
	}
	return int64(bytes), nil
}

// formatSize writes n with the largest IEC unit that divides it exactly.
func formatSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return fmt.Sprintf("%d%s", n/u.size, u.name)
		}
	}
	return strconv.FormatInt(n, 10)
}
