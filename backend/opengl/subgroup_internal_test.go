//go:build linux

package opengl

import (
	"context"
	"testing"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/kernelcorpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The GL_KHR_shader_subgroup features each corpus kernel's subgroup GLSL
// section requires, read from its #extension lines; a kernel without a
// section has none.
func TestSubgroupNeeds(t *testing.T) {
	sg := kernelcorpus.Kernels.Subgroups
	require.NotNil(t, sg)
	for _, tc := range []struct {
		kernel string
		want   string
		found  bool
	}{
		{"SubgroupReduce", "basic,arithmetic,shuffle", true},
		{"SubgroupScan", "basic,shuffle", true},
		{"SubgroupLanes", "basic,ballot,shuffle", true},
		{"Saxpy", "", false},
	} {
		t.Run(tc.kernel, func(t *testing.T) {
			for _, text := range []string{sg.GLSL, sg.GLSLES} {
				need, ok := subgroupNeeds(text, tc.kernel)
				assert.Equal(t, tc.found, ok)
				assert.Equal(t, tc.want, subgroupOpsString(need))
			}
		})
	}
	_, ok := subgroupNeeds("#ifdef ANYGPU_KERNEL_K\n#extension GL_KHR_shader_subgroup_future : require\n#endif // ANYGPU_KERNEL_K\n", "K")
	assert.False(t, ok, "an unknown feature keeps the portable form")
}

// srcFor gives a subgroup variant's launches the portable text exactly when
// the block's thread count is not a multiple of the subgroup size.
func TestSrcFor(t *testing.T) {
	sg, portable := dialect{text: "subgroups"}, dialect{text: "portable"}
	k := &kernel{src: sg, portable: &portable, subgroupSize: 8}
	for _, tc := range []struct {
		block backend.Dim3
		want  string
	}{
		{backend.Dim3{X: 64, Y: 1, Z: 1}, "subgroups"},
		{backend.Dim3{X: 4, Y: 2, Z: 1}, "subgroups"},
		{backend.Dim3{X: 12, Y: 1, Z: 1}, "portable"},
		{backend.Dim3{X: 1, Y: 1, Z: 1}, "portable"},
	} {
		assert.Equal(t, tc.want, k.srcFor(tc.block).text, "%v", tc.block)
	}
	plain := &kernel{src: portable}
	assert.Equal(t, "portable", plain.srcFor(backend.Dim3{X: 3, Y: 1, Z: 1}).text)
}

// A context that claims every subgroup feature but whose compiler refuses
// the subgroup GLSL (llvmpipe here, without GL_KHR_shader_subgroup) builds
// the kernels from the portable text instead of failing.
func TestRetryPortable(t *testing.T) {
	bd, err := Driver{}.Open(context.Background(), 0)
	if err != nil {
		t.Skip("no OpenGL:", err)
	}
	d := bd.(*device)
	defer func() { _ = d.Close() }()
	if d.lim.subgroupOps != 0 {
		t.Skip("the context has GL_KHR_shader_subgroup: the subgroup GLSL compiles")
	}
	d.lim.subgroupOps, d.lim.subgroupSize = 0xff, 8
	defer func() { d.lim.subgroupOps, d.lim.subgroupSize = 0, 0 }()
	mod, err := d.Compile(context.Background(), kernelcorpus.Kernels, backend.CompileOptions{})
	require.NoError(t, err)
	defer func() { _ = mod.Close() }()
	for _, name := range []string{"SubgroupReduce", "SubgroupScan", "SubgroupLanes"} {
		k := mod.(*module).kernels[name]
		require.NotNil(t, k, name)
		assert.Nil(t, k.portable, name)
		assert.NotContains(t, k.src.text, "GL_KHR_shader_subgroup", name)
	}
}
