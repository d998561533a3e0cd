package opengl

import (
	"strings"
	"testing"

	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every glGetError and eglGetError value, from the GL 4.6 and EGL 1.5
// headers (plus GL_CONTEXT_LOST and the EGL device/stream extension codes).
var (
	allGL = map[int64]string{
		0x0000: "GL_NO_ERROR", 0x0500: "GL_INVALID_ENUM", 0x0501: "GL_INVALID_VALUE", 0x0502: "GL_INVALID_OPERATION",
		0x0503: "GL_STACK_OVERFLOW", 0x0504: "GL_STACK_UNDERFLOW", 0x0505: "GL_OUT_OF_MEMORY",
		0x0506: "GL_INVALID_FRAMEBUFFER_OPERATION", 0x0507: "GL_CONTEXT_LOST",
	}
	allEGL = map[int64]string{
		0x3000: "EGL_SUCCESS", 0x3001: "EGL_NOT_INITIALIZED", 0x3002: "EGL_BAD_ACCESS", 0x3003: "EGL_BAD_ALLOC",
		0x3004: "EGL_BAD_ATTRIBUTE", 0x3005: "EGL_BAD_CONFIG", 0x3006: "EGL_BAD_CONTEXT", 0x3007: "EGL_BAD_CURRENT_SURFACE",
		0x3008: "EGL_BAD_DISPLAY", 0x3009: "EGL_BAD_MATCH", 0x300A: "EGL_BAD_NATIVE_PIXMAP", 0x300B: "EGL_BAD_NATIVE_WINDOW",
		0x300C: "EGL_BAD_PARAMETER", 0x300D: "EGL_BAD_SURFACE", 0x300E: "EGL_CONTEXT_LOST",
		0x321B: "EGL_BAD_STREAM_KHR", 0x321C: "EGL_BAD_STATE_KHR", 0x322B: "EGL_BAD_DEVICE_EXT",
		0x322D: "EGL_BAD_OUTPUT_LAYER_EXT", 0x322E: "EGL_BAD_OUTPUT_PORT_EXT",
	}
)

func TestCodeTables(t *testing.T) {
	for _, tab := range []struct {
		name    string
		table   *errors.CodeTable
		all     map[int64]string
		prefix  string
		success int64
		convert func(v int64) error
	}{
		{"GL", glErrorTable, allGL, "GL_", 0, func(v int64) error { return glError(uint32(v), "op") }},
		{"EGL", eglErrorTable, allEGL, "EGL_", 0x3000, func(v int64) error { return eglError(int(v), "op") }},
	} {
		t.Run(tab.name, func(t *testing.T) {
			codes := tab.table.Codes()
			require.Len(t, codes, len(tab.all), "every code, no more")
			for _, c := range codes {
				t.Run(c.Name, func(t *testing.T) {
					assert.Equal(t, tab.all[c.Value], c.Name, "name of 0x%04X", c.Value)
					assert.True(t, strings.HasPrefix(c.Name, tab.prefix))
					assert.Equal(t, c.Value == tab.success, c.IsSuccess(), "success exactly for the success code")
					err := tab.convert(c.Value)
					if c.IsSuccess() {
						assert.NoError(t, err)
						return
					}
					assert.Contains(t, errors.Categories(), c.Category)
					assert.False(t, c.Fatal && c.Retryable, "fatal codes are not retryable")
					if c.Category == errors.DeviceLost {
						assert.True(t, c.Fatal)
					}
					for _, text := range []string{c.Msg, c.Hint} {
						require.NotEmpty(t, text)
						first, _, _ := strings.Cut(text, " ")
						acronym := len(first) > 1 && strings.ToUpper(first) == first
						assert.True(t, strings.ToLower(text[:1]) == text[:1] || acronym, "lower-case: %q", text)
						assert.False(t, strings.HasSuffix(text, "."), "no final period: %q", text)
						assert.NotContains(t, text, "\n")
					}
					assert.GreaterOrEqual(t, len(c.Hint), 20)
					assert.NotEqual(t, c.Category.DefaultHint(), c.Hint)

					var e *errors.Error
					require.ErrorAs(t, err, &e)
					assert.Equal(t, Name, e.Backend)
					assert.Equal(t, c.Name, e.Name)
					assert.Equal(t, c.Category, errors.CategoryOf(err))
					assert.Equal(t, c.Hint, errors.Hint(err))
					assert.True(t, strings.HasPrefix(err.Error(), "opengl: op: "+c.Msg+" ("+c.Name+"): "), err.Error())
				})
			}
		})
	}
	// Unknown values are Internal errors that name the value.
	err := glError(0x0999, "op")
	assert.Equal(t, errors.Internal, errors.CategoryOf(err))
	assert.Contains(t, err.Error(), "GL_ERROR_UNKNOWN_CODE_2457")
	err = eglError(0x3999, "op")
	assert.Equal(t, errors.Internal, errors.CategoryOf(err))
	assert.Contains(t, err.Error(), "EGL_ERROR_UNKNOWN_CODE_")
	assert.Equal(t, "GL_OUT_OF_MEMORY", hexName(glErrorTable, 0x0505))
	assert.Equal(t, "0x0999", hexName(glErrorTable, 0x0999))
	// The codes the backend's own logic depends on.
	assert.Equal(t, errors.OutOfMemory, errors.CategoryOf(glError(0x0505, "alloc")))
	assert.True(t, errors.IsFatal(glError(0x0507, "launch")))
	assert.Equal(t, errors.Unavailable, errors.CategoryOf(eglError(0x3001, "initialize")))
}
