//go:build (linux || freebsd || windows || darwin || netbsd) && !(cgo && linux && (amd64 || arm64))

package cu

import "github.com/ebitengine/purego"

// callFrame invokes fn with the first n words of a, which the caller keeps
// in reused memory (a Frame): unlike call, it allocates nothing.
func callFrame(fn uintptr, a *[frameWords]uintptr, n int) uintptr {
	r, _, _ := purego.SyscallN(fn, a[:n]...)
	return r
}
