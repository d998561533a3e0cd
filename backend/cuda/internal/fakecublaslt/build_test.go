package fakecublaslt

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBuild compiles the fake library with warnings as errors.
func TestBuild(t *testing.T) {
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	path, err := Build(t.TempDir())
	require.NoError(t, err)
	require.FileExists(t, path)
}
