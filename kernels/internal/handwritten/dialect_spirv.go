package handwritten

import (
	"embed"
	"path"
	"strings"
)

// The built-in ops as SPIR-V for Vulkan, one module per op with entry point
// "main" (Source.SPIRVKernels). The GLSL sources are kernels/vulkan/*.comp
// (with the *.glsl they include); `go generate ./kernels`
// compiles each with glslc for Vulkan 1.1 (SPIR-V 1.3), validates it with
// spirv-val, and records the sources' SHA-256 in vulkan/sources.sha256, which
// a test of the Vulkan backend compares with the sources to catch a stale
// .spv. The .spv files are committed: building needs no shader compiler.
//
// Conventions of these kernels: the work-group size is specialization
// constants 0, 1, 2 (local_size_x_id ...), so any block size works; buffers
// bind at set 0, bindings 0..n-1 in argument order; the scalars are one
// push-constant block laid out like backend.PackScalars.
//go:generate glslc --target-env=vulkan1.1 -O -o vulkan/fill.spv vulkan/fill.comp
//go:generate glslc --target-env=vulkan1.1 -O -o vulkan/copy.spv vulkan/copy.comp
//go:generate glslc --target-env=vulkan1.1 -O -o vulkan/scale.spv vulkan/scale.comp
//go:generate glslc --target-env=vulkan1.1 -O -o vulkan/axpy.spv vulkan/axpy.comp
//go:generate glslc --target-env=vulkan1.1 -O -o vulkan/add.spv vulkan/add.comp
//go:generate glslc --target-env=vulkan1.1 -O -o vulkan/mul.spv vulkan/mul.comp
//go:generate glslc --target-env=vulkan1.1 -O -o vulkan/reduce_sum.spv vulkan/reduce_sum.comp
//go:generate glslc --target-env=vulkan1.1 -O -o vulkan/dot.spv vulkan/dot.comp
//go:generate glslc --target-env=vulkan1.1 -O -o vulkan/transpose.spv vulkan/transpose.comp
//go:generate glslc --target-env=vulkan1.1 -O -o vulkan/sgemm.spv vulkan/sgemm.comp
//go:generate spirv-val --target-env vulkan1.1 vulkan/fill.spv
//go:generate spirv-val --target-env vulkan1.1 vulkan/copy.spv
//go:generate spirv-val --target-env vulkan1.1 vulkan/scale.spv
//go:generate spirv-val --target-env vulkan1.1 vulkan/axpy.spv
//go:generate spirv-val --target-env vulkan1.1 vulkan/add.spv
//go:generate spirv-val --target-env vulkan1.1 vulkan/mul.spv
//go:generate spirv-val --target-env vulkan1.1 vulkan/reduce_sum.spv
//go:generate spirv-val --target-env vulkan1.1 vulkan/dot.spv
//go:generate spirv-val --target-env vulkan1.1 vulkan/transpose.spv
//go:generate spirv-val --target-env vulkan1.1 vulkan/sgemm.spv
//go:generate sh -c "cd vulkan && sha256sum *.glsl *.comp > sources.sha256"

//go:embed vulkan/*.spv
var spirvFS embed.FS

var (
	spirvModule  []byte
	spirvKernels = loadSPIRVKernels()
)

// loadSPIRVKernels maps each op to its embedded module.
func loadSPIRVKernels() map[string][]byte {
	entries, err := spirvFS.ReadDir("vulkan")
	if err != nil {
		panic("kernels: embedded SPIR-V: " + err.Error())
	}
	out := make(map[string][]byte, len(entries))
	for _, e := range entries {
		name := e.Name()
		data, err := spirvFS.ReadFile(path.Join("vulkan", name))
		if err != nil {
			panic("kernels: embedded SPIR-V: " + err.Error())
		}
		out[strings.TrimSuffix(name, ".spv")] = data
	}
	return out
}
