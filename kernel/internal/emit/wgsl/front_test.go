package wgsl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/kernel/internal/front"
)

// TestEmitFrontTestdata translates the front end's realistic kernels and
// checks every module with naga.
func TestEmitFrontTestdata(t *testing.T) {
	paths, err := filepath.Glob("../../front/testdata/*.go")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			m, err := front.Load([]front.File{{Name: filepath.Base(path), Src: string(src)}})
			require.NoError(t, err)
			out, err := Emit(m)
			require.NoError(t, err)
			require.NotEmpty(t, out.Modules)
			nagaCheck(t, "All", out.All, true)
			for name, text := range out.Modules {
				nagaCheck(t, name, text, false)
			}
		})
	}
}
