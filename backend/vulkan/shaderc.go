//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
	"github.com/anygpu/gpu/errors"
	"github.com/ebitengine/purego"
)

// shadercLib is libshaderc, opened on first use: the GLSL compiler, and
// SPIRV-Tools' validator, which Debian's libshaderc exports too.
type shadercLib struct {
	name string
	err  error

	mu                  sync.Mutex // guards compiles and the validator contexts
	compiler            uintptr
	compilerInit        uintptr
	compileIntoSPV      uintptr
	optsInit            uintptr
	optsRelease         uintptr
	optsAddMacro        uintptr
	optsSetOptimization uintptr
	optsSetDebug        uintptr
	optsSetTargetEnv    uintptr
	resultRelease       uintptr
	resultLength        uintptr
	resultBytes         uintptr
	resultStatus        uintptr
	resultError         uintptr

	// SPIRV-Tools (may be absent).
	spvParseTargetEnv   uintptr
	spvContextCreate    uintptr
	spvValidateBinary   uintptr
	spvDiagnosticDelete uintptr
	contexts            map[string]uintptr
}

var shaderc struct {
	once sync.Once
	lib  *shadercLib
}

func shadercNames() []string {
	if p := os.Getenv(EnvShaderc); p != "" {
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

// getShaderc opens libshaderc once; lib.err says why it is unusable.
func getShaderc() *shadercLib {
	shaderc.once.Do(func() {
		l := &shadercLib{contexts: map[string]uintptr{}}
		shaderc.lib = l
		h, name, err := vk.OpenLibrary(shadercNames())
		if err != nil {
			l.err = err
			return
		}
		l.name = name
		sym := func(n string) uintptr { return vk.Symbol(h, n) }
		l.compilerInit = sym("shaderc_compiler_initialize")
		l.compileIntoSPV = sym("shaderc_compile_into_spv")
		l.optsInit = sym("shaderc_compile_options_initialize")
		l.optsRelease = sym("shaderc_compile_options_release")
		l.optsAddMacro = sym("shaderc_compile_options_add_macro_definition")
		l.optsSetOptimization = sym("shaderc_compile_options_set_optimization_level")
		l.optsSetDebug = sym("shaderc_compile_options_set_generate_debug_info")
		l.optsSetTargetEnv = sym("shaderc_compile_options_set_target_env")
		l.resultRelease = sym("shaderc_result_release")
		l.resultLength = sym("shaderc_result_get_length")
		l.resultBytes = sym("shaderc_result_get_bytes")
		l.resultStatus = sym("shaderc_result_get_compilation_status")
		l.resultError = sym("shaderc_result_get_error_message")
		for _, p := range []uintptr{l.compilerInit, l.compileIntoSPV, l.optsInit, l.optsRelease, l.optsAddMacro,
			l.optsSetOptimization, l.optsSetDebug, l.optsSetTargetEnv, l.resultRelease, l.resultLength,
			l.resultBytes, l.resultStatus, l.resultError} {
			if p == 0 {
				l.err = fmt.Errorf("%s lacks the shaderc C API", name)
				return
			}
		}
		l.spvParseTargetEnv = sym("spvParseTargetEnv")
		l.spvContextCreate = sym("spvContextCreate")
		l.spvValidateBinary = sym("spvValidateBinary")
		l.spvDiagnosticDelete = sym("spvDiagnosticDestroy")
	})
	return shaderc.lib
}

// GLSLCompiler reports whether GLSL sources compile at run time, and with
// what: libshaderc when it loads, else the glslc executable on PATH (or
// ANYGPU_GLSLC). Without either, the reason.
func GLSLCompiler() (bool, string) {
	if l := getShaderc(); l.err == nil {
		return true, l.name
	}
	if path, err := glslcPath(); err == nil {
		return true, path
	}
	return false, noCompilerReason()
}

func noCompilerReason() string {
	_, err := glslcPath()
	return "libshaderc could not be loaded (" + getShaderc().err.Error() + "), and " + err.Error()
}

// glslcPath finds the glslc executable: ANYGPU_GLSLC, else PATH.
func glslcPath() (string, error) {
	if p := os.Getenv(EnvGLSLC); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %v", EnvGLSLC, p, err)
		}
		return p, nil
	}
	p, err := exec.LookPath("glslc")
	if err != nil {
		return "", fmt.Errorf("glslc is not on PATH")
	}
	return p, nil
}

