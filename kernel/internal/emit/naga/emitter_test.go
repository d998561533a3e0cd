package naga_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/anygpu/gpu/kernel/internal/emit/naga"
	"github.com/anygpu/gpu/kernel/internal/emit/wgsl"
	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/stretchr/testify/require"
)

// TestEmitterModulesTranslate takes the WGSL emitter's modules of the front
// end's testdata kernels through every dialect (SPIR-V through spirv-val
// too). The emitter's modules are still WebGPU's (the launch geometry in the
// uniform, the ids derived from it), so they are translated, not run: the
// run tests above use modules of the native convention.
func TestEmitterModulesTranslate(t *testing.T) {
	paths, err := filepath.Glob("../../front/testdata/*.go")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			m, err := front.Load([]front.File{{Name: filepath.Base(path), Src: string(src)}})
			require.NoError(t, err)
			out, err := wgsl.Emit(m)
			require.NoError(t, err)
			require.NotEmpty(t, out.Modules)
			blobs, err := naga.SPIRV(out.Modules)
			require.NoError(t, err)
			for name, blob := range blobs {
				spirvValidate(t, name, blob)
			}
			_, err = naga.GLSL(out.Modules)
			require.NoError(t, err)
			_, err = naga.GLSLES(out.Modules)
			require.NoError(t, err)
			_, err = naga.MSL(out.Modules)
			require.NoError(t, err)
		})
	}
}
