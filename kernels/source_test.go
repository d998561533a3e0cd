package kernels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSourceRenamesGoNames: the ops written under other Go names (copyOp,
// dotOp, transposeOp) reach every dialect under their op names only.
func TestSourceRenamesGoNames(t *testing.T) {
	src := Source()
	texts := map[string]string{"CUDA": src.CUDA, "WGSL": src.WGSL, "GLSL": src.GLSL, "GLSLES": src.GLSLES, "MSL": src.MSL}
	for dialect, text := range texts {
		require.NotEmpty(t, text, dialect)
		for goName, op := range goNames {
			assert.NotContains(t, text, goName, "%s still names %s", dialect, goName)
			assert.Contains(t, text, op, dialect)
		}
	}
	for goName, op := range goNames {
		assert.NotContains(t, src.SPIRVKernels, goName)
		assert.NotContains(t, src.Go, goName)
		assert.NotEmpty(t, src.SPIRVKernels[op], op)
		assert.NotNil(t, src.Go[op], op)
	}
	assert.Len(t, src.SPIRVKernels, len(Ops()))
	assert.Len(t, src.Go, len(Ops()))
}