const (
	shadercComputeShader   = 2
	shadercTargetVulkan    = 0
	shadercOptimizeZero    = 0
	shadercOptimizeSize    = 1
	shadercOptimizePerform = 2
)

// compileGLSL compiles src.GLSL once per kernel (Params' names, or the
// source's name) with "#define ANYGPU_KERNEL_<name> 1" after #version, as
// backend.Source describes: with libshaderc where it loads, else with glslc.
func compileGLSL(src backend.Source, opts backend.CompileOptions, apiVersion uint32) ([]unit, error) {
	level := "-O"
	for _, f := range opts.Flags {
		switch f {
		case "-O0", "-Os", "-O":
			level = f
		case "-g":
			opts.Debug = true
		default:
			return nil, &errors.Error{Category: errors.InvalidArgument, Msg: fmt.Sprintf("unknown compiler flag %q", f),
				Hint: "the Vulkan backend's GLSL compiler takes -O0, -O, -Os and -g"}
		}
	}
	if opts.Debug {
		level = "-O0"
	}
	names := slices.Sorted(maps.Keys(src.Params))
	if len(names) == 0 {
		names = []string{src.Name}
	}
	// SPIR-V 1.3 for Vulkan 1.1, which every device runs; newer targets
	// would make local_size_x_id an execution mode that needs maintenance4.
	env := "vulkan1.1"
	_ = apiVersion
	if l := getShaderc(); l.err == nil {
		return l.compile(src.GLSL, names, opts, level, env)
	}
	glslc, err := glslcPath()
	if err != nil {
		return nil, &errors.Error{Category: errors.NotSupported,
			Msg: "the source has no SPIR-V (Source.SPIRV or SPIRVKernels) and its GLSL cannot be compiled at run time: " +
				noCompilerReason(),
			Hint: "add SPIR-V compiled with glslc (go generate), or install libshaderc (" + EnvShaderc + ") or glslc (" + EnvGLSLC + ")"}
	}
	var units []unit
	for _, name := range names {
		args := []string{"-fshader-stage=compute", "--target-env=" + env, level, "-o", "-"}
		if opts.Debug {
			args = append(args, "-g")
		}
		for _, d := range slices.Sorted(maps.Keys(opts.Defines)) {
			if v := opts.Defines[d]; v != "" {
				args = append(args, "-D"+d+"="+v)
			} else {
				args = append(args, "-D"+d)
			}
		}
		cmd := exec.Command(glslc, append(args, "-")...)
		cmd.Stdin = strings.NewReader(withKernelDefine(src.GLSL, name))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			log := strings.TrimSpace(stderr.String())
			if _, ok := err.(*exec.ExitError); !ok || log == "" {
				return nil, &errors.Error{Category: errors.Internal, Msg: fmt.Sprintf("running %s: %v", glslc, err), Log: log,
					Hint: "check the glslc installation, or set " + EnvGLSLC}
			}
			return nil, &errors.Error{Category: errors.Compilation, Msg: fmt.Sprintf("GLSL of kernel %q does not compile", name),
				Log: log, Hint: glslHint}
		}
		units = append(units, unit{kernel: name, entry: "main", blob: stdout.Bytes()})
	}
	return units, nil
}

const glslHint = "read the log (errors.LogOf): GLSL for Vulkan binds buffers at set 0 and takes scalars as push constants or a uniform block"

