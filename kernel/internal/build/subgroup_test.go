package build

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/anygpu/gpu/kernel/internal/opt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// subgroupSrc has one kernel with every subgroup operation and one without.
const subgroupSrc = `package k

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func WithSubgroups(out []float32, iout []int32, x []float32, n uint32) {
	i := kernel.GlobalX()
	v := float32(0)
	if i < n {
		v = x[i]
	}
	lane := kernel.SubgroupInvocationID()
	s := kernel.SubgroupAdd(v) + kernel.SubgroupMin(v) + kernel.SubgroupMax(v)
	s += kernel.SubgroupShuffle(v, lane^1&(kernel.SubgroupSize()-1)) + kernel.SubgroupShuffleXor(v, 0)
	s += kernel.SubgroupBroadcastFirst(v)
	iv := int32(i)
	is := kernel.SubgroupAdd(iv) + kernel.SubgroupMin(iv) + kernel.SubgroupMax(iv)
	if i < n {
		out[i] = s
		iout[i] = is
	}
}

//gpu:kernel
func Plain(out []float32, n uint32) {
	if i := kernel.GlobalX(); i < n {
		out[i] = 1
	}
}
`

// plainSrc has no subgroup operation.
const plainSrc = `package k

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func Plain(out []float32, n uint32) {
	if i := kernel.GlobalX(); i < n {
		out[i] = 1
	}
}
`

// translate runs the front end, opt.Module and Source on src.
func translate(t *testing.T, src string) (string, []byte, string, func() (string, map[string][]byte, string, string)) {
	t.Helper()
	m, err := front.Load([]front.File{{Name: "k.go", Src: src}})
	require.NoError(t, err)
	opt.Module(m)
	s, _, err := Source("k", m)
	require.NoError(t, err)
	if s.Subgroups == nil {
		return s.WGSL, s.SPIRVKernels["WithSubgroups"], s.GLSL, nil
	}
	sg := s.Subgroups
	return s.WGSL, s.SPIRVKernels["WithSubgroups"], s.GLSL, func() (string, map[string][]byte, string, string) {
		return sg.WGSL, sg.SPIRVKernels, sg.GLSL, sg.GLSLES
	}
}

// The subgroup variant holds only the kernel with subgroup operations, in
// WGSL that enables subgroups, SPIR-V with GroupNonUniform capabilities
// that spirv-val accepts, and GLSL that requires just the
// GL_KHR_shader_subgroup extensions it calls (and compiles with glslc); the
// portable dialects have no subgroup operation left; a source without
// subgroup operations has no variant; the output is deterministic.
func TestSubgroupVariant(t *testing.T) {
	wgslText, portableSPIRV, glslText, variant := translate(t, subgroupSrc)
	require.NotNil(t, variant)
	assert.NotContains(t, wgslText, "subgroup")
	assert.NotContains(t, glslText, "subgroup")
	assert.NotContains(t, string(portableSPIRV), "SubgroupSize")
	sgWGSL, sgSPIRV, sgGLSL, sgES := variant()
	assert.Contains(t, sgWGSL, "\nenable subgroups;\n")
	assert.Contains(t, sgWGSL, "subgroupShuffleXor(")
	assert.NotContains(t, sgWGSL, "fn Plain(")
	require.Len(t, sgSPIRV, 1)
	require.Contains(t, sgSPIRV, "WithSubgroups")
	for _, ext := range []string{"basic", "arithmetic", "ballot", "shuffle"} {
		assert.Contains(t, sgGLSL, "#extension GL_KHR_shader_subgroup_"+ext+" : require")
	}
	for _, ext := range []string{"vote", "shuffle_relative", "quad", "clustered"} {
		assert.NotContains(t, sgGLSL, "GL_KHR_shader_subgroup_"+ext)
	}
	assert.NotContains(t, sgGLSL, "ANYGPU_KERNEL_Plain")

	_, _, _, again := translate(t, subgroupSrc)
	w2, s2, g2, e2 := again()
	assert.Equal(t, []any{sgWGSL, sgSPIRV, sgGLSL, sgES}, []any{w2, s2, g2, e2}, "not deterministic")

	_, _, _, none := translate(t, plainSrc)
	assert.Nil(t, none, "no kernel uses subgroup operations")

	dir := t.TempDir()
	if val, err := exec.LookPath("spirv-val"); err == nil {
		path := filepath.Join(dir, "k.spv")
		require.NoError(t, os.WriteFile(path, sgSPIRV["WithSubgroups"], 0o644))
		out, err := exec.Command(val, "--target-env", "vulkan1.1", path).CombinedOutput()
		require.NoError(t, err, "spirv-val: %s", out)
	}
	if glslc, err := exec.LookPath("glslc"); err == nil {
		// glslc's OpenGL target has no subgroup operations (its SPIR-V is
		// 1.0): the Vulkan 1.1 target checks the GLSL's types and calls.
		for name, text := range map[string]string{"glsl": sgGLSL, "glsl_es": sgES} {
			path := filepath.Join(dir, name+".comp")
			require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
			args := []string{"-fshader-stage=compute", "--target-env=vulkan1.1", "-fauto-bind-uniforms", "-DANYGPU_KERNEL_WithSubgroups", "-o", os.DevNull, path}
			out, err := exec.Command(glslc, args...).CombinedOutput()
			require.NoError(t, err, "glslc %s: %s", name, out)
		}
	}
}
