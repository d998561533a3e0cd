//go:build !(darwin || freebsd || linux || netbsd || windows)

package vk

import (
	"fmt"
	"runtime"
)

func openLibrary(path string) (uintptr, error) {
	return 0, fmt.Errorf("loading native libraries is not supported on %s/%s", runtime.GOOS, runtime.GOARCH)
}

func librarySymbol(h uintptr, name string) (uintptr, error) {
	return 0, fmt.Errorf("loading native libraries is not supported on %s/%s", runtime.GOOS, runtime.GOARCH)
}
