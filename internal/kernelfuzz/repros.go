package kernelfuzz

import (
	"embed"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
)

// reproFiles are the shrunk kernels of seeds that once failed
// (testdata/<what>-<seed>.go.txt), each with a comment saying what went wrong
// and how to replay it.
//
//go:embed testdata/*.go.txt
var reproFiles embed.FS

// Repro is a shrunk kernel that once showed a bug on some backend: the
// conformance suites run every one on every backend, with the cases of its
// seed, so that the bug stays fixed.
type Repro struct {
	Name   string // the file's name without .go.txt: "abs-340539526"
	Seed   uint64 // the seed whose cases (grids, blocks, inputs) it runs with
	Source string // the kernel language source
	// DriverBugOn lists, lower-case, the device names (substrings) on which
	// the repro shows a driver's bug rather than ours, from the file's
	// "// Driver bug on: llvmpipe, ..." line: there a mismatch is logged,
	// not failed, and a match says the driver was fixed.
	DriverBugOn []string
}

// Repros returns the repros in name order.
func Repros() ([]Repro, error) {
	entries, err := reproFiles.ReadDir("testdata")
	if err != nil {
		return nil, fmt.Errorf("kernelfuzz: repros: %w", err)
	}
	var out []Repro
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".go.txt")
		if !ok {
			continue
		}
		i := strings.LastIndexByte(name, '-')
		seed, err := strconv.ParseUint(name[i+1:], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("kernelfuzz: repro %s: name it <what>-<seed>.go.txt: %w", e.Name(), err)
		}
		src, err := reproFiles.ReadFile(path.Join("testdata", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("kernelfuzz: repro %s: %w", e.Name(), err)
		}
		out = append(out, Repro{Name: name, Seed: seed, Source: string(src), DriverBugOn: driverBugOn(string(src))})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out, nil
}

// driverBugLine starts the comment line of a repro that names the devices
// whose driver has the bug it shows.
const driverBugLine = "// Driver bug on:"

// driverBugOn reads a repro's driverBugLine: the comma-separated device
// names, lower-case.
func driverBugOn(src string) []string {
	var names []string
	for _, line := range strings.Split(src, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), driverBugLine)
		if !ok {
			continue
		}
		for _, n := range strings.Split(rest, ",") {
			if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
				names = append(names, n)
			}
		}
	}
	return names
}

// DriverBug reports whether the repro shows a known driver bug on the
// device named deviceName (DriverBugOn).
func (r Repro) DriverBug(deviceName string) bool {
	lower := strings.ToLower(deviceName)
	for _, n := range r.DriverBugOn {
		if strings.Contains(lower, n) {
			return true
		}
	}
	return false
}
