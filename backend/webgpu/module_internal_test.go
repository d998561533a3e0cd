//go:build cgo

package webgpu

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/anygpu/gpu/backend"
)

// TestWorkGroupSizes reads the sizes sources fix: WGSL attributes in any
// order, with constants and comments; GLSL's one local size; SPIR-V's
// LocalSize. What the backend cannot tell is left out (zero).
func TestWorkGroupSizes(t *testing.T) {
	wgsl := `
const WG: u32 = 128u;
// @compute @workgroup_size(7) fn commented() {}
@compute @workgroup_size(64) fn a() {}
@workgroup_size(8, 4) @compute
fn b() {}
@compute @workgroup_size(WG, 2, 1,) fn c() {}
override O: u32 = 32;
@compute @workgroup_size(O) fn d() {}
fn helper() {}
`
	assert.Equal(t, map[string]backend.Dim3{"a": {X: 64, Y: 1, Z: 1}, "b": {X: 8, Y: 4, Z: 1}, "c": {X: 128, Y: 2, Z: 1}}, wgslSizes(wgsl))

	for _, tc := range []struct {
		src  string
		want backend.Dim3
	}{
		{"#version 450\nlayout(local_size_x = 64) in;\nvoid main() {}", backend.Dim3{X: 64, Y: 1, Z: 1}},
		{"layout(local_size_x=16, local_size_y=16) in;", backend.Dim3{X: 16, Y: 16, Z: 1}},
		{"layout(local_size_x_id = 0) in;", backend.Dim3{}},
		{"#ifdef A\nlayout(local_size_x = 64) in;\n#else\nlayout(local_size_x = 32) in;\n#endif", backend.Dim3{}},
		{"/* layout(local_size_x = 8) in; */ layout(local_size_x = 64) in;", backend.Dim3{X: 64, Y: 1, Z: 1}},
		{"void main() {}", backend.Dim3{}},
	} {
		assert.Equal(t, tc.want, glslSize(tc.src), tc.src)
	}

	// The words of a module's header, its entry point "main" (%4) and
	// LocalSize 64 2 1; then with a WorkgroupSize built-in, which overrides it.
	words := []uint32{0x07230203, 0x00010300, 0, 5, 0,
		5<<16 | 15, 5, 4, 0x6e69616d, 0, // OpEntryPoint GLCompute %4 "main"
		6<<16 | 16, 4, 17, 64, 2, 1, // OpExecutionMode %4 LocalSize 64 2 1
	}
	spv := func(words []uint32) []byte {
		var b []byte
		for _, w := range words {
			b = binary.LittleEndian.AppendUint32(b, w)
		}
		return b
	}
	assert.Equal(t, map[string]backend.Dim3{"main": {X: 64, Y: 2, Z: 1}}, spirvSizes(spv(words)))
	assert.Nil(t, spirvSizes(spv(append(words, 4<<16|71, 9, 11, 25))), "OpDecorate %9 BuiltIn WorkgroupSize")
	assert.Nil(t, spirvSizes([]byte{1, 2, 3}))
	assert.Nil(t, spirvSizes(make([]byte, 64)))
}
