package nvrtc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/require"
)

func touch(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, nil, 0o644))
}

// TestSearchOrder builds fake installations and checks the order in which
// the library is looked for.
func TestSearchOrder(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	cudaHome := filepath.Join(root, "opt", "cuda-custom")
	venv := filepath.Join(root, "venv")
	env := map[string]string{"CUDA_HOME": cudaHome, "VIRTUAL_ENV": venv}
	files := []string{
		filepath.Join(cudaHome, "lib64", "libnvrtc.so.12"),
		filepath.Join(root, "usr/local/cuda/lib64/libnvrtc.so.13"),
		filepath.Join(root, "usr/local/cuda-12.9/lib64/libnvrtc.so.12"),
		filepath.Join(root, "usr/local/cuda-12.10/lib64/libnvrtc.so.12"),
		filepath.Join(root, "usr/local/cuda-11.8/lib64/libnvrtc.so.11.2"),
		filepath.Join(venv, "lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so.13"),
		filepath.Join(venv, "lib/python3.12/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"),
		filepath.Join(home, ".local/lib/python3.11/site-packages/nvidia/cu13/lib/libnvrtc.so.13"),
		filepath.Join(root, "usr/lib/python3/dist-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12"),
	}
	for _, f := range files {
		touch(t, f)
	}
	// A directory named like the library is not a candidate.
	require.NoError(t, os.MkdirAll(filepath.Join(cudaHome, "lib", "libnvrtc.so.13"), 0o755))
	e := searchEnv{goos: "linux", getenv: func(k string) string { return env[k] }, home: home, root: root}
	got := e.candidates()
	want := append([]string{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"},
		files[0], // $CUDA_HOME
		files[1], // /usr/local/cuda
		files[3], // cuda-12.10 before cuda-12.9: numeric order
		files[2],
		files[4],
		files[5], files[6], // $VIRTUAL_ENV wheels: cu13, then cuda_nvrtc
		files[7], // ~/.local
		files[8], // system Python
	)
	require.Equal(t, want, got)

	// The override is the only candidate.
	env[EnvLibrary] = "/somewhere/libnvrtc.so.13"
	require.Equal(t, []string{"/somewhere/libnvrtc.so.13"}, e.candidates())

	// Windows names.
	w := searchEnv{goos: "windows", getenv: func(string) string { return "" }}
	require.Equal(t, []string{"nvrtc64_130_0.dll", "nvrtc64_120_0.dll", "nvrtc64_120_0.alt.dll", "nvrtc64_112_0.dll"}, w.candidates())
}

func TestLoadFailures(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux names")
	}
	dir := t.TempDir()
	text := filepath.Join(dir, "libnvrtc.so.13")
	require.NoError(t, os.WriteFile(text, []byte("nope"), 0o644))
	_, err := loadFrom([]string{filepath.Join(dir, "missing.so"), text, "libc.so.6"}, false)
	require.Error(t, err)
	require.Equal(t, errors.Unavailable, errors.CategoryOf(err))
	msg := err.Error()
	require.True(t, strings.HasPrefix(msg, "nvrtc: "), msg)
	require.Contains(t, msg, "missing.so")
	require.Contains(t, msg, text)
	require.Contains(t, msg, "libc.so.6 lacks nvrtcVersion")
	require.Contains(t, errors.Hint(err), EnvLibrary)

	_, err = loadFrom(nil, false)
	require.Contains(t, err.Error(), "no NVRTC library found")

	// Through Compile, with the override pointing nowhere.
	t.Setenv(EnvLibrary, filepath.Join(dir, "missing.so"))
	_, err = NewCompiler(nil).Compile("__global__ void k() {}", Options{Arch: "sm_90"})
	require.Equal(t, errors.Unavailable, errors.CategoryOf(err))
	require.Contains(t, errors.Hint(err), "unset it")
	require.Error(t, Available())
	_, _, err = Version()
	require.Error(t, err)
}

