//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

// Package shaderc is anygpu's binding of libshaderc, opened at run time
// through internal/dl with no cgo: its C API compiles GLSL compute shaders
// to SPIR-V, and SPIRV-Tools' validator, which Debian's libshaderc exports
// too, checks SPIR-V for a Vulkan version.
package shaderc

import (
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/dl"
)

// Env names the libshaderc to open instead of the platform's.
const Env = "ANYGPU_SHADERC_LIBRARY"

// sym names one function of the library.
type sym int

const (
	symCompilerInit sym = iota
	symCompileIntoSPV
	symOptsInit
	symOptsRelease
	symOptsAddMacro
	symOptsSetOptimization
	symOptsSetDebug
	symOptsSetTargetEnv
	symResultRelease
	symResultLength
	symResultBytes
	symResultStatus
	symResultError
	symSpvParseTargetEnv // SPIRV-Tools, optional from here on
	symSpvContextCreate
	symSpvValidateBinary
	symSpvDiagnosticDestroy
	numSyms
)

// numRequired counts the shaderc functions, which come first and are all
// required.
const numRequired = symSpvParseTargetEnv

var symNames = [numSyms]string{
	symCompilerInit:         "shaderc_compiler_initialize",
	symCompileIntoSPV:       "shaderc_compile_into_spv",
	symOptsInit:             "shaderc_compile_options_initialize",
	symOptsRelease:          "shaderc_compile_options_release",
	symOptsAddMacro:         "shaderc_compile_options_add_macro_definition",
	symOptsSetOptimization:  "shaderc_compile_options_set_optimization_level",
	symOptsSetDebug:         "shaderc_compile_options_set_generate_debug_info",
	symOptsSetTargetEnv:     "shaderc_compile_options_set_target_env",
	symResultRelease:        "shaderc_result_release",
	symResultLength:         "shaderc_result_get_length",
	symResultBytes:          "shaderc_result_get_bytes",
	symResultStatus:         "shaderc_result_get_compilation_status",
	symResultError:          "shaderc_result_get_error_message",
	symSpvParseTargetEnv:    "spvParseTargetEnv",
	symSpvContextCreate:     "spvContextCreate",
	symSpvValidateBinary:    "spvValidateBinary",
	symSpvDiagnosticDestroy: "spvDiagnosticDestroy",
}

// Optimization levels of shaderc_optimization_level.
const (
	OptimizeZero        = 0
	OptimizeSize        = 1
	OptimizePerformance = 2
)

const (
	computeShader = 2 // shaderc_compute_shader
	targetVulkan  = 0 // shaderc_target_env_vulkan
)

// Library is a loaded libshaderc.
type Library struct {
	Path string // the candidate it was opened by

	fn       [numSyms]uintptr
	mu       sync.Mutex // guards compiles and the validator contexts
	compiler uintptr
	contexts map[string]uintptr
}

var lib struct {
	once sync.Once
	l    *Library
	err  error
}

// candidates are the names tried, in order: Env alone when it is set.
func candidates() []string {
	if p := os.Getenv(Env); p != "" {
		return []string{p}
	}
	switch runtime.GOOS {
	case "windows":
		return []string{"shaderc_shared.dll"}
	case "darwin":
		return []string{"libshaderc_shared.1.dylib", "libshaderc_shared.dylib", "/opt/homebrew/lib/libshaderc_shared.dylib", "/usr/local/lib/libshaderc_shared.dylib"}
	}
	return []string{"libshaderc.so.1", "libshaderc_shared.so.1", "libshaderc_shared.so"}
}

// Load opens libshaderc on first use and returns it, or why it is unusable;
// the outcome is kept for the process.
func Load() (*Library, error) {
	lib.once.Do(func() {
		l := &Library{contexts: map[string]uintptr{}}
		_, err := dl.Load(dl.Spec{Candidates: candidates(), Mode: dl.Now, Accept: func(h uintptr, path string) error {
			if dl.Resolve(h, path, l.fn[:], symNames[:], int(numRequired)) != nil {
				return fmt.Errorf("%s lacks the shaderc C API", path)
			}
			l.Path = path
			return nil
		}})
		if err != nil {
			lib.err = err
			return
		}
		lib.l = l
	})
	return lib.l, lib.err
}

// Options are how Compile compiles.
type Options struct {
	Optimization int               // OptimizeZero, OptimizeSize or OptimizePerformance
	Debug        bool              // generate debug information
	Defines      map[string]string // macros, "" for a name without a value
	APIVersion   uint32            // the Vulkan version to target (VK_MAKE_API_VERSION)
}

// Source is one compute shader to compile.
type Source struct {
	File string // the file name messages use
	Text string // the GLSL text
}

// CompileError is a source that does not compile, with the compiler's log.
type CompileError struct {
	Index int    // the source's index in Compile's list
	Log   string // the compiler's messages
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("source %d does not compile: %s", e.Index, e.Log)
}

