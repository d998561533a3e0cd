// Package dl opens native libraries at run time and calls their functions
// through purego, without cgo: dlopen/dlsym on Unix, LoadLibrary and
// GetProcAddress on Windows, nothing on other systems.
package dl

import "unsafe"

// GoString copies the NUL-terminated C string at p ("" for 0).
func GoString(p uintptr) string {
	if p == 0 {
		return ""
	}
	base := *(*unsafe.Pointer)(unsafe.Pointer(&p)) // C memory: the GC never moves it
	n := 0
	for *(*byte)(unsafe.Add(base, n)) != 0 {
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
