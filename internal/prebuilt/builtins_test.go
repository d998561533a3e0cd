package prebuilt_test

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/fakenvrtc"
	"github.com/anygpu/gpu/internal/prebuilt"
	"github.com/anygpu/gpu/internal/testreq"
	"github.com/anygpu/gpu/kernels"
	"github.com/anygpu/gpu/nvrtc"
	"github.com/stretchr/testify/require"
)

// program is one built-in CUDA text as the CUDA backend compiles it with no
// options.
type program struct {
	origin string // the functions that return it ("kernels.Source")
	src    backend.Source
	key    string
}

// builtinPrograms are the distinct CUDA texts of the built-in kernels, by key.
func builtinPrograms() []program {
	var out []program
	for _, b := range []struct {
		origin string
		src    backend.Source
	}{{"kernels.Source", kernels.Source()}} {
		key := prebuilt.Key(b.src.CUDA, prebuilt.NVRTCOptions(b.src, backend.CompileOptions{}, nil))
		if i := slices.IndexFunc(out, func(p program) bool { return p.key == key }); i >= 0 {
			out[i].origin += ", " + b.origin
			continue
		}
		out = append(out, program{origin: b.origin, src: b.src, key: key})
	}
	return out
}

// TestBuiltinsPrebuilt checks that every built-in CUDA text, as it is now,
// has prebuilt images in the shipped set. A missing one (a kernel changed
// since the last regeneration) compiles with NVRTC on first use: that fails
// where ANYGPU_TEST_REQUIRE names cuda (the GPU machine, which can
// regenerate), and is logged elsewhere (CI cannot regenerate).
func TestBuiltinsPrebuilt(t *testing.T) {
	set, err := prebuilt.Shipped()
	require.NoError(t, err, "the shipped set must read")
	report := t.Logf
	if testreq.Required("cuda") {
		report = t.Errorf
	}
	progs := builtinPrograms()
	require.NotEmpty(t, progs)
	known := map[string]bool{}
	for _, p := range progs {
		known[p.key] = true
		if ok, why := prebuilt.Eligible(p.src.CUDA, prebuilt.NVRTCOptions(p.src, backend.CompileOptions{}, nil)); !ok {
			report("built-in CUDA of %s cannot be prebuilt (%s): it compiles with NVRTC on first use", p.origin, why)
			continue
		}
		targets := set.Targets(p.key)
		if len(targets) == 0 {
			report("built-in CUDA of %s (key %.12s) has no prebuilt images for its current text: it compiles with NVRTC on first use; "+
				"regenerate the set on the GPU machine (package doc of internal/prebuilt)", p.origin, p.key)
			continue
		}
		t.Logf("%s: prebuilt for %s", p.origin, strings.Join(targets, ", "))
	}
	for _, e := range set.Entries() {
		if !known[e.Key] {
			t.Logf("the shipped set has %s %s (%s), which no built-in compiles to any more: regenerating drops it", e.Program, e.Target, e.Origin)
		}
	}
}

// TestRegenerateOverFakeNVRTC runs the regeneration with the fake NVRTC
// (whose "CUBIN" and "PTX" are the source text, and which offers every
// default target but sm_100): every built-in program gets an image per
// default target the NVRTC offers, each reading back as what NVRTC returned.
func TestRegenerateOverFakeNVRTC(t *testing.T) {
	nv, err := fakenvrtc.Build(t.TempDir())
	if err != nil {
		t.Skipf("cannot build the fake NVRTC: %v", err)
	}
	t.Setenv(nvrtc.EnvLibrary, nv)
	t.Setenv(envTargets, "")
	dir := t.TempDir()
	regenerate(t, dir)
	set, err := prebuilt.Open(os.DirFS(dir))
	require.NoError(t, err)
	progs := builtinPrograms()
	offered := slices.DeleteFunc(slices.Clone(prebuilt.DefaultTargets), func(s string) bool { return s == "sm_100" })
	slices.Sort(offered)
	require.Equal(t, len(progs)*len(offered), set.Len())
	for _, p := range progs {
		require.Equal(t, offered, set.Targets(p.key), p.origin)
		ims := set.Images(p.key, 9, 0, 99000)
		require.Equal(t, []string{"sm_90", "compute_75"}, []string{ims[0].Entry().Target, ims[1].Entry().Target})
		for _, im := range ims {
			data, err := im.Bytes()
			require.NoError(t, err)
			require.True(t, bytes.HasPrefix(data, []byte(p.src.CUDA)), "%s %s is the fake NVRTC's output for the text", p.origin, im)
			require.Equal(t, "99.0", im.Entry().NVRTC)
			require.Equal(t, p.origin, im.Entry().Origin)
		}
	}
	// An explicit list replaces the default one.
	t.Setenv(envTargets, "sm_90, compute_75")
	dir2 := t.TempDir()
	regenerate(t, dir2)
	set2, err := prebuilt.Open(os.DirFS(dir2))
	require.NoError(t, err)
	require.Equal(t, []string{"compute_75", "sm_90"}, set2.Targets(progs[0].key))
}
