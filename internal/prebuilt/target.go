package prebuilt

import (
	"fmt"
	"regexp"
	"strconv"
)

// DefaultTargets are what the regeneration compiles each built-in program
// for, where the NVRTC offers them: CUBIN for Turing (T4), Ampere (A100; the
// sm_80 CUBIN also runs on 8.6, 8.7 and 8.9), Hopper (H100, H200), Blackwell
// (B200, GB200; also 10.3) and Blackwell workstation GPUs (RTX 50, 12.1),
// and PTX for compute_75, the oldest architecture CUDA 13 compiles for,
// which the driver compiles for any GPU the list misses.
var DefaultTargets = []string{"sm_75", "sm_80", "sm_90", "sm_100", "sm_120", "compute_75"}

// Target is a parsed architecture: "sm_90" (CUBIN) or "compute_75" (PTX),
// with an optional suffix ("a": that exact architecture only, "f": its
// family).
type Target struct {
	PTX          bool
	Major, Minor int
	Suffix       string // "", "a" or "f"
}

var targetRE = regexp.MustCompile(`^(sm|compute)_([0-9]+)([0-9])([af]?)$`)

// ParseTarget parses an architecture name as NVRTC takes it.
func ParseTarget(s string) (Target, error) {
	m := targetRE.FindStringSubmatch(s)
	if m == nil {
		return Target{}, fmt.Errorf("prebuilt: invalid target %q; write sm_XY (CUBIN) or compute_XY (PTX), e.g. sm_90", s)
	}
	major, _ := strconv.Atoi(m[2])
	minor, _ := strconv.Atoi(m[3])
	return Target{PTX: m[1] == "compute", Major: major, Minor: minor, Suffix: m[4]}, nil
}

// String is the architecture name.
func (t Target) String() string {
	p := "sm"
	if t.PTX {
		p = "compute"
	}
	return fmt.Sprintf("%s_%d%d%s", p, t.Major, t.Minor, t.Suffix)
}

// RunsOn reports whether code for t loads on a GPU of compute capability
// major.minor, by the CUDA compatibility rules:
//   - a CUBIN runs on its major version at its minor version or a later one
//     (sm_80 on 8.0, 8.6, 8.7, 8.9; sm_90 on 9.0 only; never across majors);
//     an "a" CUBIN on its exact version only;
//   - PTX is compiled by the driver for its own compute capability or any
//     later one, whatever the major (compute_75 on 7.5 through 12.x); "a"
//     PTX on its exact version only;
//   - "f" code (CUBIN or PTX) on its major version, as a CUBIN.
func (t Target) RunsOn(major, minor int) bool {
	switch {
	case t.Suffix == "a":
		return t.Major == major && t.Minor == minor
	case t.PTX && t.Suffix == "":
		return t.Major < major || (t.Major == major && t.Minor <= minor)
	default:
		return t.Major == major && t.Minor <= minor
	}
}

// better reports whether code for t suits a GPU better than code for u,
// both of which run on it: a CUBIN before PTX (no compile when it loads),
// then the newer architecture (closer to the GPU's own).
func (t Target) better(u Target) bool {
	if t.PTX != u.PTX {
		return !t.PTX
	}
	if t.Major != u.Major {
		return t.Major > u.Major
	}
	if t.Minor != u.Minor {
		return t.Minor > u.Minor
	}
	return t.Suffix > u.Suffix // "a" and "f" are closer to the GPU than none
}
