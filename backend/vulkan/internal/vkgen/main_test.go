package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/stretchr/testify/require"
)

// headerPath is where libvulkan-dev (which CI installs) puts the header.
const headerPath = "/usr/include/vulkan/vulkan_core.h"

// TestGeneratedFilesAreCurrent fails when internal/vk's structs_gen.go or
// testdata/layout.c is not what vkgen writes from vulkan_core.h now: run
// go generate in backend/vulkan/internal/vk. Without the header it skips,
// or fails where ANYGPU_TEST_REQUIRE lists vulkan.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	src, err := os.ReadFile(headerPath)
	if err != nil {
		if backendtest.Required("vulkan") {
			t.Fatalf("%s lists vulkan, but vulkan_core.h cannot be read: %v", backendtest.EnvRequire, err)
		}
		t.Skipf("vulkan_core.h cannot be read (install libvulkan-dev): %v", err)
	}
	goFile, cFile, err := generate(string(src))
	require.NoError(t, err)
	for _, tc := range []struct {
		path string
		want []byte
	}{
		{"structs_gen.go", goFile},
		{filepath.Join("testdata", "layout.c"), cFile},
	} {
		got, err := os.ReadFile(filepath.Join("..", "vk", tc.path))
		require.NoError(t, err)
		require.Equal(t, string(tc.want), string(got), "internal/vk/%s is not current: run go generate in backend/vulkan/internal/vk", tc.path)
	}
}

// TestGenerateIsDeterministic checks that two runs write the same bytes.
func TestGenerateIsDeterministic(t *testing.T) {
	src, err := os.ReadFile(headerPath)
	if err != nil {
		t.Skipf("vulkan_core.h cannot be read: %v", err)
	}
	g1, c1, err := generate(string(src))
	require.NoError(t, err)
	g2, c2, err := generate(string(src))
	require.NoError(t, err)
	require.Equal(t, g1, g2)
	require.Equal(t, c1, c2)
}

// TestGenerateReportsMissingStruct checks the error for a header without
// the structs.
func TestGenerateReportsMissingStruct(t *testing.T) {
	_, _, err := generate("typedef enum VkResult {\n} VkResult;\n")
	require.ErrorContains(t, err, "struct VkApplicationInfo not found")
}
