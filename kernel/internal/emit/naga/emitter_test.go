package naga_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/opengl"

	"github.com/anygpu/gpu/kernel/internal/emit/naga"
	"github.com/anygpu/gpu/kernel/internal/emit/wgsl"
	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/stretchr/testify/require"
)

// TestEmitterModulesTranslate takes the WGSL emitter's modules of the front
// end's testdata kernels through every dialect (the SPIR-V through
// spirv-val, the GLSL through the OpenGL backend's compiler where there is
// one). The emitter's modules are still WebGPU's (the launch geometry in the
// uniform, the ids derived from it), so they are translated, not run: the
// run tests above use modules of the native convention.
func TestEmitterModulesTranslate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var dev *gpu.Device // OpenGL, to compile the GLSL, where there is one
	if _, err := (opengl.Driver{}).Probe(ctx); err == nil {
		if d, err := gpu.OpenDriver(ctx, opengl.Driver{}, 0); err == nil {
			dev = d
			defer dev.Close()
		}
	}
	if dev == nil {
		t.Log("no OpenGL device: the GLSL is translated, not compiled")
	}
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
			text, err := naga.GLSL(out.Modules)
			require.NoError(t, err)
			if dev != nil {
				for name := range out.Modules {
					// Source.Name selects the section when there are no Params.
					mod, err := dev.Compile(ctx, gpu.Source{Name: name, GLSL: text})
					require.NoError(t, err, "OpenGL compiles %s", name)
					require.NoError(t, mod.Close())
				}
			}
			_, err = naga.GLSLES(out.Modules)
			require.NoError(t, err)
			_, err = naga.MSL(out.Modules)
			require.NoError(t, err)
		})
	}
}
