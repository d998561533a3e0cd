package dl

import (
	"errors"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDescribeOpenError(t *testing.T) {
	assert.Equal(t, "libx.so: cannot open shared object file",
		DescribeOpenError("libx.so", errors.New("libx.so: cannot open shared object file")), "named once")
	assert.Equal(t, "libx.so: not found", DescribeOpenError("libx.so", errors.New("not found")))
}

func TestOpenMissing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "libmissing.so.1")
	for _, m := range []Mode{Lazy, Now} {
		h, err := Open(p, m)
		require.Error(t, err)
		assert.Zero(t, h)
	}
}

// openLibc opens the C library (glibc), or skips the test.
func openLibc(t *testing.T) uintptr {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the C library's name is Linux's")
	}
	h, err := Open("libc.so.6", Now)
	if err != nil {
		t.Skipf("no glibc: %v", err)
	}
	return h
}

// TestOpenLibc opens the C library, resolves and calls strlen.
func TestOpenLibc(t *testing.T) {
	h := openLibc(t)
	assert.Zero(t, Sym(h, "anygpu_no_such_symbol"))
	strlen := Sym(h, "strlen")
	require.NotZero(t, strlen)
	s := CString("twelve chars")
	assert.Equal(t, uintptr(12), Call(strlen, uintptr(unsafe.Pointer(&s[0]))))
	args := []uintptr{uintptr(unsafe.Pointer(&s[0]))}
	assert.Equal(t, uintptr(12), CallArgs(strlen, args))
	runtime.KeepAlive(s)

	assert.Contains(t, filepath.Base(MappedFile("libc.so")), "libc.so", "the file libc.so.6 came from")
	assert.Empty(t, MappedFile("anygpu-no-such-library"))
}
