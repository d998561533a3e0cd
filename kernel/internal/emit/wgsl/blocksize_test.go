package wgsl

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmitBlockSizeSource checks where each form of a module takes the
// block size from: the WebGPU modules from the block constants that the
// backend bakes per pipeline (never the launch geometry's block, a uniform
// the driver cannot fold), through a variable that WGSL's constant
// evaluation does not see through; the native modules (for naga, which
// makes the constants specialization constants and defines) from the
// constants directly, without the launch geometry.
func TestEmitBlockSizeSource(t *testing.T) {
	out, err := Emit(testModule())
	require.NoError(t, err)
	const fromConsts = "vec3<u32>(anygpu_block_x, anygpu_block_y, anygpu_block_z)"
	webgpu := map[string]string{"All": out.All}
	for name, src := range out.Modules {
		webgpu[name] = src
	}
	for name, src := range webgpu {
		t.Run("webgpu/"+name, func(t *testing.T) {
			assert.NotContains(t, src, "launch.block")
			assert.Equal(t, strings.Count(src, "@compute"), strings.Count(src, "var ag_bs_v = "+fromConsts+";"), "every entry point")
			assert.Equal(t, strings.Count(src, "@compute"), strings.Count(src, "let ag_bs = ag_bs_v;"), "every entry point")
		})
	}
	for name, src := range out.Native {
		t.Run("native/"+name, func(t *testing.T) {
			assert.NotContains(t, src, "launch")
			assert.NotContains(t, src, "ag_group")
			assert.Contains(t, src, "let ag_bs = "+fromConsts+";")
		})
	}
}
