package collective

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/dl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeSource is C for a stand-in libnccl.so.2 exporting the functions in
// syms: ncclGetVersion reports version, ncclGetUniqueId writes 1..128,
// ncclGetLastError "fake last error", the group calls succeed, and every
// other function returns fail.
func fakeSource(syms []string, version, fail int) string {
	var b strings.Builder
	b.WriteString("#include <stddef.h>\n")
	for _, s := range syms {
		switch s {
		case "ncclGetVersion":
			fmt.Fprintf(&b, "int ncclGetVersion(int *v) { *v = %d; return 0; }\n", version)
		case "ncclGetUniqueId":
			b.WriteString("int ncclGetUniqueId(unsigned char *id) { for (int i = 0; i < 128; i++) id[i] = (unsigned char)(i + 1); return 0; }\n")
		case "ncclGetErrorString":
			b.WriteString("const char *ncclGetErrorString(int r) { return \"fake error\"; }\n")
		case "ncclGetLastError":
			b.WriteString("const char *ncclGetLastError(void *comm) { return \"fake last error\"; }\n")
		case "ncclGroupStart", "ncclGroupEnd":
			fmt.Fprintf(&b, "int %s(void) { return 0; }\n", s)
		default:
			fmt.Fprintf(&b, "int %s(void) { return %d; }\n", s, fail)
		}
	}
	return b.String()
}

// buildFake compiles a stand-in NCCL into dir; the test skips without a C
// compiler.
func buildFake(t *testing.T, dir string, syms []string, version, fail int) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the stand-in NCCL is built on Linux only")
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build a stand-in NCCL")
	}
	src := filepath.Join(dir, "fakenccl.c")
	require.NoError(t, os.WriteFile(src, []byte(fakeSource(syms, version, fail)), 0o644))
	out := filepath.Join(dir, "libnccl.so.2")
	b, err := exec.Command(cc, "-shared", "-fPIC", "-o", out, src).CombinedOutput()
	require.NoError(t, err, "%s", b)
	return out
}

func allSyms() []string { return symNames[:] }

// useFake points ANYGPU_NCCL_LIBRARY at a stand-in with every function.
func useFake(t *testing.T, version, fail int) string {
	t.Helper()
	p := buildFake(t, t.TempDir(), allSyms(), version, fail)
	t.Setenv(EnvLibrary, p)
	return p
}

func TestLoadMissingLibrary(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "libnccl.so.2")
	_, err := loadFrom([]string{missing}, true)
	require.Error(t, err)
	assert.True(t, errors.Is(err, errors.Unavailable), "%v", err)
	assert.Contains(t, err.Error(), missing)
	assert.Contains(t, errors.Hint(err), EnvLibrary)

	t.Setenv(EnvLibrary, missing)
	err = Available()
	require.Error(t, err)
	assert.True(t, errors.Is(err, errors.Unavailable))
	_, err = Version()
	require.Error(t, err)
	_, err = NewUniqueID()
	require.Error(t, err)
	assert.Error(t, Group(func() error { return nil }))
	_, err = Library()
	require.Error(t, err)

	_, err = loadFrom(nil, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no NCCL library found")
	if dlSupported {
		assert.Contains(t, errors.Hint(err), "nvidia-nccl-cu13")
	}
}

func TestLoadNotALibrary(t *testing.T) {
	p := filepath.Join(t.TempDir(), "libnccl.so.2")
	require.NoError(t, os.WriteFile(p, []byte("this is not an ELF file\n"), 0o644))
	_, err := loadFrom([]string{p}, true)
	require.Error(t, err)
	assert.True(t, errors.Is(err, errors.Unavailable))
	assert.Contains(t, err.Error(), p)
}

