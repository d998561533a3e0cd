//go:build linux

package opengl_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/backendtest"
	"github.com/anygpu/gpu/backend/opengl"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openAPI opens device 0 of the driver for api, or skips the test when there
// is none.
func openAPI(t *testing.T, api opengl.API) *gpu.Device {
	t.Helper()
	drv := opengl.Driver{API: api}
	backendtest.SkipUnlessAvailable(t, drv)
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dev, err := gpu.OpenDriver(c, drv, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

// TestGLESInfo: an OpenGL ES device says so (APIVersion, Extra["api"], its
// name), reports no float64, and differs from the desktop device.
func TestGLESInfo(t *testing.T) {
	es := openAPI(t, opengl.APIGLES).Info()
	t.Logf("%s | %s | %s | %v", es.Name, es.APIVersion, es.DriverVersion, es.Features)
	assert.True(t, strings.HasPrefix(es.APIVersion, "OpenGL ES 3."), es.APIVersion)
	assert.True(t, strings.HasPrefix(es.DriverVersion, "OpenGL ES 3."), es.DriverVersion)
	assert.Equal(t, "gles", es.Extra["api"])
	assert.True(t, strings.HasSuffix(es.Name, " (OpenGL ES)"), es.Name)
	assert.False(t, es.FP64, "GLSL ES has no double")
	assert.Positive(t, es.MaxThreadsPerBlock)
	assert.Positive(t, es.MaxGridDim.X)
	assert.NotEmpty(t, es.Extra["max_storage_block"])

	desk := openAPI(t, opengl.APIGL).Info()
	assert.Equal(t, "gl", desk.Extra["api"])
	assert.True(t, strings.HasSuffix(desk.APIVersion, " core"), desk.APIVersion)
	assert.True(t, desk.FP64)
	assert.NotEqual(t, desk.Name, es.Name)
}

// TestGLESCompile: which text an OpenGL ES device compiles (GLSLES first,
// else GLSL ES derived from GLSL), and how a derived text that GLSL ES
// refuses is reported.
func TestGLESCompile(t *testing.T) {
	dev := openAPI(t, opengl.APIGLES)
	const kernel = "layout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer Out { uint o[]; };\n"
	for _, tc := range []struct {
		name string
		src  gpu.Source
		want []uint32
	}{
		{name: "GLSLES", src: gpu.Source{GLSLES: "#version 310 es\n" + kernel + "void main() { o[0] = 7u; o[1] = uint(GL_ES); }\n"},
			want: []uint32{7, 1}},
		{name: "GLSLES before GLSL", src: gpu.Source{
			GLSL:   "#version 430\n" + kernel + "void main() { o[0] = 9u; o[1] = 9u; }\n",
			GLSLES: "#version 310 es\n" + kernel + "void main() { o[0] = 8u; o[1] = 8u; }\n"},
			want: []uint32{8, 8}},
		{name: "derived from GLSL", src: gpu.Source{GLSL: "#version 430\n" + kernel +
			"shared float s[4];\nvoid main() {\n  s[0] = 2.5;\n  barrier();\n  o[0] = uint(s[0] * 2.0);\n" +
			"#ifdef GL_ES\n  o[1] = 1u;\n#else\n  o[1] = 2u;\n#endif\n}\n"},
			want: []uint32{5, 1}},
		{name: "GLSLES without version", src: gpu.Source{GLSLES: kernel + "void main() { o[0] = 3u; o[1] = 4u; }\n"},
			want: []uint32{3, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.src.Name = "k"
			k := compile(t, dev, tc.src)
			out, err := gpu.AllocSlice[uint32](dev, 2)
			require.NoError(t, err)
			defer out.Close()
			require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(1), gpu.D1(1), gpu.Buf(out)))
			got, err := gpu.ToSlice[uint32](ctx(t), out)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}

	t.Run("derived text GLSL ES refuses", func(t *testing.T) {
		_, err := dev.Compile(ctx(t), gpu.Source{Name: "dbl", GLSL: "#version 430\n" + kernel + "void main() { double d = 1.0; o[0] = uint(d); }\n"})
		requireCategory(t, err, errors.Compilation, "GLSL ES compute shader did not compile")
		require.Contains(t, errors.Hint(err), "derived")
		require.Contains(t, errors.Hint(err), "Source.GLSLES")
		log := errors.LogOf(err)
		t.Logf("log:\n%s", log)
		require.Regexp(t, regexp.MustCompile(`\b0[:(]4\b`), log, "the error is on line 4 of Source.GLSL")
	})
	t.Run("no GLSL of either kind", func(t *testing.T) {
		_, err := dev.Compile(ctx(t), gpu.Source{Name: "w", WGSL: "@compute @workgroup_size(1) fn w() {}"})
		requireCategory(t, err, errors.NotSupported, "Source.GLSLES")
	})
}

// TestGLESOnDesktop: a desktop context with GL_ARB_ES3_1_compatibility
// compiles a source that has only GLSLES; one without refuses it.
func TestGLESOnDesktop(t *testing.T) {
	dev := openAPI(t, opengl.APIGL)
	src := gpu.Source{Name: "k", GLSLES: "#version 310 es\nlayout(local_size_x = 1) in;\n" +
		"layout(std430, binding = 0) buffer Out { uint o[]; };\nvoid main() { o[0] = 11u; }\n"}
	mod, err := dev.Compile(ctx(t), src)
	compatible := false
	for _, f := range dev.Info().Features {
		compatible = compatible || f == "GL_ARB_ES3_1_compatibility"
	}
	if !compatible {
		requireCategory(t, err, errors.NotSupported, "Source.GLSL")
		return
	}
	require.NoError(t, err, "log:\n%s", errors.LogOf(err))
	defer mod.Close()
	k, err := mod.Kernel("k")
	require.NoError(t, err)
	out, err := gpu.AllocSlice[uint32](dev, 1)
	require.NoError(t, err)
	defer out.Close()
	require.NoError(t, dev.DefaultStream().Launch(k, gpu.D1(1), gpu.D1(1), gpu.Buf(out)))
	got, err := gpu.ToSlice[uint32](ctx(t), out)
	require.NoError(t, err)
	assert.Equal(t, []uint32{11}, got)
}

// TestGLESTransfers: reads and fills, which OpenGL ES does by mapping, see
// the work before them and touch only their range.
func TestGLESTransfers(t *testing.T) {
	dev := openAPI(t, opengl.APIGLES)
	st := dev.DefaultStream()
	const n = 1 << 12
	buf, err := gpu.AllocSlice[uint32](dev, n)
	require.NoError(t, err)
	defer buf.Close()
	require.NoError(t, st.Fill(buf, 0, 4*n, 0xAAAAAAAA))
	require.NoError(t, st.Fill(buf, 12, 40, 0x01020304))
	k := compile(t, dev, gpu.Source{Name: "inc", GLSL: "#version 430\nlayout(local_size_x = 64) in;\n" +
		"layout(std430, binding = 0) buffer B { uint b[]; };\nvoid main() { b[gl_GlobalInvocationID.x] += 1u; }\n"})
	require.NoError(t, st.Launch(k, gpu.D1(n/64), gpu.D1(64), gpu.Buf(buf)))
	got := make([]byte, 4*16)
	require.NoError(t, st.Read(got, buf, 8))
	require.NoError(t, st.Synchronize(ctx(t)))
	all, err := gpu.ToSlice[uint32](ctx(t), buf)
	require.NoError(t, err)
	for i, v := range all {
		want := uint32(0xAAAAAAAB)
		if i >= 3 && i < 13 {
			want = 0x01020305
		}
		require.Equal(t, want, v, "word %d", i)
	}
	require.Equal(t, []byte{0xAB, 0xAA, 0xAA, 0xAA, 0x05, 0x03, 0x02, 0x01}, got[:8], "little-endian words 2 and 3")

	start, err := st.Record()
	require.NoError(t, err)
	require.NoError(t, st.Launch(k, gpu.D1(n/64), gpu.D1(64), gpu.Buf(buf)))
	end, err := st.Record()
	require.NoError(t, err)
	require.NoError(t, end.Synchronize(ctx(t)))
	d, err := end.Elapsed(start)
	if errors.Is(err, errors.NotSupported) {
		t.Logf("no timestamps: %v", err)
		return
	}
	require.NoError(t, err)
	require.GreaterOrEqual(t, d, time.Duration(0))
}
