package prebuilt

import (
	"embed"
	"io/fs"
	"sync"
	"sync/atomic"
)

// data is the set shipped in the module: data/index.json and, once
// regenerated, data/pack.bin.
//
//go:embed data
var data embed.FS

// embedded is the shipped set, read once.
var embedded = sync.OnceValues(func() (*Set, error) {
	sub, err := fs.Sub(data, "data")
	if err != nil {
		return &Set{}, err
	}
	s, err := Open(sub)
	if err != nil {
		return &Set{}, err
	}
	return s, nil
})

// override replaces the shipped set while not nil (SetDefault).
var override atomic.Pointer[Set]

// Default is the set the CUDA backend looks programs up in: the one shipped
// in the module (embedded), unless SetDefault replaced it. A shipped set that
// does not read is returned empty, with the error (the package's tests fail
// on it; the backend then compiles with NVRTC).
func Default() (*Set, error) {
	if s := override.Load(); s != nil {
		return s, nil
	}
	return embedded()
}

// Shipped is the set embedded in the module, whatever SetDefault says.
func Shipped() (*Set, error) { return embedded() }

// SetDefault makes s the set Default returns (nil: the shipped one again),
// for tests and for measuring a freshly regenerated set before it is
// shipped; it returns a function that restores the previous one.
func SetDefault(s *Set) (restore func()) {
	old := override.Swap(s)
	return func() { override.Store(old) }
}
