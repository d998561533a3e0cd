package metal

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// maxBufferBindings is how many buffer slots a Metal compute function has:
// [[buffer(0)]] to [[buffer(30)]].
const maxBufferBindings = 31

// maxInlineParams is the most setBytes:length:atIndex: takes; a larger params
// block goes into a buffer of its own.
const maxInlineParams = 4096

// argLayout is how a launch's arguments bind: buffer arguments at
// [[buffer(0)]] .. [[buffer(buffers-1)]] in argument order, and the scalars,
// packed, at [[buffer(buffers)]]: the argument ABI every anygpu backend
// shares (buffers first, in argument order, then one block of scalars laid
// out as backend.PackScalars does), so one Source.Params serves them all.
type argLayout struct {
	buffers int    // number of buffer arguments
	params  []byte // packed scalars; nil when the kernel takes none
}

// paramsIndex is the [[buffer(n)]] index of the params block.
func (l argLayout) paramsIndex() int { return l.buffers }

// layoutArgs plans the bindings of args, packing the scalars into scratch
// (reused, so a launch allocates nothing). The packing is backend.PackScalars'
// (4-byte values 4-byte aligned, 8-byte values 8-byte aligned, the total
// rounded up to 8), which is also how MSL lays out a struct of those scalars.
func layoutArgs(args []backend.Arg, scratch []byte) (argLayout, error) {
	l := argLayout{params: scratch[:0]}
	scalars := 0
	for i, a := range args {
		size := a.Kind.Size()
		switch {
		case a.Kind == backend.ArgBuffer:
			l.buffers++
			continue
		case size == 0:
			return argLayout{}, errorf(errors.InvalidArgument, "launch",
				"build arguments with gpu.Buf, gpu.F32, gpu.U32, ...", "argument %d has no valid kind (%v)", i, a.Kind)
		}
		scalars++
		for len(l.params)%size != 0 {
			l.params = append(l.params, 0)
		}
		for b := 0; b < size; b++ {
			l.params = append(l.params, byte(a.Bits>>(8*b)))
		}
	}
	if scalars == 0 {
		l.params = nil
	} else {
		for len(l.params)%8 != 0 {
			l.params = append(l.params, 0)
		}
	}
	slots := l.buffers
	if l.params != nil {
		slots++
	}
	if slots > maxBufferBindings {
		what := ""
		if l.params != nil {
			what = " and a params block"
		}
		return argLayout{}, errorf(errors.InvalidArgument, "launch",
			"pass fewer buffers, or gather them into one buffer the kernel indexes",
			"%d buffer arguments%s need %d buffer slots; a Metal kernel has %d", l.buffers, what, slots, maxBufferBindings)
	}
	return l, nil
}

// checkDispatch checks a launch's geometry against what Metal can run:
// at most maxThreads threads per threadgroup (the pipeline's
// maxTotalThreadsPerThreadgroup, which a kernel's register use can make
// smaller than the device's limit), and at most 2^32-1 threads per grid
// dimension, since the MSL position attributes are 32-bit.
func checkDispatch(kernel string, grid, block backend.Dim3, maxThreads int) error {
	grid, block = grid.Norm(), block.Norm()
	op := func() string { return "launch " + kernel } // built only on failure
	if maxThreads > 0 && block.Count() > int64(maxThreads) {
		return errorf(errors.Launch, op(),
			fmt.Sprintf("use a block of at most %d threads (Kernel.Attributes reports the limit)", maxThreads),
			"block %v has %d threads; kernel %s allows at most %d per threadgroup on this device", block, block.Count(), kernel, maxThreads)
	}
	for _, d := range []struct {
		axis        string
		groups, thr int
	}{{"x", grid.X, block.X}, {"y", grid.Y, block.Y}, {"z", grid.Z, block.Z}} {
		if uint64(d.groups)*uint64(d.thr) > math.MaxUint32 {
			return errorf(errors.Launch, op(),
				"launch fewer groups: the built-in kernels and any grid-stride kernel cover the data with fewer threads",
				"grid %v × block %v is %d threads in %s; Metal's thread positions are 32-bit (at most %d)",
				grid, block, uint64(d.groups)*uint64(d.thr), d.axis, uint64(math.MaxUint32))
		}
	}
	return nil
}

// uniformByte reports whether all four bytes of v are the same, so a fill
// with v is a blit fillBuffer:range:value: of that byte.
func uniformByte(v uint32) (byte, bool) {
	b := byte(v)
	return b, v == uint32(b)*0x01010101
}

