package gosrc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anygpu/gpu/kernel/internal/front"
	"github.com/stretchr/testify/require"
)

// TestKernelsFrontTestdata translates the front end's realistic kernels
// (kernel/internal/front/testdata) and type-checks the emitted Go with go vet
// in a module of its own.
func TestKernelsFrontTestdata(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module in a subprocess")
	}
	paths, err := filepath.Glob("../../front/testdata/*.go")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	var files []front.File
	for _, p := range paths {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		files = append(files, front.File{Name: filepath.Base(p), Src: string(src)})
	}
	m, err := front.Load(files)
	require.NoError(t, err)
	out, err := Emit(m, "gen")
	require.NoError(t, err)
	again, err := Emit(m, "gen")
	require.NoError(t, err)
	require.Equal(t, out.Code, again.Code, "deterministic")
	require.Len(t, out.Funcs, len(m.Kernels()))

	dir := writeTestModule(t)
	var src strings.Builder
	src.WriteString("package kt\n\nimport (\n")
	for _, p := range out.Imports {
		fmt.Fprintf(&src, "\t%q\n", p)
	}
	src.WriteString(")\n\n" + out.Code)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "front.go"), []byte(src.String()), 0o644))
	vet, err := goCmd(t, dir, "vet", ".")
	require.NoError(t, err, "go vet of the emitted code:\n%s\n%s", vet, src.String())
}
