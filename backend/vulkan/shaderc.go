//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"bytes"
	"encoding/binary"
	stderrors "errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/vulkan/internal/shaderc"
	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
	"github.com/anygpu/gpu/errors"
)

// GLSLCompiler reports whether GLSL sources compile at run time, and with
// what: libshaderc when it loads, else the glslc executable on PATH (or
// ANYGPU_GLSLC). Without either, the reason.
func GLSLCompiler() (bool, string) {
	if l, err := shaderc.Load(); err == nil {
		return true, l.Path
	}
	if path, err := glslcPath(); err == nil {
		return true, path
	}
	return false, noCompilerReason()
}

func noCompilerReason() string {
	_, err := glslcPath()
	_, lerr := shaderc.Load()
	return "libshaderc could not be loaded (" + lerr.Error() + "), and " + err.Error()
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
	if l, err := shaderc.Load(); err == nil {
		return compileWithShaderc(l, src.GLSL, names, opts, level)
	}
	glslc, err := glslcPath()
	if err != nil {
		return nil, &errors.Error{Category: errors.NotSupported,
			Msg: "the source has no SPIR-V (Source.SPIRV or SPIRVKernels) and its GLSL cannot be compiled at run time: " +
				noCompilerReason(),
			Hint: "add SPIR-V compiled with glslc (go generate), or install libshaderc (" + EnvShaderc + ") or glslc (" + EnvGLSLC + ")"}
	}
	return compileWithGLSLC(glslc, src.GLSL, names, opts, level, env)
}

// compileWithGLSLC compiles the GLSL text for each kernel name with the
// glslc executable at path. A glslc that exits with an error rejected the
// source: a Compilation error with what it printed. One that cannot be run,
// or that writes no SPIR-V, is not a usable compiler: NotSupported, naming
// the path and ANYGPU_GLSLC.
func compileWithGLSLC(glslc, text string, names []string, opts backend.CompileOptions, level, env string) ([]unit, error) {
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
		cmd.Stdin = strings.NewReader(withKernelDefine(text, name))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case err != nil && !stderrors.As(err, &exit):
			return nil, &errors.Error{Category: errors.NotSupported,
				Msg:  fmt.Sprintf("the GLSL compiler %s could not be run: %v", glslc, err),
				Hint: "install glslc (the Vulkan SDK or shaderc), or set " + EnvGLSLC + " to its path"}
		case err != nil:
			log := strings.TrimSpace(stderr.String() + "\n" + stdout.String())
			if log == "" {
				log = fmt.Sprintf("%s %s and printed nothing", glslc, exit.ProcessState)
			}
			return nil, &errors.Error{Category: errors.Compilation,
				Msg: fmt.Sprintf("GLSL of kernel %q does not compile: %s %s", name, glslc, exit.ProcessState),
				Log: log, Hint: glslHint + "; the compiler is " + glslc + " (" + EnvGLSLC + ")"}
		}
		blob := stdout.Bytes()
		if len(blob) < 20 || len(blob)%4 != 0 || binary.LittleEndian.Uint32(blob) != spvMagic {
			return nil, &errors.Error{Category: errors.NotSupported,
				Msg:  fmt.Sprintf("the GLSL compiler %s succeeded but wrote no SPIR-V module (%d bytes)", glslc, len(blob)),
				Log:  strings.TrimSpace(stderr.String()),
				Hint: "check that " + glslc + " is glslc, or set " + EnvGLSLC + " to glslc's path"}
		}
		units = append(units, unit{kernel: name, entry: "main", blob: blob})
	}
	return units, nil
}

const glslHint = "read the log (errors.LogOf): GLSL for Vulkan binds buffers at set 0 and takes scalars as push constants or a uniform block"

// compileWithShaderc compiles the GLSL text for each kernel name with
// libshaderc, for Vulkan 1.1.
func compileWithShaderc(l *shaderc.Library, text string, names []string, opts backend.CompileOptions, level string) ([]unit, error) {
	o := shaderc.Options{Optimization: shaderc.OptimizePerformance, Debug: opts.Debug, Defines: opts.Defines,
		APIVersion: vk.MakeAPIVersion(1, 1, 0)}
	switch level {
	case "-O0":
		o.Optimization = shaderc.OptimizeZero
	case "-Os":
		o.Optimization = shaderc.OptimizeSize
	}
	srcs := make([]shaderc.Source, len(names))
	for i, name := range names {
		srcs[i] = shaderc.Source{File: name + ".comp", Text: withKernelDefine(text, name)}
	}
	blobs, err := l.Compile(srcs, o)
	if ce, ok := err.(*shaderc.CompileError); ok {
		return nil, &errors.Error{Category: errors.Compilation, Msg: fmt.Sprintf("GLSL of kernel %q does not compile", names[ce.Index]),
			Log: ce.Log, Hint: glslHint}
	}
	if err != nil {
		return nil, err
	}
	units := make([]unit, len(names))
	for i, name := range names {
		units[i] = unit{kernel: name, entry: "main", blob: blobs[i]}
	}
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

// spirvEnv is the SPIRV-Tools target environment for a Vulkan version.
func spirvEnv(apiVersion uint32) string {
	switch {
	case apiVersion >= vk.MakeAPIVersion(1, 3, 0):
		return "vulkan1.3"
	case apiVersion >= vk.MakeAPIVersion(1, 2, 0):
		return "vulkan1.2"
	}
	return "vulkan1.1"
}

// validateSPIRV runs SPIRV-Tools' validator for the device's Vulkan version
// where libshaderc provides it; without it the structural checks of
// parseSPIRV are all there is.
func validateSPIRV(hash [32]byte, words []uint32, apiVersion uint32) error {
	key := fmt.Sprintf("%x/%d", hash, apiVersion)
	if _, ok := validated.Load(key); ok {
		return nil
	}
	l, err := shaderc.Load()
	if err != nil || !l.HasValidator() {
		return validateWithTool(key, words, apiVersion)
	}
	env := spirvEnv(apiVersion)
	code, diag, ok := l.Validate(env, words)
	if !ok {
		return nil
	}
	if code == 0 {
		validated.Store(key, true)
		return nil
	}
	msg := fmt.Sprintf("spirv-val (%s) failed with code %d", env, code)
	if diag != "" {
		msg += ": " + diag
	}
	return fmt.Errorf("%s", msg)
}

// SPIRVValidator reports whether SPIR-V is validated before it reaches the
// driver, and with what: SPIRV-Tools inside libshaderc, or the spirv-val
// executable (ANYGPU_SPIRV_VAL, else on PATH). Without either only the
// structural checks run (size, magic number, header, instruction stream).
func SPIRVValidator() (bool, string) {
	if l, err := shaderc.Load(); err == nil && l.HasValidator() {
		return true, l.Path
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
	env := spirvEnv(apiVersion)
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
