package cpu

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// Compile takes the Go dialect of src: its kernels are Go functions, so
// compiling is checking that every entry point has one.
func (d *device) Compile(ctx context.Context, src backend.Source, _ backend.CompileOptions) (backend.Module, error) {
	op := fmt.Sprintf("compile %q", src.Name)
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	if len(src.Go) == 0 {
		return nil, errors.E(errors.NotSupported, Name, op,
			"the source has no Go dialect (Source.Go): the CPU backend runs kernels written in Go")
	}
	var bad []string
	for name, fn := range src.Go {
		if fn == nil {
			bad = append(bad, fmt.Sprintf("%s: entry point %q has a nil function", src.Name, name))
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		e := errors.E(errors.Compilation, Name, op, "%d of %d Go entry points are invalid", len(bad), len(src.Go))
		e.Log = strings.Join(bad, "\n")
		return nil, e
	}
	m := &module{kernels: make(map[string]*kernel, len(src.Go))}
	for name, fn := range src.Go {
		m.kernels[name] = &kernel{name: name, fn: fn}
	}
	return m, nil
}

// module is the Go functions of a Source, by entry point name.
type module struct{ kernels map[string]*kernel }

func (m *module) Kernel(name string) (backend.Kernel, error) {
	k, ok := m.kernels[name]
	if !ok {
		names := make([]string, 0, len(m.kernels))
		for n := range m.kernels {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, errors.E(errors.InvalidArgument, Name, "kernel", "no entry point %q in the module (it has %s)", name, strings.Join(names, ", "))
	}
	return k, nil
}

func (m *module) Close() error { return nil }

// kernel is one Go entry point.
type kernel struct {
	name string
	fn   backend.GoKernel
}

func (k *kernel) Name() string { return k.name }

// serialThreads is the launch size (groups × threads) under which the groups
// run one after another on the stream's goroutine: waking other cores costs
// more than such a launch.
const serialThreads = 1 << 15

// chunkTime is the least time of work worth handing to another core: a
// launch of a few heavy groups (an sgemm kernel's tiles) is spread further
// than serialThreads alone would allow, down to one group a core.
const chunkTime = 20 * time.Microsecond

// run calls the kernel once per work group of grid, the groups spread over
// the cores; a panicking group fails the launch with an Execution error.
func (k *kernel) run(grid, block backend.Dim3, args []backend.Arg) error {
	groups := int(grid.Count())
	threads := int(block.Count())
	gx, gy := grid.X, grid.Y
	run := func(lo, hi int) {
		g := backend.Group{Size: block, Grid: grid}
		for i := lo; i < hi; i++ {
			g.ID = backend.Dim3{X: i % gx, Y: (i / gx) % gy, Z: i / (gx * gy)}
			k.fn(g, args)
		}
	}
	where := func(err error) error {
		return errors.Wrap(err, "", fmt.Sprintf("kernel %s grid %v block %v", k.name, grid, block))
	}
	grain := serialThreads / threads
	if grain < 1 {
		grain = 1
	}
	if groups > 1 && groups < grain*runtime.GOMAXPROCS(0) {
		// Too few groups, by their thread count, to keep every core busy:
		// the first group, timed on this goroutine, tells whether they are
		// heavier than their threads say, and the grain shrinks to chunkTime
		// of work if so (never grows: cheap launches stay as they were).
		start := time.Now()
		if err := parallelFor("launch", 1, 1, run); err != nil {
			return where(err)
		}
		if d := time.Since(start); d > 0 {
			grain = min(grain, max(1, int(chunkTime/d)))
		}
		if err := parallelFor("launch", groups-1, grain, func(lo, hi int) { run(lo+1, hi+1) }); err != nil {
			return where(err)
		}
		return nil
	}
	if err := parallelFor("launch", groups, grain, run); err != nil {
		return where(err)
	}
	return nil
}
