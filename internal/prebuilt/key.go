package prebuilt

import (
	"slices"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/keyhash"
	"github.com/anygpu/gpu/nvrtc"
)

// NVRTCOptions are the NVRTC options the CUDA backend compiles src with for
// opts, with names as NVRTC name expressions, less the target: Arch and
// DriverVersion are the caller's to set. The backend and the regeneration
// both call it, so a prebuilt entry's key is that of what the backend would
// have compiled.
func NVRTCOptions(src backend.Source, opts backend.CompileOptions, names []string) nvrtc.Options {
	return nvrtc.Options{
		// A launch bound or an optimisation level asks for PTX, which the
		// driver compiles with them.
		PTX:             opts.MaxThreadsPerBlock > 0 || opts.OptLevel != nil,
		FastMath:        opts.FastMath,
		LineInfo:        opts.Debug,
		MaxRegisters:    opts.MaxRegisters,
		Defines:         opts.Defines,
		IncludePaths:    opts.IncludePaths,
		Headers:         opts.Headers,
		NameExpressions: names,
		Flags:           opts.Flags,
		Name:            src.Name + ".cu",
	}
}

// keyFormat is hashed first; changing how keys are made changes it, so old
// entries can never match new keys.
const keyFormat = "anygpu-prebuilt-key-1"

// Key is the hex SHA-256 of src and every field of o that reaches NVRTC,
// except the target (Arch): the program's identity across architectures.
// DriverVersion (a kernel-cache key only) and NoCache (a cache switch) do
// not change the code and are left out.
func Key(src string, o nvrtc.Options) string {
	k := keyhash.New()
	k.String(keyFormat)
	k.String(src)
	k.String(o.Name)
	k.String(o.Std)
	k.String(strconv.FormatBool(o.PTX))
	k.String(strconv.FormatBool(o.FastMath))
	k.String(strconv.Itoa(o.MaxRegisters))
	k.String(strconv.FormatBool(o.LineInfo))
	k.String(strconv.FormatBool(o.Debug))
	k.Map(o.Defines)
	k.List(o.IncludePaths)
	k.String(strconv.FormatBool(o.NoCUDAIncludes))
	k.Map(o.Headers)
	k.List(o.NameExpressions)
	k.List(o.Flags)
	return k.Hex()
}

// Eligible reports whether a program may be served prebuilt, and if not,
// why. The key covers the program's text and options but not the contents of
// files on disk, so a program that includes files (an #include or
// __has_include in the text, an include option among the flags) is not;
// nor is one with name expressions, whose lowered names the set does not
// keep.
func Eligible(src string, o nvrtc.Options) (bool, string) {
	switch {
	case strings.Contains(src, "include"):
		return false, "the program includes files, whose contents the key does not cover"
	case slices.ContainsFunc(o.Flags, func(f string) bool { return strings.Contains(f, "include") }):
		return false, "an include option among the flags"
	case len(o.NameExpressions) > 0:
		return false, "name expressions, whose lowered names the prebuilt set does not keep"
	}
	return true, ""
}