func TestOptions(t *testing.T) {
	o := Options{
		Arch: "sm_90", Std: "c++20", FastMath: true, MaxRegisters: 64, LineInfo: true, Debug: true,
		Defines:      map[string]string{"B": "2", "A": "", "C": "x y"},
		IncludePaths: []string{"/inc"}, Flags: []string{"-w"},
	}
	arch, err := o.targetArch()
	require.NoError(t, err)
	require.Equal(t, "sm_90", arch)
	require.Equal(t, []string{"--gpu-architecture=sm_90", "--std=c++20", "--use_fast_math", "--maxrregcount=64",
		"--generate-line-info", "--device-debug", "--define-macro=A", "--define-macro=B=2", "--define-macro=C=x y",
		"--include-path=/inc", "-w"}, o.args(arch, nil))
	require.Equal(t, []string{"--gpu-architecture=compute_90"}, (&Options{}).args("compute_90", nil))

	for arch, want := range map[string]string{"sm_90": "sm_90", "sm_90a": "sm_90a", "compute_80": "compute_80", " sm_75 ": "sm_75", "sm_100f": "sm_100f"} {
		got, err := (&Options{Arch: arch}).targetArch()
		require.NoError(t, err, arch)
		require.Equal(t, want, got)
	}
	got, err := (&Options{Arch: "sm_90a", PTX: true}).targetArch()
	require.NoError(t, err)
	require.Equal(t, "compute_90a", got, "PTX asks for the virtual architecture")
	for _, bad := range []string{"", "90", "sm90", "sm_", "gfx90a", "sm_90;rm -rf"} {
		_, err := (&Options{Arch: bad}).targetArch()
		require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "arch %q", bad)
		require.Contains(t, errors.Hint(err), "sm_90")
	}
	_, err = Compile("x", Options{})
	require.Contains(t, err.Error(), "Options.Arch is empty")
}

func TestResultHelpers(t *testing.T) {
	r := &Result{CUBIN: []byte{1, 2}, PTX: "ptx", LoweredNames: map[string]string{"k<float>": "_Z1kIfEvv"}}
	require.Equal(t, []byte{1, 2}, r.Image())
	require.Equal(t, "_Z1kIfEvv", r.Name("k<float>"))
	require.Equal(t, "plain", r.Name("plain"))
	r.CUBIN = nil
	require.Equal(t, []byte("ptx\x00"), r.Image(), "PTX is loaded NUL-terminated")
	require.Equal(t, "k.cu(3): error: identifier \"x\" is undefined",
		firstError("k.cu(2): warning: meh\nk.cu(3): error: identifier \"x\" is undefined\n1 error detected"))
}

func sampleResult(i int) *Result {
	return &Result{
		CUBIN: bytes.Repeat([]byte{byte(i), 0, 0xff}, 1000+i), PTX: fmt.Sprintf("// ptx %d\n", i),
		Log: "warning", Arch: "sm_90", LoweredNames: map[string]string{"a<int>": "_Z1aIiEvv", "b": "b"},
		Duration: time.Duration(i) * time.Millisecond,
	}
}

func key(i int) string {
	return keyOf(13, 0, fmt.Sprint("src", i), "sm_90", nil, Options{DriverVersion: 13000}, nil)
}

func TestEntryRoundTrip(t *testing.T) {
	r := sampleResult(3)
	data := encodeEntry(key(3), r)
	got, err := decodeEntry(data, key(3))
	require.NoError(t, err)
	require.Equal(t, r.CUBIN, got.CUBIN)
	require.Equal(t, r.PTX, got.PTX)
	require.Equal(t, r.Log, got.Log)
	require.Equal(t, r.Arch, got.Arch)
	require.Equal(t, r.LoweredNames, got.LoweredNames)
	_, err = decodeEntry(data, key(4))
	require.Error(t, err, "an entry of another key")
	for i := range data {
		bad := bytes.Clone(data)
		bad[i] ^= 0x40
		_, err := decodeEntry(bad, key(3))
		require.Error(t, err, "flipped byte %d is detected", i)
	}
	for n := 0; n < len(data); n += 7 {
		_, err := decodeEntry(data[:n], key(3))
		require.Error(t, err, "truncated to %d", n)
	}
}

