package nvrtc

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/anygpu/gpu/errors"
)

// Options are the settings of one compilation. The zero value is not enough:
// Arch must be set.
type Options struct {
	// Arch is the target: "sm_90" (CUBIN, and PTX) or "compute_90" (PTX
	// only). The CUDA backend sets it to the device's sm_XY.
	Arch string
	// PTX compiles to PTX only, for the virtual architecture of Arch
	// ("sm_90" becomes "compute_90"): the driver JIT-compiles it when the
	// module loads, which also runs on newer GPUs.
	PTX bool
	// Std is the C++ dialect ("c++17", "c++20"); NVRTC's default when empty.
	Std string
	// FastMath is --use_fast_math: flush denormals to zero, approximate
	// division, square root and transcendentals, contract freely.
	FastMath bool
	// MaxRegisters caps the registers per thread (--maxrregcount); 0 = no cap.
	MaxRegisters int
	// LineInfo adds line information for profilers (--generate-line-info).
	LineInfo bool
	// Debug adds full device debug information and turns off optimisation
	// (--device-debug, -G).
	Debug bool
	// Defines are preprocessor macros: NAME -> value, "" for a bare define.
	Defines map[string]string
	// IncludePaths are searched by #include (--include-path), before the
	// CUDA header directories (CUDAIncludePaths).
	IncludePaths []string
	// NoCUDAIncludes leaves out the CUDA header directories the compiler
	// otherwise adds after IncludePaths.
	NoCUDAIncludes bool
	// Headers are in-memory headers: include name -> content.
	Headers map[string]string
	// NameExpressions are C++ names (template instantiations, kernels not
	// declared extern "C") whose mangled names Result.LoweredNames returns.
	NameExpressions []string
	// Flags are passed to NVRTC verbatim, after the options above.
	Flags []string
	// Name is the program's name in the log ("default_program" when empty).
	Name string
	// DriverVersion is the CUDA driver version the result will be loaded by
	// (cuDriverGetVersion). It is part of the cache key only.
	DriverVersion int
	// NoCache skips the kernel cache: always compile, store nothing.
	NoCache bool
}

// Result is a compiled program.
type Result struct {
	CUBIN        []byte            // device code for Arch; nil when compiling to PTX only
	PTX          string            // the PTX the program compiled to
	Log          string            // the compiler's messages (warnings), "" when none
	LoweredNames map[string]string // name expression -> mangled name
	Arch         string            // the architecture compiled for
	Duration     time.Duration     // time taken: compiling, or reading the cache on a hit
	Cached       bool              // served by the kernel cache
	// Dependencies are the paths the program's #include directives looked
	// at (see Dependency); nil when it includes nothing from disk.
	Dependencies []Dependency
	// Uncached says why the kernel cache did not serve or store the
	// program ("" when it did, or was not asked to).
	Uncached string
}

// Image is what cuModuleLoadData takes: the CUBIN, else the PTX with its
// terminating NUL.
func (r *Result) Image() []byte {
	if len(r.CUBIN) > 0 {
		return r.CUBIN
	}
	return append([]byte(r.PTX), 0)
}

// Name returns the symbol to look up for an entry point: its lowered name
// when it was a name expression, else the name itself (extern "C").
func (r *Result) Name(entry string) string {
	if n, ok := r.LoweredNames[entry]; ok {
		return n
	}
	return entry
}

var archRE = regexp.MustCompile(`^(sm|compute)_([0-9]+)([af]?)$`)

// targetArch validates o.Arch and applies o.PTX.
func (o *Options) targetArch() (string, error) {
	arch := strings.TrimSpace(o.Arch)
	m := archRE.FindStringSubmatch(arch)
	if m == nil {
		e := errors.E(errors.InvalidArgument, "nvrtc", "compile", "invalid architecture %q", o.Arch)
		e.Hint = `set Options.Arch to "sm_XY" (CUBIN) or "compute_XY" (PTX) for the target GPU's compute capability X.Y, e.g. "sm_90"`
		if arch == "" {
			e.Msg = "no target architecture (Options.Arch is empty)"
		}
		return "", e
	}
	if o.PTX {
		arch = "compute_" + m[2] + m[3]
	}
	return arch, nil
}

// args returns the NVRTC options for arch, in a fixed order (the cache key
// depends on it); cudaIncludes are the CUDA header directories that follow
// o.IncludePaths.
func (o *Options) args(arch string, cudaIncludes []string) []string {
	a := []string{"--gpu-architecture=" + arch}
	if o.Std != "" {
		a = append(a, "--std="+o.Std)
	}
	if o.FastMath {
		a = append(a, "--use_fast_math")
	}
	if o.MaxRegisters > 0 {
		a = append(a, "--maxrregcount="+strconv.Itoa(o.MaxRegisters))
	}
	if o.LineInfo {
		a = append(a, "--generate-line-info")
	}
	if o.Debug {
		a = append(a, "--device-debug")
	}
	for _, k := range sortedKeys(o.Defines) {
		if v := o.Defines[k]; v != "" {
			a = append(a, "--define-macro="+k+"="+v)
		} else {
			a = append(a, "--define-macro="+k)
		}
	}
	for _, p := range o.includeDirs(cudaIncludes) {
		a = append(a, "--include-path="+p)
	}
	return append(a, o.Flags...)
}