// fillPattern sets b to the little-endian 32-bit v repeated (b's length is a
// multiple of 4): one word, then doubling copies, which run at memmove speed
// whatever b's alignment.
func fillPattern(b []byte, v uint32) {
	if len(b) < 4 {
		return
	}
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	for filled := 4; filled < len(b); filled *= 2 {
		copy(b[filled:], b[:filled])
	}
}

// maxKernelChunk is the most elements (4-byte words for fills, bytes for
// copies) one dispatch of an internal kernel covers, so its 32-bit counters
// never overflow; larger jobs are split.
const maxKernelChunk = 1 << 30

// chunks splits [0, n) into pieces of at most size: the offsets and lengths.
func chunks(n, size int64) [][2]int64 {
	var out [][2]int64
	for off := int64(0); off < n; off += size {
		out = append(out, [2]int64{off, min(size, n-off)})
	}
	return out
}

// internalGroups is the grid of an internal grid-stride kernel over n
// elements with threadgroups of tg threads: enough groups to cover n, at
// most 65535.
func internalGroups(n int64, tg int) int {
	if tg <= 0 {
		tg = 1
	}
	g := (n + int64(tg) - 1) / int64(tg)
	return int(max(1, min(g, 65535)))
}

// MTLLanguageVersion is (major << 16) + minor.
func languageVersion(major, minor int) uint64 { return uint64(major)<<16 | uint64(minor) }

// MTLMathMode values (MTLCompileOptions.mathMode, macOS 15+).
const (
	mathModeSafe = 0
	mathModeFast = 2
)

// compileConfig is what MTLCompileOptions gets from backend.CompileOptions.
type compileConfig struct {
	languageVersion uint64      // 0: the newest the OS supports (Metal's default)
	fastMath        bool        // fastMathEnabled / MTLMathModeFast; off by default, unlike Metal's own default
	macros          [][2]string // preprocessor macros, sorted by name
}

// compileConfigFrom reads the compile options. Metal's runtime compiler
// takes no command-line flags: -std=metalX.Y (also macos-metalX.Y) picks the
// language version, -ffast-math and -fno-fast-math set fast math; any other
// flag is NotSupported. Debug and Arch have no runtime-compiler equivalent
// and are ignored (Metal compiles for the device at hand).
func compileConfigFrom(o backend.CompileOptions) (compileConfig, error) {
	c := compileConfig{fastMath: o.FastMath}
	for _, f := range o.Flags {
		switch {
		case f == "-ffast-math":
			c.fastMath = true
		case f == "-fno-fast-math":
			c.fastMath = false
		case strings.HasPrefix(f, "-std="):
			v, err := parseLanguageVersion(strings.TrimPrefix(f, "-std="))
			if err != nil {
				return compileConfig{}, err
			}
			c.languageVersion = v
		default:
			return compileConfig{}, errorf(errors.NotSupported, "compile",
				"Metal's runtime compiler takes no flags: use -std=metalX.Y, -ffast-math, gpu.FastMath or gpu.Define",
				"compiler flag %q is not supported", f)
		}
	}
	for name, value := range o.Defines {
		if name == "" {
			return compileConfig{}, errorf(errors.InvalidArgument, "compile", "give every macro a name", "empty macro name")
		}
		if value == "" {
			value = "1" // a bare define, as -DNAME defines it
		}
		c.macros = append(c.macros, [2]string{name, value})
	}
	sort.Slice(c.macros, func(i, j int) bool { return c.macros[i][0] < c.macros[j][0] })
	return c, nil
}

// parseLanguageVersion reads "metal3.1", "macos-metal2.4" or "ios-metal3.0".
func parseLanguageVersion(s string) (uint64, error) {
	bad := errorf(errors.InvalidArgument, "compile", "write the language version as -std=metalX.Y, e.g. -std=metal3.0",
		"unknown Metal language version %q", s)
	if i := strings.Index(s, "metal"); i >= 0 && (i == 0 || strings.HasSuffix(s[:i], "-")) {
		s = s[i+len("metal"):]
	} else {
		return 0, bad
	}
	maj, minStr, ok := strings.Cut(s, ".")
	if !ok {
		return 0, bad
	}
	major, err1 := strconv.Atoi(maj)
	minor, err2 := strconv.Atoi(minStr)
	if err1 != nil || err2 != nil || major < 1 || major > 9 || minor < 0 || minor > 99 {
		return 0, bad
	}
	return languageVersion(major, minor), nil
}
