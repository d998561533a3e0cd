package dl

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

func TestCString(t *testing.T) {
	assert.Equal(t, []byte("abc\x00"), CString("abc"))
	assert.Equal(t, []byte{0}, CString(""))
}

func TestGoString(t *testing.T) {
	assert.Equal(t, "", GoString(0))
	assert.Equal(t, "", GoStringN(0, 4))
	b := CString("hello")
	p := uintptr(unsafe.Pointer(&b[0]))
	assert.Equal(t, "hello", GoString(p))
	assert.Equal(t, "hel", GoStringN(p, 3), "at most max bytes")
	assert.Equal(t, "hello", GoStringN(p, 100))
	runtime.KeepAlive(b)
}
