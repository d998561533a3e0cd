//go:build linux && amd64

package objc

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/internal/dl"
)

// abiC declares functions with the C signatures of the two messages whose
// arguments are laid out by hand (objc_msgSend forwards its arguments to the
// method untouched, so a method's ABI is that of a C function of the same
// signature). x86-64 System V is the ABI of darwin/amd64 and linux/amd64
// alike for these integer-only arguments, so this checks the darwin layout
// for real.
const abiC = `
typedef struct { unsigned long width, height, depth; } MTLSize;
typedef struct { unsigned long location, length; } NSRange;
static unsigned long seen[10];
void dispatch(void *self, void *cmd, MTLSize groups, MTLSize threads) {
	seen[0] = (unsigned long)self; seen[1] = (unsigned long)cmd;
	seen[2] = groups.width; seen[3] = groups.height; seen[4] = groups.depth;
	seen[5] = threads.width; seen[6] = threads.height; seen[7] = threads.depth;
}
void fill(void *self, void *cmd, void *buffer, NSRange range, unsigned char value) {
	seen[0] = (unsigned long)self; seen[1] = (unsigned long)cmd; seen[2] = (unsigned long)buffer;
	seen[3] = range.location; seen[4] = range.length; seen[5] = value;
}
unsigned long get(int i) { return seen[i]; }
`

func TestABIAgainstC(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skipf("no C compiler to check the argument layouts against: %v", err)
	}
	dir := t.TempDir()
	src, lib := filepath.Join(dir, "abi.c"), filepath.Join(dir, "libabi.so")
	require.NoError(t, os.WriteFile(src, []byte(abiC), 0o644))
	out, err := exec.Command(cc, "-shared", "-fPIC", "-O2", "-o", lib, src).CombinedOutput()
	require.NoError(t, err, "%s", out)
	h, err := dl.Open(lib, dl.Now)
	require.NoError(t, err)
	sym := func(name string) uintptr {
		p := dl.Sym(h, name)
		require.NotZero(t, p, name)
		return p
	}
	dispatch, fill, get := sym("dispatch"), sym("fill"), sym("get")
	seen := func(n int) []uint64 {
		var v []uint64
		for i := 0; i < n; i++ {
			v = append(v, uint64(dl.Call(get, uintptr(i))))
		}
		return v
	}

	a := dispatchArgsAMD64(0x1111, 0x2222, Size{65535, 7, 3}, Size{256, 4, 1})
	dl.CallArgs(dispatch, a[:])
	require.Equal(t, []uint64{0x1111, 0x2222, 65535, 7, 3, 256, 4, 1}, seen(8), "MTLSize arguments arrive intact")

	f := fillArgs(0x1111, 0x2222, 0x3333, 1<<33, 4096, 0xab)
	dl.CallArgs(fill, f[:])
	require.Equal(t, []uint64{0x1111, 0x2222, 0x3333, 1 << 33, 4096, 0xab}, seen(6), "NSRange and the byte arrive intact")
}
