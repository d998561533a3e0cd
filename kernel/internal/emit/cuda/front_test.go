package cuda

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every realistic kernel of the front end's testdata (saxpy, reductions,
// histogram, sgemm tiles, scans, stencils, ...) translates from Go source
// to CUDA C++ that clang accepts as device code.
func TestFrontEndKernels(t *testing.T) {
	files, err := filepath.Glob("../../front/testdata/*.go")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			require.NoError(t, err)
			m, err := front.Load([]front.File{{Name: filepath.Base(file), Src: string(src)}})
			require.NoError(t, err)
			text, err := Emit(m)
			require.NoError(t, err)
			for _, k := range m.Kernels() {
				assert.Contains(t, text, `extern "C" __global__ void `+k.Name+"(")
			}
			clangCheck(t, text)
		})
	}
}
