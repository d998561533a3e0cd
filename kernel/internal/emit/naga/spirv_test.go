package naga_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/vulkan"
	"github.com/anygpu/gpu/internal/testreq"
	"github.com/anygpu/gpu/kernel/internal/emit/naga"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const spirvVal = "/usr/bin/spirv-val"

// TestSPIRVValidates checks every kernel's module with spirv-val for Vulkan
// 1.1, and that the bytes are the same from one call to the next.
func TestSPIRVValidates(t *testing.T) {
	blobs, err := naga.SPIRV(modules())
	require.NoError(t, err)
	require.Len(t, blobs, len(testKernels))
	again, err := naga.SPIRV(modules())
	require.NoError(t, err)
	assert.Equal(t, blobs, again, "the SPIR-V is not deterministic")
	if _, err := os.Stat(spirvVal); err != nil {
		t.Skipf("no %s: %v", spirvVal, err)
	}
	for _, k := range testKernels {
		t.Run(k.name, func(t *testing.T) { spirvValidate(t, k.name, blobs[k.name]) })
	}
}

// spirvValidate runs spirv-val for Vulkan 1.1 on a module (a no-op without
// spirv-val).
func spirvValidate(t *testing.T, name string, blob []byte) {
	t.Helper()
	if _, err := os.Stat(spirvVal); err != nil {
		return
	}
	path := filepath.Join(t.TempDir(), name+".spv")
	require.NoError(t, os.WriteFile(path, blob, 0o644))
	out, err := exec.Command(spirvVal, "--target-env", "vulkan1.1", path).CombinedOutput()
	require.NoError(t, err, "spirv-val %s: %s", name, out)
}

// TestSPIRVRunsOnVulkan runs every kernel through backend/vulkan (lavapipe
// here) with two block sizes: the block reaches the kernel through the
// specialization constants.
func TestSPIRVRunsOnVulkan(t *testing.T) {
	testreq.SkipUnlessAvailable(t, vulkan.Driver{})
	blobs, err := naga.SPIRV(modules())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dev, err := gpu.OpenDriver(ctx, vulkan.Driver{}, 0)
	require.NoError(t, err)
	defer dev.Close()
	runAll(t, dev, gpu.Source{Name: "naga_spirv", SPIRVKernels: blobs})
}

// TestSPIRVKeepsTheKernelsEntryPoint gives a module a second entry point:
// only the kernel's is compiled, as "main".
func TestSPIRVKeepsTheKernelsEntryPoint(t *testing.T) {
	const body = `
@group(0) @binding(0) var<storage, read_write> x: array<u32>;
` + entry + `fn other(` + ids + `) {
	x[lid.x] = 1u;
}
` + entry + `fn k(` + ids + `) {
	x[wg.x * anygpu_block_x + lid.x] = 2u;
}
`
	blobs, err := naga.SPIRV(map[string]string{"k": header(64, 1) + body})
	require.NoError(t, err)
	require.Len(t, blobs, 1)
	blob := blobs["k"]
	var names []string
	for i := 5 * 4; i+4 <= len(blob); {
		w := binary.LittleEndian.Uint32(blob[i:])
		n := int(w >> 16)
		require.Positive(t, n)
		if w&0xffff == 15 { // OpEntryPoint: model, function, name
			name := blob[i+12 : i+4*n]
			names = append(names, string(name[:bytes.IndexByte(name, 0)]))
		}
		i += 4 * n
	}
	assert.Equal(t, []string{"main"}, names)
	spirvValidate(t, "k", blob)
}
