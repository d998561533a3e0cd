package naga

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharedModule writes a shared array, waits once and reads it back.
const sharedModule = `const anygpu_block_x: u32 = 64u;
const anygpu_block_y: u32 = 1u;
const anygpu_block_z: u32 = 1u;

var<workgroup> sh: array<f32, 64>;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(anygpu_block_x, anygpu_block_y, anygpu_block_z)
fn k(@builtin(local_invocation_id) lid: vec3<u32>) {
	sh[lid.x] = f32(lid.x);
	workgroupBarrier();
	out[lid.x] = sh[63u - lid.x];
}
`

// TestSharedInitDroppedSPIRV checks that the module keeps only the kernel's
// own barrier and still validates.
func TestSharedInitDroppedSPIRV(t *testing.T) {
	blobs, err := SPIRV(map[string]string{"k": sharedModule})
	require.NoError(t, err)
	_, insts, err := splitSPIRV(blobs["k"])
	require.NoError(t, err)
	ops := map[uint32]int{}
	for _, in := range insts {
		ops[in.op()]++
	}
	assert.Equal(t, 1, ops[opControlBarrier], "the kernel's workgroupBarrier only")
	assert.Zero(t, ops[opAll], "the test of local id (0,0,0)")
	if _, err := os.Stat("/usr/bin/spirv-val"); err == nil {
		path := filepath.Join(t.TempDir(), "k.spv")
		require.NoError(t, os.WriteFile(path, blobs["k"], 0o644))
		out, err := exec.Command("/usr/bin/spirv-val", "--target-env", "vulkan1.1", path).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
}

// TestSharedInitDroppedGLSL checks both GLSL dialects.
func TestSharedInitDroppedGLSL(t *testing.T) {
	for _, dialect := range []func(map[string]string) (string, error){GLSL, GLSLES} {
		text, err := dialect(map[string]string{"k": sharedModule})
		require.NoError(t, err)
		assert.NotContains(t, text, glslSharedInit)
		assert.Equal(t, 1, strings.Count(text, " barrier();"), "the kernel's barrier only:\n%s", text)
	}
}

func TestDropSharedInitGLSL(t *testing.T) {
	const init = "    if (gl_LocalInvocationID == uvec3(0u)) {\n        sh = float[2](0.0, 0.0);\n        for (uint i = 0u; i < 300u; i++) {\n            big[i] = 0.0;\n        }\n    }\n    memoryBarrierShared();\n    barrier();\n"
	const rest = "    uvec3 lid = gl_LocalInvocationID;\n    barrier();\n}\n"
	tests := []struct {
		name, in, want string
	}{
		{"naga's initialisation goes", "void main() {\n" + init + rest, "void main() {\n" + rest},
		{"nothing to drop", "void main() {\n" + rest, "void main() {\n" + rest},
		{"not the first statement of main", "void main() {\n    uint x = 0u;\n" + init + rest, "void main() {\n    uint x = 0u;\n" + init + rest},
		{"no barrier after it", "void main() {\n" + strings.Replace(init, "    barrier();\n", "", 1) + "    uint x = 0u;\n}\n",
			"void main() {\n" + strings.Replace(init, "    barrier();\n", "", 1) + "    uint x = 0u;\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, dropSharedInitGLSL(tt.in))
		})
	}
}
