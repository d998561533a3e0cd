package dl

import (
	"math"
	"unsafe"
)

// GoString copies the NUL-terminated C string at p ("" for 0).
func GoString(p uintptr) string { return GoStringN(p, math.MaxInt) }

// GoStringN copies the NUL-terminated C string at p ("" for 0), at most
// max bytes of it: for text a library might leave unterminated.
func GoStringN(p uintptr, max int) string {
	if p == 0 {
		return ""
	}
	base := *(*unsafe.Pointer)(unsafe.Pointer(&p)) // C memory: the GC never moves it
	n := 0
	for n < max && *(*byte)(unsafe.Add(base, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(base), n))
}

// CString returns s as a NUL-terminated byte slice.
func CString(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}

// CStrings returns each of ss as a NUL-terminated string; &out[0] is then
// a C array of C strings (char **) for a call that takes one. The caller
// keeps out alive (runtime.KeepAlive) until that call returns.
func CStrings(ss []string) []*byte {
	out := make([]*byte, len(ss))
	for i, s := range ss {
		out[i] = &CString(s)[0]
	}
	return out
}