// compile compiles the GLSL text for each kernel name with libshaderc.
func (l *shadercLib) compile(text string, names []string, opts backend.CompileOptions, level, env string) ([]unit, error) {
	lvl := uintptr(shadercOptimizePerform)
	switch level {
	case "-O0":
		lvl = shadercOptimizeZero
	case "-Os":
		lvl = shadercOptimizeSize
	}
	version := vk.MakeAPIVersion(1, 1, 0)
	switch env {
	case "vulkan1.2":
		version = vk.MakeAPIVersion(1, 2, 0)
	case "vulkan1.3":
		version = vk.MakeAPIVersion(1, 3, 0)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.compiler == 0 {
		l.compiler, _, _ = purego.SyscallN(l.compilerInit)
		if l.compiler == 0 {
			return nil, &errors.Error{Category: errors.Initialization, Msg: "shaderc_compiler_initialize failed",
				Hint: "check the libshaderc installation (" + l.name + ")"}
		}
	}
	options, _, _ := purego.SyscallN(l.optsInit)
	if options == 0 {
		return nil, &errors.Error{Category: errors.Initialization, Msg: "shaderc_compile_options_initialize failed", Hint: "check the libshaderc installation"}
	}
	defer purego.SyscallN(l.optsRelease, options)
	purego.SyscallN(l.optsSetTargetEnv, options, shadercTargetVulkan, uintptr(version))
	purego.SyscallN(l.optsSetOptimization, options, lvl)
	if opts.Debug {
		purego.SyscallN(l.optsSetDebug, options)
	}
	for _, name := range slices.Sorted(maps.Keys(opts.Defines)) {
		n, v := []byte(name), []byte(opts.Defines[name])
		purego.SyscallN(l.optsAddMacro, options, uintptr(unsafe.Pointer(unsafe.SliceData(n))), uintptr(len(n)),
			uintptr(unsafe.Pointer(unsafe.SliceData(v))), uintptr(len(v)))
		runtime.KeepAlive(n)
		runtime.KeepAlive(v)
	}
	entry := vk.CString("main")
	var units []unit
	for _, name := range names {
		text := []byte(withKernelDefine(text, name))
		file := vk.CString(name + ".comp")
		res, _, _ := purego.SyscallN(l.compileIntoSPV, l.compiler, uintptr(unsafe.Pointer(&text[0])), uintptr(len(text)),
			shadercComputeShader, uintptr(unsafe.Pointer(file)), uintptr(unsafe.Pointer(entry)), options)
		runtime.KeepAlive(text)
		runtime.KeepAlive(file)
		if res == 0 {
			return nil, &errors.Error{Category: errors.Internal, Msg: "shaderc returned no result", Hint: "check the libshaderc installation"}
		}
		status, _, _ := purego.SyscallN(l.resultStatus, res)
		if status != 0 {
			msgPtr, _, _ := purego.SyscallN(l.resultError, res)
			log := cString(msgPtr)
			purego.SyscallN(l.resultRelease, res)
			return nil, &errors.Error{Category: errors.Compilation, Msg: fmt.Sprintf("GLSL of kernel %q does not compile", name),
				Log: log, Hint: glslHint}
		}
		n, _, _ := purego.SyscallN(l.resultLength, res)
		p, _, _ := purego.SyscallN(l.resultBytes, res)
		blob := append([]byte(nil), cBytes(p, int(n))...)
		purego.SyscallN(l.resultRelease, res)
		units = append(units, unit{kernel: name, entry: "main", blob: blob})
	}
	runtime.KeepAlive(entry)
	return units, nil
}

// withKernelDefine inserts "#define ANYGPU_KERNEL_<name> 1" after the
// #version line (or first, when there is none).
func withKernelDefine(text, name string) string {
	def := "#define ANYGPU_KERNEL_" + name + " 1\n"
	lines := strings.SplitAfter(text, "\n")
	for i, ln := range lines {
		if strings.HasPrefix(strings.TrimSpace(ln), "#version") {
			if !strings.HasSuffix(ln, "\n") {
				lines[i] = ln + "\n"
			}
			return strings.Join(lines[:i+1], "") + def + "#line " + fmt.Sprint(i+2) + "\n" + strings.Join(lines[i+1:], "")
		}
	}
	return def + "#line 1\n" + text
}

// validated remembers the SPIR-V hashes that passed the validator.
var validated sync.Map

// validateSPIRV runs SPIRV-Tools' validator for the device's Vulkan version
// where libshaderc provides it; without it the structural checks of
// parseSPIRV are all there is.
func validateSPIRV(hash [32]byte, words []uint32, apiVersion uint32) error {
	key := fmt.Sprintf("%x/%d", hash, apiVersion)
	if _, ok := validated.Load(key); ok {
		return nil
	}
	l := getShaderc()
	if l.err != nil || l.spvValidateBinary == 0 || l.spvContextCreate == 0 || l.spvParseTargetEnv == 0 {
		return validateWithTool(key, words, apiVersion)
	}
	envName := "vulkan1.1"
	switch {
	case apiVersion >= vk.MakeAPIVersion(1, 3, 0):
		envName = "vulkan1.3"
	case apiVersion >= vk.MakeAPIVersion(1, 2, 0):
		envName = "vulkan1.2"
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	ctx := l.contexts[envName]
	if ctx == 0 {
		var env uint32
		name := vk.CString(envName)
		ok, _, _ := purego.SyscallN(l.spvParseTargetEnv, uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(&env)))
		runtime.KeepAlive(name)
		if ok&0xff == 0 {
			return nil
		}
		ctx, _, _ = purego.SyscallN(l.spvContextCreate, uintptr(env))
		if ctx == 0 {
			return nil
		}
		l.contexts[envName] = ctx
	}
	var diag unsafe.Pointer
	r, _, _ := purego.SyscallN(l.spvValidateBinary, ctx, uintptr(unsafe.Pointer(&words[0])), uintptr(len(words)), uintptr(unsafe.Pointer(&diag)))
	runtime.KeepAlive(words)
	if int32(r) == 0 {
		validated.Store(key, true)
		if diag != nil && l.spvDiagnosticDelete != 0 {
			purego.SyscallN(l.spvDiagnosticDelete, uintptr(diag))
		}
		return nil
	}
	msg := fmt.Sprintf("spirv-val (%s) failed with code %d", envName, int32(r))
	if diag != nil {
		// spv_diagnostic_t: spv_position_t position (3 size_t), char* error, bool isTextSource.
		errPtr := *(*unsafe.Pointer)(unsafe.Add(diag, 3*unsafe.Sizeof(uintptr(0))))
		if text := vk.GoString(errPtr, 1<<16); text != "" {
			msg += ": " + text
		}
		if l.spvDiagnosticDelete != 0 {
			purego.SyscallN(l.spvDiagnosticDelete, uintptr(diag))
		}
	}
	return fmt.Errorf("%s", msg)
}

// SPIRVValidator reports whether SPIR-V is validated before it reaches the
// driver, and with what: SPIRV-Tools inside libshaderc, or the spirv-val
// executable (ANYGPU_SPIRV_VAL, else on PATH). Without either only the
// structural checks run (size, magic number, header, instruction stream).
func SPIRVValidator() (bool, string) {
	if l := getShaderc(); l.err == nil && l.spvValidateBinary != 0 && l.spvContextCreate != 0 && l.spvParseTargetEnv != 0 {
		return true, l.name
	}
	tool := os.Getenv(EnvSPIRVVal)
	if tool == "off" {
		return false, EnvSPIRVVal + "=off"
	}
	if tool == "" {
		p, err := exec.LookPath("spirv-val")
		if err != nil {
			return false, "neither libshaderc nor spirv-val is installed"
		}
		tool = p
	}
	return true, tool
}

// validateWithTool runs the spirv-val executable (ANYGPU_SPIRV_VAL, else on
// PATH) where it is installed; once per module, as the result is remembered.
func validateWithTool(key string, words []uint32, apiVersion uint32) error {
	tool := os.Getenv(EnvSPIRVVal)
	if tool == "" {
		p, err := exec.LookPath("spirv-val")
		if err != nil {
			return nil
		}
		tool = p
	}
	if tool == "off" {
		return nil
	}
	env := "vulkan1.1"
	switch {
	case apiVersion >= vk.MakeAPIVersion(1, 3, 0):
		env = "vulkan1.3"
	case apiVersion >= vk.MakeAPIVersion(1, 2, 0):
		env = "vulkan1.2"
	}
	blob := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(blob[4*i:], w)
	}
	cmd := exec.Command(tool, "--target-env", env, "-")
	cmd.Stdin = bytes.NewReader(blob)
	out, err := cmd.CombinedOutput()
	if err == nil {
		validated.Store(key, true)
		return nil
	}
	if _, ok := err.(*exec.ExitError); !ok {
		return nil // the tool did not run: no verdict
	}
	return fmt.Errorf("spirv-val (%s): %s", env, strings.TrimSpace(string(out)))
}

// cString reads a C string returned as an address by a SyscallN call.
func cString(p uintptr) string {
	if p == 0 {
		return ""
	}
	return vk.GoString(*(*unsafe.Pointer)(unsafe.Pointer(&p)), 1<<20)
}

// cBytes views n bytes at the address p (C memory, valid until released).
func cBytes(p uintptr, n int) []byte {
	if p == 0 || n <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&p))), n)
}