func TestKeyCoversEverything(t *testing.T) {
	base := Options{DriverVersion: 13000, Name: "p", Headers: map[string]string{"h.h": "x"}, NameExpressions: []string{"k<1>"}}
	k0 := keyOf(13, 0, "src", "sm_90", []string{"-a"}, base, nil)
	variants := []string{
		keyOf(13, 1, "src", "sm_90", []string{"-a"}, base, nil),
		keyOf(12, 0, "src", "sm_90", []string{"-a"}, base, nil),
		keyOf(13, 0, "src2", "sm_90", []string{"-a"}, base, nil),
		keyOf(13, 0, "src", "sm_80", []string{"-a"}, base, nil),
		keyOf(13, 0, "src", "sm_90", []string{"-b"}, base, nil),
		keyOf(13, 0, "src", "sm_90", []string{"-a", ""}, base, nil),
	}
	o := base
	o.DriverVersion = 12080
	variants = append(variants, keyOf(13, 0, "src", "sm_90", []string{"-a"}, o, nil))
	o = base
	o.Headers = map[string]string{"h.h": "y"}
	variants = append(variants, keyOf(13, 0, "src", "sm_90", []string{"-a"}, o, nil))
	o = base
	o.NameExpressions = []string{"k<2>"}
	variants = append(variants, keyOf(13, 0, "src", "sm_90", []string{"-a"}, o, nil))
	seen := map[string]bool{k0: true}
	for i, k := range variants {
		require.Len(t, k, 64)
		require.False(t, seen[k], "variant %d has the key of another", i)
		seen[k] = true
	}
	require.Equal(t, k0, keyOf(13, 0, "src", "sm_90", []string{"-a"}, base, nil), "the key is deterministic")
}

func TestCacheHitMissAndCorruption(t *testing.T) {
	dir := t.TempDir()
	c := OpenCache(dir)
	var compiles atomic.Int64
	compile := func(i int) func() (*Result, error) {
		return func() (*Result, error) { compiles.Add(1); return sampleResult(i), nil }
	}
	r, err := c.Do(key(1), compile(1))
	require.NoError(t, err)
	require.False(t, r.Cached)
	require.Equal(t, sampleResult(1).CUBIN, r.CUBIN)
	r, err = c.Do(key(1), compile(1))
	require.NoError(t, err)
	require.True(t, r.Cached, "memory hit")
	require.Equal(t, int64(1), compiles.Load())

	// A new Cache on the directory is a new process: a disk hit.
	c2 := OpenCache(dir)
	r, err = c2.Do(key(1), compile(1))
	require.NoError(t, err)
	require.True(t, r.Cached)
	require.Equal(t, sampleResult(1).CUBIN, r.CUBIN)
	require.Equal(t, int64(1), compiles.Load())
	require.Equal(t, CacheStats{Hits: 1, DiskHits: 1}, c2.Stats())

	path := filepath.Join(dir, "nvrtc", key(1)+".bin")
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	corruptions := map[string][]byte{
		"flipped byte": func() []byte { b := bytes.Clone(good); b[len(b)/2] ^= 1; return b }(),
		"truncated":    good[:len(good)-10],
		"empty":        {},
		"garbage":      []byte("hello, cache"),
		"other key":    encodeEntry(key(2), sampleResult(2)),
	}
	for name, data := range corruptions {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(path, data, 0o644))
			c := OpenCache(dir)
			before := compiles.Load()
			r, err := c.Do(key(1), compile(1))
			require.NoError(t, err)
			require.False(t, r.Cached, "a damaged entry is rebuilt")
			require.Equal(t, sampleResult(1).CUBIN, r.CUBIN)
			require.Equal(t, before+1, compiles.Load())
			st := c.Stats()
			require.Equal(t, int64(1), st.Corrupt)
			require.Equal(t, int64(1), st.Misses)
			require.Equal(t, int64(1), st.Writes)
			fixed, err := os.ReadFile(path)
			require.NoError(t, err)
			_, err = decodeEntry(fixed, key(1))
			require.NoError(t, err, "the rebuilt entry is whole")
		})
	}

	// Compile errors are returned and not cached.
	c3 := OpenCache(t.TempDir())
	boom := errors.E(errors.Compilation, "nvrtc", "compile", "bad")
	_, err = c3.Do(key(9), func() (*Result, error) { return nil, boom })
	require.ErrorIs(t, err, boom)
	_, err = c3.Do(key(9), func() (*Result, error) { return sampleResult(9), nil })
	require.NoError(t, err)
	st := c3.Stats()
	require.Equal(t, int64(2), st.Compiles)
	require.Equal(t, int64(1), st.CompileErrors)

	// ForgetMemory makes the next request read the disk.
	c3.ForgetMemory()
	r, err = c3.Do(key(9), compile(9))
	require.NoError(t, err)
	require.True(t, r.Cached)
	require.Equal(t, int64(1), c3.Stats().DiskHits)
}

