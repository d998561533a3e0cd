package front

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNoPanic loads every prefix of the testdata kernels and each of them
// with one line dropped: Load must return a module or errors, never panic.
func TestNoPanic(t *testing.T) {
	names, err := filepath.Glob("testdata/*.go")
	require.NoError(t, err)
	require.NotEmpty(t, names)
	step := 5
	if testing.Short() {
		step = 23
	}
	for _, name := range names {
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		var variants []string
		for cut := 0; cut < len(src); cut += step {
			variants = append(variants, string(src[:cut]))
		}
		lines := strings.Split(string(src), "\n")
		for i := range lines {
			variants = append(variants, strings.Join(append(append([]string{}, lines[:i]...), lines[i+1:]...), "\n"))
		}
		for _, v := range variants {
			require.NotPanics(t, func() {
				m, err := Load([]File{{Name: "t.go", Src: v}})
				if err == nil {
					require.NotEmpty(t, m.Kernels())
				} else {
					require.Nil(t, m)
					for _, e := range err.(ErrorList) {
						require.NotEmpty(t, e.Msg)
					}
				}
			}, "%s", v)
		}
	}
}