// includeDirs are the directories #include searches: o.IncludePaths, then
// cudaIncludes unless o.NoCUDAIncludes, then those of -I options in Flags.
func (o *Options) includeDirs(cudaIncludes []string) []string {
	dirs := append([]string(nil), o.IncludePaths...)
	if !o.NoCUDAIncludes {
		dirs = append(dirs, cudaIncludes...)
	}
	flagDirs, _ := flagIncludes(o.Flags)
	return append(dirs, flagDirs...)
}

// flagIncludes finds the include directories (-I, --include-path) and the
// pre-included headers (-include, --pre-include) among NVRTC flags, in each
// spelling NVRTC takes: "--include-path=d", "-Id", "-I=d", "-I d",
// "--include-path d".
func flagIncludes(flags []string) (dirs, pre []string) {
	for i := 0; i < len(flags); i++ {
		f := flags[i]
		for _, o := range []struct {
			long, short string
			into        *[]string
		}{{"--include-path", "-I", &dirs}, {"--pre-include", "-include", &pre}} {
			var v string
			switch {
			case f == o.long || f == o.short:
				if i+1 < len(flags) {
					i++
					v = flags[i]
				}
			case strings.HasPrefix(f, o.long+"="):
				v = f[len(o.long)+1:]
			case o.short == "-I" && strings.HasPrefix(f, "-I"):
				v = strings.TrimPrefix(f[2:], "=")
			case strings.HasPrefix(f, o.short+"="):
				v = f[len(o.short)+1:]
			default:
				continue
			}
			if v != "" {
				*o.into = append(*o.into, v)
			}
			break
		}
	}
	return dirs, pre
}

