package cuda

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/anygpu/gpu/kernel/internal/ir"
	"github.com/stretchr/testify/require"
)

// hostArg is one argument of a kernel run on the host: a buffer (its
// element type and contents as bit patterns) or a scalar (a C++ literal).
type hostArg struct {
	elem   ir.Scalar
	bits   []uint64
	scalar string
}

// hostTypes are the C++ types of buffer elements and the bit patterns of
// their printf: each element is printed as an unsigned 64-bit integer.
var hostTypes = map[ir.Scalar]struct{ c, bits string }{
	ir.I32: {"int", "unsigned"}, ir.U32: {"unsigned", "unsigned"}, ir.F32: {"float", "unsigned"},
	ir.I64: {"long long", "unsigned long long"}, ir.U64: {"unsigned long long", "unsigned long long"},
	ir.F64: {"double", "unsigned long long"},
}

// runOnHost compiles src (emitted by Emit) as C++ with testdata/host.h and
// the undefined-behaviour sanitizer trapping, runs kernel over grid groups
// of block threads (x only), one thread after another, and returns every
// buffer's contents afterwards as bit patterns. It skips when clang++ is not
// installed.
func runOnHost(t *testing.T, src, kernel string, grid, block int, args []hostArg) [][]uint64 {
	t.Helper()
	cxx, err := exec.LookPath("clang++")
	if err != nil {
		t.Skip("clang++ is not installed")
	}
	host, err := filepath.Abs("testdata/host.h")
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString(src)
	b.WriteString("\nint main() {\n")
	var call []string
	for i, a := range args {
		if a.bits == nil {
			call = append(call, a.scalar)
			continue
		}
		ht := hostTypes[a.elem]
		words := make([]string, len(a.bits))
		for j, w := range a.bits {
			words[j] = strconv.FormatUint(w, 10) + "ull"
		}
		fmt.Fprintf(&b, "\tstatic const unsigned long long init%d[] = {%s};\n", i, strings.Join(words, ", "))
		fmt.Fprintf(&b, "\tstatic %s buf%d[%d];\n", ht.c, i, len(a.bits))
		fmt.Fprintf(&b, "\tfor (int j = 0; j < %d; j++) { %s w = (%s)init%d[j]; memcpy(&buf%d[j], &w, sizeof w); }\n",
			len(a.bits), ht.bits, ht.bits, i, i)
		call = append(call, "buf"+strconv.Itoa(i))
	}
	fmt.Fprintf(&b, "\tgridDim = {%d, 1, 1}; blockDim = {%d, 1, 1};\n", grid, block)
	fmt.Fprintf(&b, "\tfor (unsigned g = 0; g < %d; g++) for (unsigned t = 0; t < %d; t++) {\n", grid, block)
	fmt.Fprintf(&b, "\t\tblockIdx = {g, 0, 0}; threadIdx = {t, 0, 0};\n\t\t%s(%s);\n\t}\n", kernel, strings.Join(call, ", "))
	for i, a := range args {
		if a.bits == nil {
			continue
		}
		ht := hostTypes[a.elem]
		fmt.Fprintf(&b, "\tfor (int j = 0; j < %d; j++) { %s w; memcpy(&w, &buf%d[j], sizeof w); printf(\"%%llu \", (unsigned long long)w); }\n",
			len(a.bits), ht.bits, i)
		b.WriteString("\tprintf(\"\\n\");\n")
	}
	b.WriteString("\treturn 0;\n}\n")

	dir := t.TempDir()
	file, exe := filepath.Join(dir, "k.cc"), filepath.Join(dir, "k")
	require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o644))
	out, err := exec.Command(cxx, "-std=c++17", "-O1", "-w", "-fsanitize=undefined,float-cast-overflow",
		"-fsanitize-trap=all", "-include", host, "-o", exe, file).CombinedOutput()
	require.NoError(t, err, "clang++ rejects the emitted text:\n%s\n%s", out, numbered(b.String()))
	out, err = exec.Command(exe).Output()
	require.NoError(t, err, "the kernel failed on the host (a trap is undefined behaviour):\n%s", numbered(b.String()))

	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var bufs [][]uint64
	for _, l := range lines {
		var words []uint64
		for _, f := range strings.Fields(l) {
			w, err := strconv.ParseUint(f, 10, 64)
			require.NoError(t, err)
			words = append(words, w)
		}
		bufs = append(bufs, words)
	}
	return bufs
}
