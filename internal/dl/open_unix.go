//go:build linux || freebsd || darwin || netbsd

package dl

import (
	"runtime"
	"sync"

	"github.com/ebitengine/purego"
)

// Supported reports whether Open can open libraries on this system.
const Supported = true

// openMu serialises dlopen and dlsym. Each reports failure through
// dlerror, whose text is kept per OS thread until the next failing call,
// and purego reads it in a second foreign call: a goroutine that moved to
// another thread in between, or another probe failing at the same time,
// would read someone else's reason or an empty one. So the two calls run
// under one lock on one locked thread (lockDL).
var openMu sync.Mutex

// lockDL takes openMu and the calling OS thread; the returned function
// gives both back.
func lockDL() func() {
	openMu.Lock()
	runtime.LockOSThread()
	return func() {
		runtime.UnlockOSThread()
		openMu.Unlock()
	}
}

// Open opens the library at path (a file name searched the system's way,
// or a path) and returns its handle. mode says when its functions are
// bound and whether its symbols are global.
func Open(path string, mode Mode) (uintptr, error) {
	flags := purego.RTLD_LAZY
	if mode&Now != 0 {
		flags = purego.RTLD_NOW
	}
	if mode&Global != 0 {
		flags |= purego.RTLD_GLOBAL
	} else {
		flags |= purego.RTLD_LOCAL
	}
	defer lockDL()()
	return purego.Dlopen(path, flags)
}

// Sym returns the address of the exported symbol name in the library of
// handle, 0 when there is none.
func Sym(handle uintptr, name string) uintptr {
	unlock := lockDL()
	p, err := purego.Dlsym(handle, name)
	unlock()
	if err != nil {
		return 0
	}
	return p
}
