//go:build (linux || freebsd || windows || darwin || netbsd) && !(cgo && linux && (amd64 || arm64))

package cu

import "github.com/anygpu/gpu/internal/dl"

// callFrame invokes fn with the first n words of a, which the caller keeps
// in reused memory (a Frame): unlike dl.Call, it allocates nothing.
func callFrame(fn uintptr, a *[frameWords]uintptr, n int) uintptr {
	return dl.CallArgs(fn, a[:n])
}
