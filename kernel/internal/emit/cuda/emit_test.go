package cuda

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// numbered is src with line numbers, for failure messages.
func numbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(src, "\n") {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, l)
	}
	return b.String()
}

func TestSaxpy(t *testing.T) {
	src, err := Emit(&ir.Module{Funcs: []*ir.Func{saxpy()}})
	require.NoError(t, err)
	assert.Contains(t, src, `extern "C" __global__ void Saxpy(float* y, float* x, unsigned n, float a) {`)
	assert.Contains(t, src, "unsigned i = blockIdx.x * blockDim.x + threadIdx.x;")
	assert.Contains(t, src, "if (i < n) {")
	assert.Contains(t, src, "y[i] = (a * x[i]) + y[i];")
	assert.NotContains(t, src, "anygpu_", "saxpy needs no helper")
	clangCheck(t, src)
}