func TestLoadMissingSymbols(t *testing.T) {
	p := buildFake(t, t.TempDir(), []string{"ncclGetVersion", "ncclGetUniqueId"}, 22807, 0)
	_, err := loadFrom([]string{p}, true)
	require.Error(t, err)
	assert.True(t, errors.Is(err, errors.Unavailable))
	assert.Contains(t, err.Error(), "lacks ncclGetErrorString")
	assert.Contains(t, err.Error(), "ncclAllReduce")
	assert.NotContains(t, err.Error(), "ncclCommInitRankScalable", "optional functions are not required")
}

func TestLoadTooOld(t *testing.T) {
	p := buildFake(t, t.TempDir(), allSyms(), 2906, 0)
	_, err := loadFrom([]string{p}, true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "older than the 2.10.0")
}

func TestLoadFallsThroughCandidates(t *testing.T) {
	dir := t.TempDir()
	good := buildFake(t, dir, allSyms(), 22807, 0)
	l, err := loadFrom([]string{filepath.Join(dir, "nothing.so"), good}, false)
	require.NoError(t, err)
	assert.Equal(t, good, l.path)
	assert.Equal(t, 22807, l.version)
}

func TestFakeLibrary(t *testing.T) {
	p := useFake(t, 22807, 5)
	require.NoError(t, Available())
	v, err := Version()
	require.NoError(t, err)
	assert.Equal(t, "2.28.7", v)
	lp, err := Library()
	require.NoError(t, err)
	assert.Equal(t, p, lp)

	id, err := NewUniqueID()
	require.NoError(t, err)
	for i := range id {
		require.Equal(t, byte(i+1), id[i])
	}

	// Group with the stand-in's group calls: f's error comes back.
	require.NoError(t, Group(func() error { return nil }))
	boom := errors.New("boom")
	assert.ErrorIs(t, Group(func() error { return boom }), boom)
	assert.True(t, errors.Is(Group(nil), errors.InvalidArgument))

	// A failing NCCL call: the result's name, category and NCCL's own text.
	l, err := load()
	require.NoError(t, err)
	err = l.result(dl.Call(l.fn[symCommInitAll]), "init", 0)
	require.Error(t, err)
	var e *errors.Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "ncclInvalidUsage", e.Name)
	assert.Equal(t, errors.InvalidArgument, e.Category)
	assert.Equal(t, Backend, e.Backend)
	assert.Contains(t, e.Msg, "fake last error")
	assert.NotEmpty(t, e.Hint)
}

func TestVersionString(t *testing.T) {
	assert.Equal(t, "2.28.7", versionString(22807))
	assert.Equal(t, "2.10.3", versionString(21003))
	assert.Equal(t, "2.8.4", versionString(2804))
}

func TestCandidates(t *testing.T) {
	root := t.TempDir()
	mk := func(dir string) string {
		p := filepath.Join(dir, soname)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(p, nil, 0o644))
		return p
	}
	venv := filepath.Join(root, "opt", "venv")
	require.NoError(t, os.MkdirAll(filepath.Join(venv, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(venv, "bin", "python3"), nil, 0o755))
	wheel := mk(filepath.Join(venv, "lib", "python3.12", "site-packages", "nvidia", "nccl", "lib"))
	home := filepath.Join(root, "home")
	user := mk(filepath.Join(home, ".local", "lib", "python3.11", "site-packages", "nvidia", "nccl", "lib"))
	cudaHome := mk(filepath.Join(root, "cuda", "lib64"))
	system := mk(filepath.Join(root, "usr", "local", "cuda-12.8", "lib64"))

	env := map[string]string{"PATH": filepath.Join(venv, "bin") + ":/usr/bin", "CUDA_HOME": filepath.Join(root, "cuda")}
	e := searchEnv{getenv: func(k string) string { return env[k] }, home: home, root: root}
	c := e.candidates()
	require.Equal(t, soname, c[0], "the system's search first")
	for _, want := range []string{wheel, user, cudaHome, system} {
		assert.Contains(t, c, want)
	}
	assert.Less(t, slices.Index(c, cudaHome), slices.Index(c, wheel), "toolkits before wheels")

	env[EnvLibrary] = "/x/libnccl.so.2"
	assert.Equal(t, []string{"/x/libnccl.so.2"}, e.candidates(), "an explicit library alone")
}