// Compile compiles each source (entry point "main") to SPIR-V with the same
// options. A source that does not compile stops it with a *CompileError; a
// library that fails is an errors.Error.
func (l *Library) Compile(srcs []Source, o Options) ([][]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.compiler == 0 {
		l.compiler = dl.Call(l.fn[symCompilerInit])
		if l.compiler == 0 {
			return nil, &errors.Error{Category: errors.Initialization, Msg: "shaderc_compiler_initialize failed",
				Hint: "check the libshaderc installation (" + l.Path + ")"}
		}
	}
	options := dl.Call(l.fn[symOptsInit])
	if options == 0 {
		return nil, &errors.Error{Category: errors.Initialization, Msg: "shaderc_compile_options_initialize failed", Hint: "check the libshaderc installation"}
	}
	defer dl.Call(l.fn[symOptsRelease], options)
	dl.Call(l.fn[symOptsSetTargetEnv], options, targetVulkan, uintptr(o.APIVersion))
	dl.Call(l.fn[symOptsSetOptimization], options, uintptr(o.Optimization))
	if o.Debug {
		dl.Call(l.fn[symOptsSetDebug], options)
	}
	for _, name := range slices.Sorted(maps.Keys(o.Defines)) {
		n, v := []byte(name), []byte(o.Defines[name])
		dl.Call(l.fn[symOptsAddMacro], options, uintptr(unsafe.Pointer(unsafe.SliceData(n))), uintptr(len(n)),
			uintptr(unsafe.Pointer(unsafe.SliceData(v))), uintptr(len(v)))
	}
	entry := dl.CString("main")
	var blobs [][]byte
	for i, src := range srcs {
		text := []byte(src.Text)
		file := dl.CString(src.File)
		res := dl.Call(l.fn[symCompileIntoSPV], l.compiler, uintptr(unsafe.Pointer(&text[0])), uintptr(len(text)),
			computeShader, uintptr(unsafe.Pointer(&file[0])), uintptr(unsafe.Pointer(&entry[0])), options)
		if res == 0 {
			return nil, &errors.Error{Category: errors.Internal, Msg: "shaderc returned no result", Hint: "check the libshaderc installation"}
		}
		if status := dl.Call(l.fn[symResultStatus], res); status != 0 {
			log := dl.GoStringN(dl.Call(l.fn[symResultError], res), 1<<20)
			dl.Call(l.fn[symResultRelease], res)
			return nil, &CompileError{Index: i, Log: log}
		}
		n := int(dl.Call(l.fn[symResultLength], res))
		blobs = append(blobs, copyBytes(dl.Call(l.fn[symResultBytes], res), n))
		dl.Call(l.fn[symResultRelease], res)
	}
	return blobs, nil
}

// copyBytes copies n bytes at the address p (C memory).
func copyBytes(p uintptr, n int) []byte {
	if p == 0 || n <= 0 {
		return nil
	}
	return append([]byte(nil), unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&p))), n)...)
}

// HasValidator reports whether the library exports SPIRV-Tools' validator.
func (l *Library) HasValidator() bool {
	return l.fn[symSpvValidateBinary] != 0 && l.fn[symSpvContextCreate] != 0 && l.fn[symSpvParseTargetEnv] != 0
}

// Validate runs SPIRV-Tools' validator on words for the target environment
// env ("vulkan1.1"): code is spv_result_t (0 when valid) and diag the
// validator's message. ok is false when there is no verdict (no validator,
// or env unknown to it).
func (l *Library) Validate(env string, words []uint32) (code int32, diag string, ok bool) {
	if !l.HasValidator() {
		return 0, "", false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	ctx := l.contexts[env]
	if ctx == 0 {
		var target uint32
		name := dl.CString(env)
		if dl.Call(l.fn[symSpvParseTargetEnv], uintptr(unsafe.Pointer(&name[0])), uintptr(unsafe.Pointer(&target)))&0xff == 0 {
			return 0, "", false
		}
		if ctx = dl.Call(l.fn[symSpvContextCreate], uintptr(target)); ctx == 0 {
			return 0, "", false
		}
		l.contexts[env] = ctx
	}
	var d unsafe.Pointer
	code = int32(dl.Call(l.fn[symSpvValidateBinary], ctx, uintptr(unsafe.Pointer(&words[0])), uintptr(len(words)), uintptr(unsafe.Pointer(&d))))
	if d != nil {
		if code != 0 {
			// spv_diagnostic_t: spv_position_t position (3 size_t), char* error, bool isTextSource.
			diag = dl.GoStringN(*(*uintptr)(unsafe.Add(d, 3*unsafe.Sizeof(uintptr(0)))), 1<<16)
		}
		if l.fn[symSpvDiagnosticDestroy] != 0 {
			dl.Call(l.fn[symSpvDiagnosticDestroy], uintptr(d))
		}
	}
	return code, diag, true
}
