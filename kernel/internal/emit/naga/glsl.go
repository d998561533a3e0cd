package naga

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gogpu/naga/glsl"
	"github.com/gogpu/naga/ir"
)

// The block macros of backend/opengl (BlockMacroX etc. there).
var blockMacros = [3]string{"ANYGPU_BLOCK_X", "ANYGPU_BLOCK_Y", "ANYGPU_BLOCK_Z"}

// redundantExtensions are the #extension lines naga writes that GLSL 4.30
// has in its core.
var redundantExtensions = map[string]bool{
	"#extension GL_ARB_compute_shader : require":               true,
	"#extension GL_ARB_shader_storage_buffer_object : require": true,
}

// subgroupExtensionCalls are, by GL_KHR_shader_subgroup's extension, the
// calls that need it; naga v0.19.0 requires every one of them in a module
// with any subgroup operation, and a driver may lack some.
var subgroupExtensionCalls = map[string][]string{
	"GL_KHR_shader_subgroup_vote":             {"subgroupAll(", "subgroupAny(", "subgroupAllEqual("},
	"GL_KHR_shader_subgroup_arithmetic":       {"subgroupAdd(", "subgroupMul(", "subgroupMin(", "subgroupMax(", "subgroupAnd(", "subgroupOr(", "subgroupXor(", "subgroupInclusive", "subgroupExclusive"},
	"GL_KHR_shader_subgroup_ballot":           {"subgroupBroadcast", "subgroupBallot", "subgroupInverseBallot(", "subgroupElect("},
	"GL_KHR_shader_subgroup_shuffle":          {"subgroupShuffle(", "subgroupShuffleXor("},
	"GL_KHR_shader_subgroup_shuffle_relative": {"subgroupShuffleUp(", "subgroupShuffleDown("},
	"GL_KHR_shader_subgroup_quad":             {"subgroupQuad"},
	"GL_KHR_shader_subgroup_clustered":        {"subgroupClustered"},
}

// unusedSubgroupExtension reports whether line requires a subgroup
// extension whose functions text does not call.
func unusedSubgroupExtension(line, text string) bool {
	fields := strings.Fields(line)
	if len(fields) < 2 || fields[0] != "#extension" {
		return false
	}
	calls, ok := subgroupExtensionCalls[fields[1]]
	if !ok {
		return false
	}
	for _, c := range calls {
		if strings.Contains(text, c) {
			return false
		}
	}
	return true
}

// GLSL returns the kernels' modules (see the package doc) as one GLSL 4.30
// compute text for the OpenGL backend: "#version 430", then an
// "#ifdef ANYGPU_KERNEL_<name>" section per kernel, in name order, each with
// #ifndef defaults of ANYGPU_BLOCK_X, _Y and _Z (the module's anygpu_block_*
// values) and layout(local_size_x = ANYGPU_BLOCK_X, ...) in; buffers are
// SSBOs at bindings 0..n-1, the scalars a std140 uniform block at binding n.
func GLSL(modules map[string]string) (string, error) {
	return glslText(modules, glsl.Version430, "#version 430\n")
}

// GLSLES is GLSL for OpenGL ES 3.1: "#version 310 es", and each section sets
// float and int precision to highp.
func GLSLES(modules map[string]string) (string, error) {
	return glslText(modules, glsl.VersionES310, "#version 310 es\n")
}

// glslText translates every module for version and joins the sections.
func glslText(modules map[string]string, version glsl.Version, head string) (string, error) {
	dialect := "glsl"
	if version.ES {
		dialect = "glsl es"
	}
	mods, err := readModules(modules)
	if err != nil {
		return "", fmt.Errorf("naga: %s: %w", dialect, err)
	}
	var b strings.Builder
	b.WriteString(head)
	for _, m := range mods {
		section, err := translate(m, func(text string, s [3]uint32) (string, error) {
			return m.glsl(text, s, version)
		})
		if err != nil {
			return "", fmt.Errorf("naga: %s: %w", dialect, err)
		}
		b.WriteString("\n#ifdef ANYGPU_KERNEL_" + m.name + "\n")
		for k, macro := range blockMacros {
			fmt.Fprintf(&b, "#ifndef %s\n#define %s %d\n#endif\n", macro, macro, m.block[k])
		}
		b.WriteString(section)
		b.WriteString("#endif // ANYGPU_KERNEL_" + m.name + "\n")
	}
	return b.String(), nil
}

// glsl translates one variant of the module (block values s) to the body of
// its section: naga's text without the #version line and redundant
// extensions, the work-group size and block constants turned into the macros.
func (m *kernelModule) glsl(text string, s [3]uint32, version glsl.Version) (string, error) {
	mod, err := m.lower(text)
	if err != nil {
		return "", err
	}
	out, _, err := glsl.Compile(mod, glsl.Options{
		LangVersion:        version,
		EntryPoint:         m.name,
		ForceHighPrecision: true,
		BindingMap:         bindingMap(mod),
	})
	if err != nil {
		return "", fmt.Errorf("kernel %q: naga cannot write GLSL: %w", m.name, err)
	}
	out = dropSharedInitGLSL(out) // shared arrays start undefined (kernel.Shared)
	layout := fmt.Sprintf("layout(local_size_x = %d, local_size_y = %d, local_size_z = %d) in;", s[0], s[1], s[2])
	if n := strings.Count(out, layout); n != 1 {
		return "", fmt.Errorf("kernel %q: naga's GLSL has %d work-group size layouts of the block constants, want 1", m.name, n)
	}
	out = strings.Replace(out, layout, fmt.Sprintf("layout(local_size_x = %s, local_size_y = %s, local_size_z = %s) in;",
		blockMacros[0], blockMacros[1], blockMacros[2]), 1)
	for k, name := range blockConstNames {
		// The block constants are private variables here (see withBlock),
		// which GLSL has as globals: constants of the launch's block.
		re := regexp.MustCompile(`(?m)^(\s*)(?:const\s+)?uint\s+` + name + `\s*=\s*` + fmt.Sprint(s[k]) + `u;`)
		out = re.ReplaceAllString(out, "${1}const uint "+name+" = uint("+blockMacros[k]+");")
	}
	var body strings.Builder
	for _, line := range strings.SplitAfter(out, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#version") || redundantExtensions[trimmed] || unusedSubgroupExtension(trimmed, out) {
			continue
		}
		body.WriteString(line)
	}
	text = strings.TrimLeft(body.String(), "\n")
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text, nil
}

// bindingMap maps every resource binding of group 0 to the same GL binding
// index, so the SSBOs and the uniform block keep the kernel ABI's slots.
func bindingMap(mod *ir.Module) map[glsl.BindingMapKey]uint8 {
	out := map[glsl.BindingMapKey]uint8{}
	for _, g := range mod.GlobalVariables {
		if g.Binding != nil && g.Binding.Binding < 256 {
			out[glsl.BindingMapKey{Group: g.Binding.Group, Binding: g.Binding.Binding}] = uint8(g.Binding.Binding)
		}
	}
	return out
}
