//go:build linux

package opengl_test

import (
	"fmt"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/opengl"
	"github.com/stretchr/testify/require"
)

// TestCopy copies ranges within the device, aligned (the copy shader's
// bulk plus a glCopyBufferSubData tail) and not, with the shader and with
// the driver's copy, on OpenGL and OpenGL ES; the destination's bytes around
// each range keep their fill, and a launch after the copies binds its own
// buffers again.
func TestCopy(t *testing.T) {
	const size = 4<<20 + 4096
	cases := []struct {
		srcOff, dstOff, n int64
	}{
		{0, 0, 16},
		{0, 0, 17},
		{256, 512, 4096 + 12},
		{4, 8, 1000},
		{7, 3, 65537},
		{0, 256, 3<<20 + 5},
		{1024, 0, 4 << 20},
	}
	for _, api := range []opengl.API{opengl.APIGL, opengl.APIGLES} {
		for _, mode := range []string{"shader", "driver"} {
			t.Run(fmt.Sprintf("%v/%s", api, mode), func(t *testing.T) {
				t.Setenv(opengl.EnvCopy, mode)
				dev := openAPI(t, api)
				st := dev.DefaultStream()
				src, err := dev.Alloc(size)
				require.NoError(t, err)
				defer src.Close()
				dst, err := dev.Alloc(size)
				require.NoError(t, err)
				defer dst.Close()
				data := randomBytes(3, size)
				require.NoError(t, st.Write(src, 0, data))
				for _, c := range cases {
					require.NoError(t, st.Fill(dst, 0, size, 0xC3C3C3C3))
					require.NoError(t, st.Copy(dst, c.dstOff, src, c.srcOff, c.n))
					got := make([]byte, size)
					require.NoError(t, st.Read(got, dst, 0))
					require.NoError(t, st.Synchronize(ctx(t)))
					want := make([]byte, size)
					for i := range want {
						want[i] = 0xC3
					}
					copy(want[c.dstOff:], data[c.srcOff:c.srcOff+c.n])
					require.Equal(t, want, got, "%+v", c)
				}
				k := compile(t, dev, gpu.Source{Name: "inc", GLSL: "#version 430\nlayout(local_size_x = 64) in;\n" +
					"layout(std430, binding = 0) buffer B { uint b[]; };\nvoid main() { b[gl_GlobalInvocationID.x] += 1u; }\n"})
				require.NoError(t, st.Fill(dst, 0, size, 0))
				require.NoError(t, st.Copy(dst, 0, src, 0, 64))
				require.NoError(t, st.Launch(k, gpu.D1(size/4/64), gpu.D1(64), gpu.Buf(src)))
				words, err := gpu.ToSlice[uint32](ctx(t), src)
				require.NoError(t, err)
				for i, w := range words[:1024] {
					require.Equal(t, uint32(data[4*i])|uint32(data[4*i+1])<<8|uint32(data[4*i+2])<<16|uint32(data[4*i+3])<<24+1, w, "word %d", i)
				}
			})
		}
	}
}
