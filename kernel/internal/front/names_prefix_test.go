package front

import (
	"testing"

	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Names that start with a prefix the emitters reserve (anygpu, gl_) get a
// new base before their numeric suffix: the suffix alone would keep them
// reserved, and the renaming loop would never end.
func TestReservedPrefixNamesAreRenamed(t *testing.T) {
	m, err := load("func anygpuHelper(x int32) int32 { return x + 1 }\n" +
		"//gpu:kernel\nfunc K(y []int32) {\n\tgl_v := anygpuHelper(y[0])\n\tanygpuLocal := gl_v * 2\n\ty[1] = anygpuLocal\n}")
	require.NoError(t, err)
	var names []string
	for _, f := range m.Funcs {
		names = append(names, f.Name)
		ir.WalkStmts(f.Body, func(s ir.Stmt) {
			if d, ok := s.(*ir.Decl); ok {
				names = append(names, d.Var.Name)
			}
		}, nil)
	}
	require.Len(t, names, 4)
	for _, name := range names {
		assert.False(t, reserved(name), "%s is reserved", name)
	}
	assert.Equal(t, "fanygpuHelper_1", names[0])
}
