package backend_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests hold the repository to the shape the backend contract
// describes: one file map for every backend, every foreign call through
// internal/dl and the backends' own internal bindings, and a module that
// stands on its own.

// moduleRoot is the module's root directory, seen from this package.
const moduleRoot = ".."

// backendFiles is the file map every backend directory holds (tests
// aside): one file per concern, the same name in each backend.
var backendFiles = []string{
	"doc.go",    // what the backend is, its native library, its extras
	"driver.go", // registration, Probe and Open
	"device.go", // the opened device
	"memory.go", // buffers and host buffers
	"stream.go", // the queue: transfers, fills, launches
	"event.go",  // events and their timing
	"module.go", // compiling and looking up kernels
	"errors.go", // native codes to categories and hints
	"info.go",   // DeviceInfo and what probing learns
}

// backendDirs are the GPU and CPU backends (not the simulated one, a test
// double, nor the helper packages all and backendtest).
var backendDirs = []string{"cpu", "cuda", "metal", "opengl", "vulkan", "webgpu"}

func TestBackendFileMap(t *testing.T) {
	for _, dir := range backendDirs {
		t.Run(dir, func(t *testing.T) {
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			var have []string
			for _, e := range entries {
				have = append(have, e.Name())
			}
			for _, f := range backendFiles {
				assert.True(t, slices.Contains(have, f), "backend/%s lacks %s", dir, f)
			}
			for _, f := range have {
				assert.False(t, strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") && platformSuffix.MatchString(f) &&
					slices.Contains(backendFiles, platformSuffix.ReplaceAllString(f, ".go")),
					"backend/%s/%s: a file of the map keeps its common name, with a //go:build line", dir, f)
			}
		})
	}
}

// platformSuffix matches a Go file name's GOOS suffix.
var platformSuffix = regexp.MustCompile(`_(linux|darwin|windows|freebsd|netbsd|other)\.go$`)

// goFiles lists the module's Go files (not under testdata or .git), as
// slash-separated paths relative to the module root.
func goFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(moduleRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != moduleRoot {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			rel, err := filepath.Rel(moduleRoot, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, out)
	return out
}

func TestNativeLibrariesOpenOnlyThroughDL(t *testing.T) {
	opener := regexp.MustCompile(`purego\.(Dlopen|Dlsym|RegisterLibFunc)\b`)
	for _, f := range goFiles(t) {
		if strings.HasPrefix(f, "internal/dl/") || f == "backend/layout_test.go" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(moduleRoot, f))
		require.NoError(t, err)
		assert.False(t, opener.Match(data), "%s opens a library or resolves a symbol itself: go through internal/dl", f)
	}
}

func TestBackendPackagesHoldNoForeignCalls(t *testing.T) {
	foreign := regexp.MustCompile(`"github.com/ebitengine/purego"|import "C"|\bpurego\.SyscallN\b`)
	for _, f := range goFiles(t) {
		parts := strings.Split(f, "/")
		// backend/<name>/<file>.go: the backend package itself.
		if len(parts) != 3 || parts[0] != "backend" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(moduleRoot, f))
		require.NoError(t, err)
		assert.False(t, foreign.Match(data), "%s makes foreign calls: they belong in backend/%s/internal/<binding>", f, parts[1])
	}
}

func TestNoReferencesOutsideTheModule(t *testing.T) {
	outside := regexp.MustCompile(`DESIGN §|\.\./shared/|shared/facts`)
	for _, f := range goFiles(t) {
		if f == "backend/layout_test.go" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(moduleRoot, f))
		require.NoError(t, err)
		assert.False(t, outside.Match(data), "%s points at a file outside the repository: summarise what it says instead", f)
	}
}
