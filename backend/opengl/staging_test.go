//go:build linux

package opengl_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend/opengl"
	"github.com/anygpu/gpu/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The staging ring's numbers (staging.go): transfers from 2 MiB are staged,
// in chunks of 4 MiB, through 16 slots.
const (
	stagedMin   = 2 << 20
	stagedChunk = 4 << 20
	stagedSlots = 16
)

// openStaged opens device 0 of api with EnvStaging set to mode.
func openStaged(t *testing.T, api opengl.API, mode string) *gpu.Device {
	t.Helper()
	t.Setenv(opengl.EnvStaging, mode)
	return openAPI(t, api)
}

// randomBytes returns n bytes from a seeded generator.
func randomBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestStagedTransfers writes and reads back ranges around the staging
// thresholds and chunk boundaries, at odd offsets, through the staging ring
// and without it, on OpenGL and OpenGL ES; the bytes around each range keep
// the fill value.
func TestStagedTransfers(t *testing.T) {
	const bufSize = (stagedSlots+3)*stagedChunk + 64
	sizes := []struct {
		name string
		n    int
	}{
		{"below threshold", stagedMin - 1},
		{"threshold", stagedMin},
		{"odd", stagedMin + 3},
		{"one chunk", stagedChunk},
		{"chunk plus one", stagedChunk + 1},
		{"three chunks and a bit", 3*stagedChunk + 5},
		{"more chunks than the ring has", (stagedSlots+3)*stagedChunk + 9},
	}
	for _, api := range []opengl.API{opengl.APIGL, opengl.APIGLES} {
		for _, mode := range []struct{ name, staging, hostCopy string }{
			{"on", "on", "driver"}, {"off", "off", "driver"}, {"on-shader", "on", "shader"},
		} {
			t.Run(fmt.Sprintf("%v/%s", api, mode.name), func(t *testing.T) {
				t.Setenv(opengl.EnvHostCopy, mode.hostCopy)
				dev := openStaged(t, api, mode.staging)
				st := dev.DefaultStream()
				buf, err := dev.Alloc(bufSize)
				require.NoError(t, err)
				defer buf.Close()
				for i, sz := range sizes {
					for _, off := range []int64{0, 7, 60} {
						if off+int64(sz.n) > bufSize {
							continue
						}
						t.Run(fmt.Sprintf("%s/off%d", sz.name, off), func(t *testing.T) {
							require.NoError(t, st.Fill(buf, 0, bufSize, 0x5A5A5A5A))
							src := randomBytes(uint64(i)+uint64(off)<<8, sz.n)
							require.NoError(t, st.Write(buf, off, src))
							clear(src[:16]) // Write is done with src when it returns
							got := make([]byte, sz.n+16)
							lo := max(off-8, 0)
							require.NoError(t, st.Read(got[:min(int64(len(got)), bufSize-lo)], buf, lo))
							require.NoError(t, st.Synchronize(ctx(t)))
							want := randomBytes(uint64(i)+uint64(off)<<8, sz.n)
							pre := int(off - lo)
							for j := range pre {
								require.Equal(t, byte(0x5A), got[j], "byte %d before the range", j)
							}
							require.Equal(t, want, got[pre:pre+sz.n])
							for j := pre + sz.n; j < len(got) && lo+int64(j) < bufSize; j++ {
								require.Equal(t, byte(0x5A), got[j], "byte %d after the range", j)
							}
						})
					}
				}
			})
		}
	}
}

