package opengl

import (
	"fmt"
	"sort"
	"strings"

	"github.com/anygpu/gpu/backend"
)

// BlockMacroX, BlockMacroY and BlockMacroZ are the macros a GLSL source uses to let the launch choose its
// work-group size:
//
//	#ifndef ANYGPU_BLOCK_X
//	#define ANYGPU_BLOCK_X 256 // the size compiled by Compile
//	#endif
//	...
//	layout(local_size_x = ANYGPU_BLOCK_X, local_size_y = ANYGPU_BLOCK_Y, local_size_z = ANYGPU_BLOCK_Z) in;
//
// Compile builds every kernel without them (the source's defaults). A launch
// whose block differs from the work-group size the kernel was compiled with
// builds, once per block size, a variant with all three defined to the
// launch's block, when the kernel's text mentions ANYGPU_BLOCK_; a kernel
// whose local_size is fixed refuses such a launch with a Launch error naming
// both sizes.
const (
	BlockMacroX = "ANYGPU_BLOCK_X"
	BlockMacroY = "ANYGPU_BLOCK_Y"
	BlockMacroZ = "ANYGPU_BLOCK_Z"
)

// blockMacroPrefix marks a source whose work-group size follows the launch.
const blockMacroPrefix = "ANYGPU_BLOCK_"

// kernelMacro is the macro that selects one kernel of a multi-kernel text.
func kernelMacro(name string) string { return "ANYGPU_KERNEL_" + name }

// isIdent reports whether s is a GLSL (C preprocessor) identifier.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && !(i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// entryPoints returns the kernels of src, sorted: the keys of Params but
// those the source's GLSL left out (Unsupported), or the source's name when
// it declares none.
func entryPoints(src backend.Source) []string {
	if len(src.Params) == 0 {
		return []string{src.Name}
	}
	names := make([]string, 0, len(src.Params))
	for name := range src.Params {
		if _, left := src.Unsupported[name]; !left {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// prepare returns the text compiled for kernel name: text with, after its
// #version line (or after a "#version 430" put first when it has none),
// "#define ANYGPU_KERNEL_<name> 1", the compile options' defines, the block
// macros when block is not nil, "#pragma optimize(off)" and "#pragma
// debug(on)" for debug builds, and a #line directive that keeps the compiler's
// line numbers those of text.
func prepare(text, name string, defines map[string]string, block *backend.Dim3, debug bool) string {
	var head strings.Builder
	head.WriteString("#define " + kernelMacro(name) + " 1\n")
	keys := make([]string, 0, len(defines))
	for k := range defines {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := defines[k]; v != "" {
			fmt.Fprintf(&head, "#define %s %s\n", k, v)
		} else {
			fmt.Fprintf(&head, "#define %s\n", k)
		}
	}
	if block != nil {
		b := block.Norm()
		fmt.Fprintf(&head, "#define %s %d\n#define %s %d\n#define %s %d\n", BlockMacroX, b.X, BlockMacroY, b.Y, BlockMacroZ, b.Z)
	}
	if debug {
		head.WriteString("#pragma optimize(off)\n#pragma debug(on)\n")
	}
	lines := strings.SplitAfter(text, "\n")
	if i := versionLine(lines); i >= 0 {
		line := lines[i]
		if !strings.HasSuffix(line, "\n") {
			line += "\n"
		}
		return strings.Join(lines[:i], "") + line + head.String() +
			fmt.Sprintf("#line %d\n", i+2) + strings.Join(lines[i+1:], "")
	}
	return "#version 430\n" + head.String() + "#line 1\n" + text
}

// checkDefines validates the compile options' macro names.
func checkDefines(defines map[string]string) error {
	for k, v := range defines {
		if !isIdent(k) {
			return fmt.Errorf("define %q is not a preprocessor identifier", k)
		}
		if strings.ContainsAny(v, "\n\r") {
			return fmt.Errorf("define %s: the value must be one line", k)
		}
	}
	return nil
}

// esVersion is the #version line of GLSL ES 3.10, the language of OpenGL ES
// 3.1 compute shaders.
const esVersion = "#version 310 es"

// esPrologue follows the #version line of GLSL ES derived from GLSL: the
// default precisions GLSL ES 3.10 asks for (float and int have highp
// defaults in compute shaders already; images and atomic counters have none,
// and a declaration of one without a precision does not compile).
const esPrologue = "precision highp float;\nprecision highp int;\n" +
	"precision highp image2D;\nprecision highp iimage2D;\nprecision highp uimage2D;\n" +
	"precision highp image3D;\nprecision highp iimage3D;\nprecision highp uimage3D;\n" +
	"precision highp image2DArray;\nprecision highp iimage2DArray;\nprecision highp uimage2DArray;\n" +
	"precision highp atomic_uint;\n"

// dialect is the text a device compiles and where it came from.
type dialect struct {
	text    string
	lang    string // "GLSL" or "GLSL ES", in messages
	field   string // the Source field the text (or the text it derives from) is
	derived bool   // GLSL ES derived from Source.GLSL (deriveES)
}

// dialectOf picks the text of src a context compiles. Desktop OpenGL compiles
// Source.GLSL, or Source.GLSLES when the source has no GLSL and the driver
// takes GLSL ES 3.10 (esCompatible: GL_ARB_ES3_1_compatibility). OpenGL ES
// (es) compiles Source.GLSLES, else GLSL ES derived from Source.GLSL
// (deriveES). ok is false when the source has no text the context takes.
func dialectOf(src backend.Source, es, esCompatible bool) (d dialect, ok bool) {
	hasGLSL, hasES := strings.TrimSpace(src.GLSL) != "", strings.TrimSpace(src.GLSLES) != ""
	switch {
	case !es && hasGLSL:
		return dialect{text: src.GLSL, lang: "GLSL", field: "Source.GLSL"}, true
	case hasES && (es || esCompatible):
		return dialect{text: withESVersion(src.GLSLES), lang: "GLSL ES", field: "Source.GLSLES"}, true
	case es && hasGLSL:
		return dialect{text: deriveES(src.GLSL), lang: "GLSL ES", field: "Source.GLSL", derived: true}, true
	}
	return dialect{}, false
}

// versionLine returns the index of text's #version line among lines, or -1.
func versionLine(lines []string) int {
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "#version") {
			return i
		}
	}
	return -1
}

// withESVersion puts "#version 310 es" first in a GLSL ES text that has no
// #version line (prepare would otherwise put "#version 430"), keeping its
// line numbers.
func withESVersion(text string) string {
	if versionLine(strings.SplitAfter(text, "\n")) >= 0 {
		return text
	}
	return esVersion + "\n#line 1\n" + text
}

// deriveES turns a GLSL 430 compute text into GLSL ES 3.10: its #version line
// becomes "#version 310 es" (one is put first when it has none), followed by
// the default precisions of esPrologue and a #line directive that keeps the
// compiler's line numbers those of the GLSL text. Everything else is kept: a
// text that uses what GLSL ES lacks (implicit int/uint/float conversions,
// double, fma before GLSL ES 3.20, #extension lines of desktop extensions)
// fails to compile with the compiler's log, and a text can hold the ES forms
// in "#ifdef GL_ES" sections (GL_ES is defined by every GLSL ES compiler).
func deriveES(text string) string {
	lines := strings.SplitAfter(text, "\n")
	i := versionLine(lines)
	if i < 0 {
		return esVersion + "\n" + esPrologue + "#line 1\n" + text
	}
	return strings.Join(lines[:i], "") + esVersion + "\n" + esPrologue +
		fmt.Sprintf("#line %d\n", i+2) + strings.Join(lines[i+1:], "")
}