func TestCacheUnwritable(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocker, nil, 0o644))
	c := OpenCache(blocker) // its nvrtc subdirectory cannot be created
	r, err := c.Do(key(1), func() (*Result, error) { return sampleResult(1), nil })
	require.NoError(t, err, "a cache that cannot write still compiles")
	require.NotNil(t, r)
	require.Equal(t, int64(1), c.Stats().WriteErrors)
}

// TestCacheConcurrency: many goroutines on one Cache compile each key once;
// several Caches on one directory (as processes would) all get whole,
// correct entries.
func TestCacheConcurrency(t *testing.T) {
	dir := t.TempDir()
	const caches, goroutines, keys = 6, 16, 8
	var compiles atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, caches*goroutines)
	for ci := 0; ci < caches; ci++ {
		c := OpenCache(dir)
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for round := 0; round < 3; round++ {
					for k := 0; k < keys; k++ {
						i := (k + g) % keys
						r, err := c.Do(key(i), func() (*Result, error) {
							compiles.Add(1)
							time.Sleep(time.Millisecond)
							return sampleResult(i), nil
						})
						if err != nil {
							errs <- err
							return
						}
						if !bytes.Equal(r.CUBIN, sampleResult(i).CUBIN) {
							errs <- fmt.Errorf("key %d: wrong CUBIN", i)
							return
						}
					}
					if round == 1 {
						c.ForgetMemory() // read the disk while others write it
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.LessOrEqual(t, compiles.Load(), int64(caches*keys), "each cache compiles each key at most once")
	entries, err := os.ReadDir(filepath.Join(dir, "nvrtc"))
	require.NoError(t, err)
	require.Len(t, entries, keys, "no temporary files are left behind")
	for i := 0; i < keys; i++ {
		data, err := os.ReadFile(filepath.Join(dir, "nvrtc", key(i)+".bin"))
		require.NoError(t, err)
		_, err = decodeEntry(data, key(i))
		require.NoError(t, err)
	}
}

// TestCacheProcesses runs real processes that hammer one cache directory.
func TestCacheProcesses(t *testing.T) {
	if os.Getenv("NVRTC_CACHE_HELPER_DIR") != "" {
		cacheHelper(t)
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	const procs = 6
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*bytes.Buffer, procs)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCacheProcesses$", "-test.count=1")
		cmd.Env = append(os.Environ(), "NVRTC_CACHE_HELPER_DIR="+dir, "NVRTC_CACHE_HELPER_ID="+strconv.Itoa(i))
		outs[i] = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		require.NoError(t, cmd.Start())
		cmds[i] = cmd
	}
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), "helper %d:\n%s", i, outs[i])
	}
	for i := 0; i < 8; i++ {
		data, err := os.ReadFile(filepath.Join(dir, "nvrtc", key(i)+".bin"))
		require.NoError(t, err)
		_, err = decodeEntry(data, key(i))
		require.NoError(t, err)
	}
}

func cacheHelper(t *testing.T) {
	dir := os.Getenv("NVRTC_CACHE_HELPER_DIR")
	for round := 0; round < 20; round++ {
		c := OpenCache(dir)
		for i := 0; i < 8; i++ {
			r, err := c.Do(key(i), func() (*Result, error) { return sampleResult(i), nil })
			require.NoError(t, err)
			require.Equal(t, sampleResult(i).CUBIN, r.CUBIN)
			require.Zero(t, c.Stats().Corrupt, "a reader never sees a partial entry")
		}
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv(EnvCacheDir, "/x/y")
	require.Equal(t, "/x/y", DefaultCacheDir())
	require.Equal(t, filepath.Join("/x/y", "nvrtc"), OpenCache("").Dir())
	t.Setenv(EnvCacheDir, "")
	require.True(t, strings.HasSuffix(DefaultCacheDir(), "anygpu") || strings.HasSuffix(DefaultCacheDir(), "anygpu-cache"))
}
