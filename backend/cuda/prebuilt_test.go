package cuda

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/fakenvrtc"
	"github.com/anygpu/gpu/internal/prebuilt"
	"github.com/anygpu/gpu/nvrtc"
	"github.com/stretchr/testify/require"
)

// TestPrebuiltOverFakes runs Compile over the fake driver and NVRTC with a
// prebuilt set holding the program: the image that suits the GPU loads and
// NVRTC is not even loaded; a miss (another GPU, driver, option, a refused
// image) compiles with NVRTC as before.
func TestPrebuiltOverFakes(t *testing.T) {
	text := fmt.Sprintf("// %s %d\nextern \"C\" __global__ void k(float* x) {}\n", t.Name(), time.Now().UnixNano())
	src := backend.Source{Name: "builtin", CUDA: text}
	key := prebuilt.Key(text, prebuilt.NVRTCOptions(src, backend.CompileOptions{}, nil))
	image := func(target string, refused bool) prebuilt.Compiled {
		body := "// " + target + " image\n.entry k(\n"
		if refused {
			body += "// FAKECUDA_NO_BINARY\n"
		}
		return prebuilt.Compiled{Key: key, Program: src.Name, Origin: "test", Source: text, Target: target, NVRTC: "13.0", Image: []byte(body)}
	}
	usual := []prebuilt.Compiled{image("sm_80", false), image("sm_90", false), image("compute_75", false)}
	for _, tc := range []struct {
		name         string
		images       []prebuilt.Compiled
		env          map[string]string
		opts         backend.CompileOptions
		want         string // Module.Prebuilt; "" = NVRTC compiled it
		nvrtcArch    string // the architecture NVRTC compiled for, when it did
		refusedLoads int
	}{
		{name: "H200: the sm_90 CUBIN", images: usual, want: "sm_90 CUBIN (NVRTC 13.0)"},
		{name: "8.6: the sm_80 CUBIN", images: usual, env: map[string]string{"FAKECUDA_ATTR_75": "8", "FAKECUDA_ATTR_76": "6"},
			want: "sm_80 CUBIN (NVRTC 13.0)"},
		{name: "10.0: the PTX", images: usual, env: map[string]string{"FAKECUDA_ATTR_75": "10", "FAKECUDA_ATTR_76": "0"},
			want: "compute_75 PTX (NVRTC 13.0)"},
		{name: "the driver refuses the CUBIN: the PTX", images: []prebuilt.Compiled{image("sm_90", true), image("compute_75", false)},
			want: "compute_75 PTX (NVRTC 13.0)", refusedLoads: 1},
		{name: "the driver refuses every image: NVRTC", images: []prebuilt.Compiled{image("sm_90", true), image("compute_75", true)},
			nvrtcArch: "sm_90", refusedLoads: 2},
		{name: "7.0, which no image serves: NVRTC", images: usual, env: map[string]string{"FAKECUDA_ATTR_75": "7", "FAKECUDA_ATTR_76": "0"},
			nvrtcArch: "sm_70"},
		{name: "a driver older than the PTX, no CUBIN: NVRTC", images: usual,
			env: map[string]string{"FAKECUDA_ATTR_75": "10", "FAKECUDA_ATTR_76": "0", "FAKECUDA_VERSION": "12080"}, nvrtcArch: "sm_100"},
		{name: "another option: another key, NVRTC", images: usual, opts: backend.CompileOptions{FastMath: true}, nvrtcArch: "sm_90"},
		{name: "a forced architecture: NVRTC", images: usual, opts: backend.CompileOptions{Arch: "sm_80"}, nvrtcArch: "sm_80"},
		{name: "turned off: NVRTC", images: usual, env: map[string]string{EnvPrebuilt: "off"}, nvrtcArch: "sm_90"},
		{name: "an empty set: NVRTC", nvrtcArch: "sm_90"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, prebuilt.Write(filepath.Join(dir, "set"), tc.images))
			set, err := prebuilt.Open(os.DirFS(filepath.Join(dir, "set")))
			require.NoError(t, err)
			t.Cleanup(prebuilt.SetDefault(set))
			cudaLog, nvrtcLog := filepath.Join(dir, "cuda.log"), filepath.Join(dir, "nvrtc.log")
			nv, err := fakenvrtc.Build(dir)
			if err != nil {
				t.Skipf("cannot build the fake NVRTC: %v", err)
			}
			t.Setenv(EnvLibrary, fakeDriver(t))
			t.Setenv(nvrtc.EnvLibrary, nv) // a new path: not loaded yet
			t.Setenv(nvrtc.EnvInclude, dir)
			t.Setenv("FAKECUDA_LOG", cudaLog)
			t.Setenv("FAKENVRTC_LOG", nvrtcLog)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			require.False(t, nvrtc.Loaded())
			ctx := context.Background()
			dev, err := Driver{}.Open(ctx, 0)
			require.NoError(t, err)
			defer dev.Close()
			bm, err := dev.Compile(ctx, src, tc.opts)
			require.NoError(t, err)
			m := bm.(*module)
			require.Equal(t, tc.want, m.Prebuilt())
			_, err = m.Kernel("k")
			require.NoError(t, err)
			require.Len(t, lines(t, cudaLog, "refuse "), tc.refusedLoads)
			require.Len(t, lines(t, cudaLog, "load"), 1, "one module loaded")
			compiles := lines(t, nvrtcLog, "compile")
			if tc.want != "" {
				require.Empty(t, compiles, "no NVRTC run")
				require.False(t, nvrtc.Loaded(), "NVRTC not even loaded")
			} else {
				require.Len(t, compiles, 1)
				require.Contains(t, compiles[0], "--gpu-architecture="+tc.nvrtcArch)
			}

			// The device's module cache keeps the module, and says where its
			// code came from.
			bm2, err := dev.Compile(ctx, src, tc.opts)
			require.NoError(t, err)
			require.Same(t, m.lm, bm2.(*module).lm)
			require.Equal(t, tc.want, bm2.(*module).Prebuilt())
			require.Len(t, lines(t, cudaLog, "load"), 1, "served by the module cache")
			require.NoError(t, bm.Close())
			require.NoError(t, bm2.Close())
		})
	}
}