// TestHostBufferTransfers copies between host buffers (AllocHost) and a
// device buffer at odd and aligned offsets and sizes, in both directions,
// with glCopyBufferSubData and with the copy shader (EnvHostCopy), and
// closes a host buffer twice.
func TestHostBufferTransfers(t *testing.T) {
	for _, tc := range []struct {
		api      opengl.API
		hostCopy string
	}{{opengl.APIGL, "driver"}, {opengl.APIGLES, "driver"}, {opengl.APIGL, "shader"}, {opengl.APIGLES, "shader"}} {
		t.Run(fmt.Sprintf("%v/%s", tc.api, tc.hostCopy), func(t *testing.T) {
			t.Setenv(opengl.EnvHostCopy, tc.hostCopy)
			dev := openAPI(t, tc.api)
			st := dev.DefaultStream()
			const n = 5<<20 + 13
			h, err := dev.AllocHost(n)
			require.NoError(t, err)
			out, err := dev.AllocHost(n)
			require.NoError(t, err)
			buf, err := dev.Alloc(n + 32)
			require.NoError(t, err)
			defer buf.Close()
			copy(h.Bytes(), randomBytes(7, n))
			for _, c := range []struct{ hostOff, devOff, n int64 }{
				{0, 0, n}, {3, 17, n - 20}, {1 << 20, 5, 4097}, {n - 1, 0, 1}, {256, 1024, 1<<20 + 16}, {16, 0, n - 29},
			} {
				clear(out.Bytes())
				require.NoError(t, st.WriteHost(buf, c.devOff, h, c.hostOff, c.n))
				require.NoError(t, st.ReadHost(out, c.hostOff, buf, c.devOff, c.n))
				require.NoError(t, st.Synchronize(ctx(t)))
				assert.Equal(t, h.Bytes()[c.hostOff:c.hostOff+c.n], out.Bytes()[c.hostOff:c.hostOff+c.n], "%+v", c)
				assert.Equal(t, make([]byte, c.hostOff), out.Bytes()[:c.hostOff], "bytes before the range, %+v", c)
			}
			require.NoError(t, h.Close())
			require.NoError(t, h.Close())
			require.NoError(t, out.Close())
			requireCategory(t, st.WriteHost(buf, 0, h, 0, 1), errors.Closed)
		})
	}
}

// TestStagedConcurrentStreams runs staged Writes and Reads of several streams
// at once, more than the ring's slots together; each stream gets its own
// data back.
func TestStagedConcurrentStreams(t *testing.T) {
	dev := openStaged(t, opengl.APIGL, "on")
	const streams, n = 3, 7*stagedChunk + 12345
	var wg sync.WaitGroup
	errs := make([]error, streams)
	for i := range streams {
		wg.Go(func() {
			errs[i] = func() error {
				st, err := dev.NewStream()
				if err != nil {
					return err
				}
				defer st.Close()
				buf, err := dev.Alloc(n)
				if err != nil {
					return err
				}
				defer buf.Close()
				for round := range 3 {
					src := randomBytes(uint64(100*i+round), n)
					if err := st.Write(buf, 0, src); err != nil {
						return err
					}
					got := make([]byte, n)
					if err := st.Read(got, buf, 0); err != nil {
						return err
					}
					if err := st.Synchronize(context.Background()); err != nil {
						return err
					}
					for j := range got {
						if got[j] != src[j] {
							return fmt.Errorf("stream %d round %d: byte %d is %#x, want %#x", i, round, j, got[j], src[j])
						}
					}
				}
				return nil
			}()
		})
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "stream %d", i)
	}
}

// TestStagedCancel gives up a Synchronize behind a large staged Write (its
// context already cancelled); the stream stays usable and the data arrives.
func TestStagedCancel(t *testing.T) {
	dev := openStaged(t, opengl.APIGL, "on")
	st := dev.DefaultStream()
	const n = 2 * stagedSlots * stagedChunk
	buf, err := dev.Alloc(n)
	require.NoError(t, err)
	defer buf.Close()
	src := randomBytes(42, n)
	require.NoError(t, st.Write(buf, 0, src))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, st.Write(buf, 0, src)) // the ring's slots are still busy: the Write waits for them
	err = st.Synchronize(cancelled)
	if err != nil { // the fence may already have passed
		require.ErrorIs(t, err, context.Canceled)
	}
	got := make([]byte, n)
	require.NoError(t, st.Read(got, buf, 0))
	require.NoError(t, st.Synchronize(ctx(t)))
	require.Equal(t, src, got)
}
