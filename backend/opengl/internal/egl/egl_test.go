//go:build linux

package egl

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOpen(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libEGL.so.1")
	tests := []struct {
		name    string
		path    string
		wantErr []string // substrings of the error; none: it opens
	}{
		{name: "missing file", path: missing, wantErr: []string{missing}},
		{name: "not an EGL library", path: "libc.so.6",
			wantErr: []string{"libc.so.6: symbol eglGetError not found", "not a usable EGL implementation"}},
		{name: "default", path: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Open(tt.path)
			if len(tt.wantErr) > 0 {
				require.Error(t, err)
				for _, s := range tt.wantErr {
					assert.Contains(t, err.Error(), s)
				}
				_, again := Open(tt.path)
				assert.Equal(t, err, again, "the outcome is kept per path")
				return
			}
			if err != nil {
				t.Skipf("no EGL library here: %v", err)
			}
			assert.Equal(t, defaultLibrary, l.Path)
			assert.NotZero(t, l.GetProcAddress("glGetString"))
			again, err := Open(tt.path)
			require.NoError(t, err)
			assert.Same(t, l, again, "opened once per path")
		})
	}
}

func TestHasExtension(t *testing.T) {
	assert.True(t, HasExtension("EGL_A EGL_B", "EGL_B"))
	assert.False(t, HasExtension("EGL_AB", "EGL_A"))
	assert.False(t, HasExtension("", "EGL_A"))
}