// TestPrebuiltDamagedImage: an image that fails its checksum is skipped for
// the next one.
func TestPrebuiltDamagedImage(t *testing.T) {
	text := fmt.Sprintf("// %s %d\nextern \"C\" __global__ void k(float* x) {}\n", t.Name(), time.Now().UnixNano())
	src := backend.Source{Name: "builtin", CUDA: text}
	key := prebuilt.Key(text, prebuilt.NVRTCOptions(src, backend.CompileOptions{}, nil))
	dir := t.TempDir()
	images := []prebuilt.Compiled{
		{Key: key, Program: "builtin", Source: text, Target: "sm_90", NVRTC: "13.0", Image: []byte(".entry k(\n// sm_90\n")},
		{Key: key, Program: "builtin", Source: text, Target: "compute_75", NVRTC: "13.0", Image: []byte(".entry k(\n// ptx\n")},
	}
	require.NoError(t, prebuilt.Write(dir, images))
	idx, err := os.ReadFile(filepath.Join(dir, prebuilt.IndexFile))
	require.NoError(t, err)
	set, err := prebuilt.Open(os.DirFS(dir))
	require.NoError(t, err)
	var sm90 prebuilt.Entry
	for _, e := range set.Entries() {
		if e.Target == "sm_90" {
			sm90 = e
		}
	}
	// Swap the sm_90 image's checksum for another: it no longer verifies.
	idx = []byte(strings.ReplaceAll(string(idx), sm90.SHA256, "0000000000000000000000000000000000000000000000000000000000000000"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, prebuilt.IndexFile), idx, 0o644))
	set, err = prebuilt.Open(os.DirFS(dir))
	require.NoError(t, err)
	t.Cleanup(prebuilt.SetDefault(set))
	t.Setenv(EnvLibrary, fakeDriver(t))
	dev, err := Driver{}.Open(context.Background(), 0)
	require.NoError(t, err)
	defer dev.Close()
	m, err := dev.Compile(context.Background(), src, backend.CompileOptions{})
	require.NoError(t, err)
	require.Equal(t, "compute_75 PTX (NVRTC 13.0)", m.(*module).Prebuilt())
	require.NoError(t, m.Close())
}

func TestDocMentionsPrebuilt(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	require.Contains(t, string(b), EnvPrebuilt)
	require.Contains(t, string(b), "internal/prebuilt")
}
