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
		out = append(out, Repro{Name: name, Seed: seed, Source: string(src)})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out, nil
}
