package prebuilt

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/backend"
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
	h := sha256.New()
	put := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	putList := func(l []string) {
		put(strconv.Itoa(len(l)))
		for _, s := range l {
			put(s)
		}
	}
	putMap := func(m map[string]string) {
		put(strconv.Itoa(len(m)))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			put(k)
			put(m[k])
		}
	}
	put(keyFormat)
	put(src)
	put(o.Name)
	put(o.Std)
	put(strconv.FormatBool(o.PTX))
	put(strconv.FormatBool(o.FastMath))
	put(strconv.Itoa(o.MaxRegisters))
	put(strconv.FormatBool(o.LineInfo))
	put(strconv.FormatBool(o.Debug))
	putMap(o.Defines)
	putList(o.IncludePaths)
	put(strconv.FormatBool(o.NoCUDAIncludes))
	putMap(o.Headers)
	putList(o.NameExpressions)
	putList(o.Flags)
	return hex.EncodeToString(h.Sum(nil))
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