// walkedSource is the text the dependency walk follows: src, after the
// headers Flags pre-include.
func (o *Options) walkedSource(src string) string {
	_, pre := flagIncludes(o.Flags)
	if len(pre) == 0 {
		return src
	}
	var b strings.Builder
	for _, h := range pre {
		b.WriteString("#include \"" + h + "\"\n")
	}
	return b.String() + src
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Compiler compiles CUDA C++ with NVRTC through a kernel cache. It is safe
// for concurrent use.
type Compiler struct {
	cache *Cache // nil: no caching
}

// NewCompiler returns a compiler that caches in c (nil: no cache).
func NewCompiler(c *Cache) *Compiler { return &Compiler{cache: c} }

// Cache is the compiler's kernel cache (nil when it has none).
func (c *Compiler) Cache() *Cache { return c.cache }

var (
	defaultOnce     sync.Once
	defaultCompiler *Compiler
)

// Default is the process's compiler: its cache is in DefaultCacheDir.
func Default() *Compiler {
	defaultOnce.Do(func() { defaultCompiler = NewCompiler(OpenCache(DefaultCacheDir())) })
	return defaultCompiler
}

// Compile compiles src with the default compiler.
func Compile(src string, o Options) (*Result, error) { return Default().Compile(src, o) }

// Available reports whether an NVRTC library can be loaded, and if not, why.
func Available() error {
	_, err := load()
	return err
}

// Loaded reports whether this process has loaded NVRTC (a kernel-cache hit
// in a process that has not does not load it).
func Loaded() bool { return loaded() }

// Version is the loaded NVRTC's version.
func Version() (major, minor int, err error) {
	l, err := load()
	if err != nil {
		return 0, 0, err
	}
	return l.major, l.minor, nil
}

// LibraryPath is the name or path the NVRTC library was loaded from.
func LibraryPath() (string, error) {
	l, err := load()
	if err != nil {
		return "", err
	}
	return l.path, nil
}

// SupportedArchs lists the compute capabilities the loaded NVRTC compiles
// for, as 10*major+minor (75, 80, 86, 89, 90, ...), ascending.
func SupportedArchs() ([]int, error) {
	l, err := load()
	if err != nil {
		return nil, err
	}
	return l.supportedArchs()
}

// Compile compiles src for o.Arch. A program that does not compile is an
// error of category Compilation whose Log (errors.LogOf) is the compiler's
// output; a missing NVRTC is Unavailable. Results are served from and stored
// in the compiler's cache unless o.NoCache is set; the key covers the
// contents of every header the program's #include directives reach (see
// Dependency). A program the cache cannot vouch for (a computed #include) is
// compiled every time, and Result.Uncached says why.
func (c *Compiler) Compile(src string, o Options) (*Result, error) {
	arch, err := o.targetArch()
	if err != nil {
		return nil, err
	}
	useCache := c.cache != nil && !o.NoCache
	if useCache && !loaded() {
		// A process that has not loaded NVRTC yet takes its version from
		// the stamp the cache keeps (checked against the library file), and
		// the CUDA header directories from the stamped file's location, so
		// a cache hit costs no library load.
		if st, ok := c.cache.knownVersion(); ok {
			if p := o.plan(st.Major, st.Minor, src, arch, defaultSearchEnv().includeDirs(st.File)); p.why == "" {
				if r, ok := c.cache.lookup(p.key); ok {
					r.Dependencies = p.deps
					return r, nil
				}
			}
		}
	}
	lib, err := load()
	if err != nil {
		return nil, err
	}
	if !useCache {
		return compile(lib, src, arch, o.args(arch, lib.includes()), o)
	}
	p := o.plan(lib.major, lib.minor, src, arch, lib.includes())
	if p.why != "" {
		r, err := compile(lib, src, arch, p.args, o)
		if r != nil {
			r.Uncached = p.why
		}
		return r, err
	}
	c.cache.rememberVersion(lib)
	r, err := c.cache.Do(p.key, func() (*Result, error) { return compile(lib, src, arch, p.args, o) })
	if r != nil {
		r.Dependencies = p.deps
	}
	return r, err
}

// compilePlan is one compile as the kernel cache sees it.
type compilePlan struct {
	args []string     // NVRTC's options
	deps []Dependency // every path the program's includes looked at
	key  string       // the cache key; "" when why is set
	why  string       // why the cache cannot vouch for the program; "" when it can
}

// plan computes the options and the cache key of compiling src for arch
// with NVRTC major.minor, whose CUDA header directories are cudaIncludes.
// The key covers every header the includes reach through those
// directories. A process with NVRTC loaded and one serving a hit from the
// version stamp both call it, with the directories of the same library
// file, so the hit is found under the key the compile stored.
func (o *Options) plan(major, minor int, src, arch string, cudaIncludes []string) compilePlan {
	p := compilePlan{args: o.args(arch, cudaIncludes)}
	p.deps, p.why = dependencies(o.walkedSource(src), o.Headers, o.includeDirs(cudaIncludes))
	if p.why == "" {
		p.key = keyOf(major, minor, src, arch, p.args, *o, p.deps)
	}
	return p
}

// compile runs NVRTC once.
func compile(lib *library, src, arch string, args []string, o Options) (*Result, error) {
	start := time.Now()
	name := o.Name
	if name == "" {
		name = "default_program"
	}
	op := fmt.Sprintf("compile %s for %s", name, arch)
	prog, err := lib.createProgram(src, name, o.Headers)
	if err != nil {
		return nil, errors.Wrap(err, "nvrtc", op)
	}
	defer lib.destroyProgram(prog)
	for _, e := range o.NameExpressions {
		if err := lib.addNameExpression(prog, e); err != nil {
			return nil, errors.Wrap(err, "nvrtc", op)
		}
	}
	r := lib.compileProgram(prog, args)
	log := lib.log(prog)
	if r != resSuccess {
		err := res(uintptr(r), op)
		if e, ok := err.(*errors.Error); ok {
			e.Log = log
			if r == resCompilation {
				e.Msg = "compilation failed"
				if first := firstError(log); first != "" {
					e.Msg += ": " + first
				}
			}
		}
		return nil, err
	}
	out := &Result{Log: log, Arch: arch}
	ptx, err := lib.blob(prog, symGetPTXSize, symGetPTX, "PTX")
	if err != nil {
		return nil, errors.Wrap(err, "nvrtc", op)
	}
	out.PTX = string(trimNUL(ptx))
	if strings.HasPrefix(arch, "sm_") {
		if !lib.has(symGetCUBIN) {
			return nil, &errors.Error{Backend: "nvrtc", Op: op, Category: errors.NotSupported,
				Msg: "this NVRTC cannot produce CUBIN (nvrtcGetCUBIN needs CUDA 11.1+)", Hint: "use a newer NVRTC, or set Options.PTX"}
		}
		if out.CUBIN, err = lib.blob(prog, symGetCUBINSize, symGetCUBIN, "CUBIN"); err != nil {
			return nil, errors.Wrap(err, "nvrtc", op)
		}
	}
	if len(o.NameExpressions) > 0 {
		out.LoweredNames = make(map[string]string, len(o.NameExpressions))
		for _, e := range o.NameExpressions {
			n, err := lib.loweredName(prog, e)
			if err != nil {
				return nil, errors.Wrap(err, "nvrtc", op)
			}
			out.LoweredNames[e] = n
		}
	}
	out.Duration = time.Since(start)
	return out, nil
}

// firstError is the first line of log that reports an error, shortened.
func firstError(log string) string {
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "error") {
			line = strings.TrimSpace(line)
			if len(line) > 200 {
				line = line[:200] + "..."
			}
			return line
		}
	}
	return ""
}
