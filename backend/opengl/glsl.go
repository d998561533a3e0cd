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

// entryPoints returns the kernels of src, sorted: the keys of Params, or the
// source's name when it declares none.
func entryPoints(src backend.Source) []string {
	if len(src.Params) == 0 {
		return []string{src.Name}
	}
	names := make([]string, 0, len(src.Params))
	for name := range src.Params {
		names = append(names, name)
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
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "#version") {
			if !strings.HasSuffix(line, "\n") {
				line += "\n"
			}
			return strings.Join(lines[:i], "") + line + head.String() +
				fmt.Sprintf("#line %d\n", i+2) + strings.Join(lines[i+1:], "")
		}
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
