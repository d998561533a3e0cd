package kernels

import (
	"maps"
	"slices"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernels/internal/handwritten"
)

// Handwritten returns the built-in ops as they were written by hand once per
// dialect (package kernels/internal/handwritten), named and declared as
// Source's, with the same CPU sgemm. It exists only so that `gpu bench
// --kernels handwritten` and the benchmarks can compare Source with them,
// and goes once that comparison is recorded: use Source. Each call returns
// fresh maps and slices.
func Handwritten() backend.Source {
	src := handwritten.Source()
	src.Name = SourceName
	src.Go = maps.Clone(src.Go)
	src.Go[OpSgemm] = goSgemm
	src.Params = make(map[string][]backend.ArgKind, len(Params))
	for op, kinds := range Params {
		src.Params[op] = slices.Clone(kinds)
	}
	return src
}
