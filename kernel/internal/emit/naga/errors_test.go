package naga_test

import (
	"strings"
	"testing"

	"github.com/anygpu/gpu/kernel/internal/emit/naga"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dialects are the package's four translations, as functions of the modules
// that report only the error.
var dialects = map[string]func(map[string]string) error{
	"spirv":  func(m map[string]string) error { _, err := naga.SPIRV(m); return err },
	"glsl":   func(m map[string]string) error { _, err := naga.GLSL(m); return err },
	"glsles": func(m map[string]string) error { _, err := naga.GLSLES(m); return err },
	"msl":    func(m map[string]string) error { _, err := naga.MSL(m); return err },
}

// TestRefusesBadModules checks that every dialect refuses a module outside
// the package's convention with an error naming the kernel and the problem.
func TestRefusesBadModules(t *testing.T) {
	const body = `
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
` + entry + `fn k(` + ids + `) {
	x[wg.x * anygpu_block_x + lid.x] = 1.0;
}
`
	tests := []struct {
		name    string
		kernel  string
		module  string
		wantErr string
	}{
		{"kernel name", "9k", header(64, 1) + body, "the name is not an identifier"},
		{"no block_y", "k", strings.Replace(header(64, 1), "const anygpu_block_y: u32 = 1u;\n", "", 1) + body, "does not declare \"const anygpu_block_y"},
		{"block_x twice", "k", header(64, 1) + "const anygpu_block_x: u32 = 32u;\n" + body, "declares anygpu_block_x twice"},
		{"block of 0", "k", header(0, 1) + body, "not a block size"},
		{"fixed work-group size", "k", header(64, 1) + strings.Replace(body, "@workgroup_size(anygpu_block_x, anygpu_block_y, anygpu_block_z)", "@workgroup_size(64, 1, 1)", 1), "@workgroup_size(anygpu_block_x"},
		{"entry named otherwise", "other", header(64, 1) + body, "no @compute entry point of that name (it has: k)"},
		{"override", "k", header(64, 1) + "override half: u32 = 32u;\n" + body, "override half: pipeline-overridable constants are not supported"},
		{"block size in a const", "k", header(64, 1) + "const half = anygpu_block_x / 2u;\n" + body, "does not lower"},
		{"syntax", "k", header(64, 1) + body + "fn (", "does not parse"},
		{"block size as an array size", "k", header(64, 1) + "var<workgroup> tile: array<f32, anygpu_block_x>;\n" + body, "tile is an array of no constant size"},
		{"block size as a local array size", "k", header(64, 1) + strings.Replace(body, "{\n", "{\n\tvar a: array<u32, anygpu_block_y>;\n", 1), "local variable a is an array of no constant size"},
	}
	for _, tc := range tests {
		for name, emit := range dialects {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				err := emit(map[string]string{tc.kernel: tc.module})
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Contains(t, err.Error(), `kernel "`+tc.kernel+`"`)
			})
		}
	}
}

func TestRefusesNoModules(t *testing.T) {
	for name, emit := range dialects {
		t.Run(name, func(t *testing.T) {
			err := emit(nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "no kernel modules")
		})
	}
}
