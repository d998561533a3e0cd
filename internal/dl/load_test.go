package dl

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoad(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the C library's name is Linux's")
	}
	missing := filepath.Join(t.TempDir(), "libmissing.so.1")
	var fn [2]uintptr
	tests := []struct {
		name      string
		spec      Spec
		wantPath  string
		wantTried []string // substrings, one per candidate tried
	}{
		{name: "no candidates", spec: Spec{}, wantTried: []string{}},
		{name: "unavailable opens nothing", spec: Spec{Candidates: []string{"libc.so.6"}, Unavailable: "X is not available on plan9"},
			wantTried: []string{"X is not available on plan9"}},
		{name: "first that opens", spec: Spec{Candidates: []string{missing, "libc.so.6"}, Mode: Now},
			wantPath: "libc.so.6", wantTried: nil},
		{name: "accept rejects", spec: Spec{Candidates: []string{missing, "libc.so.6"}, Accept: func(h uintptr, p string) error {
			return fmt.Errorf("%s: too old", p)
		}}, wantTried: []string{"libmissing.so.1", "libc.so.6: too old"}},
		{name: "symbols", spec: Spec{Candidates: []string{"libc.so.6"}, Accept: SymbolsFunc(fn[:], []string{"strlen", "no_such_function_here"}, 1)},
			wantPath: "libc.so.6"},
		{name: "required symbol missing", spec: Spec{Candidates: []string{"libc.so.6"}, Accept: SymbolsFunc(fn[:], []string{"no_such_function_here", "strlen"}, 1)},
			wantTried: []string{"libc.so.6 lacks no_such_function_here"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib, err := Load(tt.spec)
			if tt.wantPath != "" {
				require.NoError(t, err)
				assert.Equal(t, tt.wantPath, lib.Path)
				assert.NotZero(t, lib.Handle)
				return
			}
			require.Error(t, err)
			var le *LoadError
			require.True(t, errors.As(err, &le))
			require.Len(t, Tried(err), len(tt.wantTried))
			for i, want := range tt.wantTried {
				assert.Contains(t, le.Tried[i], want)
			}
		})
	}
	assert.NotZero(t, fn[1], "strlen resolved by the symbols case")
	assert.Nil(t, Tried(errors.New("other")))
}

// TestOpenConcurrentReasons opens missing libraries from many goroutines:
// every failure must carry its own, complete reason (dlerror is read under
// one lock).
func TestOpenConcurrentReasons(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, 64)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Open(filepath.Join(dir, fmt.Sprintf("libmissing%d.so", i)), Now)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		require.Error(t, err)
		assert.Contains(t, err.Error(), fmt.Sprintf("libmissing%d.so", i))
	}
}

func TestCStrings(t *testing.T) {
	ptrs := CStrings([]string{"ab", ""})
	require.Len(t, ptrs, 2)
	assert.Equal(t, "ab", GoStringN(uintptr(unsafe.Pointer(ptrs[0])), 10))
	assert.Equal(t, "", GoStringN(uintptr(unsafe.Pointer(ptrs[1])), 10))
	assert.Empty(t, CStrings(nil))
}