func TestResultTable(t *testing.T) {
	codes := ResultCodes()
	require.Len(t, codes, 8)
	names := []string{"ncclSuccess", "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
		"ncclInvalidArgument", "ncclInvalidUsage", "ncclRemoteError", "ncclInProgress"}
	for i, c := range codes {
		assert.Equal(t, int64(i), c.Value)
		assert.Equal(t, names[i], c.Name)
		assert.NotEmpty(t, c.Msg)
		assert.NotEmpty(t, c.Hint)
	}
	assert.NoError(t, resultErr(0, "x"))
	for v, cat := range map[int64]errors.Category{1: errors.Execution, 2: errors.Execution, 3: errors.Internal,
		4: errors.InvalidArgument, 5: errors.InvalidArgument, 6: errors.Execution, 7: errors.Timeout} {
		err := resultErr(v, "all-reduce")
		require.Error(t, err)
		assert.True(t, errors.Is(err, cat), "%d: %v", v, err)
		assert.Contains(t, err.Error(), "nccl: all-reduce: ")
	}
	assert.True(t, errors.IsFatal(resultErr(6, "x")), "a remote error leaves the communicator unusable")
	assert.True(t, errors.IsRetryable(resultErr(7, "x")))
	err := resultErr(99, "x")
	assert.True(t, errors.Is(err, errors.Internal))
	assert.Contains(t, err.Error(), "ncclResult_99")
	assert.Equal(t, "ncclInvalidUsage", resultName(5))
	assert.Equal(t, "ncclResult 42", resultName(42))
	c, ok := ResultCode(2)
	assert.True(t, ok)
	assert.Equal(t, "ncclSystemError", c.Name)
}

func TestUniqueIDText(t *testing.T) {
	var id UniqueID
	for i := range id {
		id[i] = byte(255 - i)
	}
	got, err := ParseUniqueID(id.String())
	require.NoError(t, err)
	assert.Equal(t, id, got)
	_, err = ParseUniqueID("abc")
	assert.Error(t, err)
	_, err = ParseUniqueID(strings.Repeat("zz", 128))
	assert.Error(t, err)
	_, err = parseIDText("garbage")
	assert.Error(t, err)
}

func TestTypes(t *testing.T) {
	assert.Equal(t, Float32, TypeOf[float32]())
	assert.Equal(t, Float64, TypeOf[float64]())
	assert.Equal(t, Int32, TypeOf[int32]())
	assert.Equal(t, Uint8, TypeOf[uint8]())
	type celsius float32
	assert.Equal(t, Float32, TypeOf[celsius]())
	assert.Equal(t, 4, Float32.Size())
	assert.Equal(t, 2, BFloat16.Size())
	assert.Equal(t, 0, DataType(99).Size())
	assert.Equal(t, "bfloat16", BFloat16.String())
	assert.Equal(t, "DataType(-1)", DataType(-1).String())
	assert.Equal(t, "avg", Avg.String())
	assert.Equal(t, "Op(9)", Op(9).String())
}

// TestLibrarySearch loads NCCL from the places searched by default (not
// ANYGPU_NCCL_LIBRARY), and says where it was found. It skips where there is
// none, unless ANYGPU_TEST_REQUIRE names nccl.
func TestLibrarySearch(t *testing.T) {
	env := defaultSearchEnv()
	get := env.getenv
	env.getenv = func(k string) string {
		if k == EnvLibrary {
			return ""
		}
		return get(k)
	}
	l, err := loadFrom(env.candidates(), false)
	if err != nil {
		if backendtest.Required("nccl") {
			t.Fatalf("NCCL is required (%s) but the search found none: %v", backendtest.EnvRequire, err)
		}
		t.Skipf("no NCCL found: %v", err)
	}
	t.Logf("found NCCL %s: %s", versionString(l.version), l.path)
}
