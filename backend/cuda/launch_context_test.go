//go:build linux

package cuda

import (
	"context"
	"encoding/binary"
	"math"
	"runtime"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/internal/dl"
	"github.com/anygpu/gpu/kernels"
)

// TestLaunchForeignContext checks what the optimistic launch (stream.Launch
// calls cuLaunchKernel before binding the context) relies on: when the
// calling thread has no context, or another context, a launch either fails
// with an error that rebind recognizes and enqueues nothing, or runs on the
// stream's own context; and Launch then binds and succeeds, with no sticky
// error left behind.
func TestLaunchForeignContext(t *testing.T) {
	d := openRaw(t)
	ctx := context.Background()
	m, err := d.Compile(ctx, kernels.Source(), backend.CompileOptions{})
	require.NoError(t, err)
	kk, err := m.Kernel(kernels.OpFill)
	require.NoError(t, err)
	k := kk.(*kernel)
	bs, err := d.NewStream()
	require.NoError(t, err)
	s := bs.(*stream)
	defer s.Close()
	y, err := d.Alloc(4)
	require.NoError(t, err)
	defer y.Close()

	lib, err := dl.Open("libcuda.so.1", dl.Now)
	require.NoError(t, err)
	ctxCreate, ctxDestroy := dl.Sym(lib, "cuCtxCreate_v2"), dl.Sym(lib, "cuCtxDestroy_v2")
	require.NotZero(t, ctxCreate, "cuCtxCreate_v2")
	require.NotZero(t, ctxDestroy, "cuCtxDestroy_v2")

	value := func() float32 {
		var b [4]byte
		require.NoError(t, s.Read(b[:], y, 0))
		require.NoError(t, s.Synchronize(ctx))
		return math.Float32frombits(binary.LittleEndian.Uint32(b[:]))
	}
	set := func(v float32) {
		require.NoError(t, s.Write(y, 0, binary.LittleEndian.AppendUint32(nil, math.Float32bits(v))))
		require.NoError(t, s.Synchronize(ctx))
	}
	fill := func(v float32) []backend.Arg {
		return []backend.Arg{{Kind: backend.ArgBuffer, Buffer: y}, {Kind: backend.ArgU32, Bits: 1}, {Kind: backend.ArgF32, Bits: uint64(math.Float32bits(v))}}
	}
	one := backend.Dim3{X: 1, Y: 1, Z: 1}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fr := cu.NewFrame()
	var foreign uintptr
	r, _, _ := purego.SyscallN(ctxCreate, uintptr(unsafe.Pointer(&foreign)), 0, uintptr(d.dev))
	require.Zero(t, r, "cuCtxCreate")
	defer func() {
		_, _, _ = purego.SyscallN(ctxDestroy, foreign)
	}()

	for _, tc := range []struct {
		name    string
		current cu.Context
	}{{"no context", 0}, {"another context", cu.Context(foreign)}} {
		// The bare driver call, as the optimistic path makes it.
		set(0)
		require.Equal(t, cu.Success, d.lib.CtxSetCurrent(fr, tc.current), tc.name)
		require.NoError(t, s.params.pack(fill(7), k), tc.name)
		rr := d.lib.LaunchKernel(fr, k.fn, 1, 1, 1, 1, 1, 1, 0, s.h, unsafe.Pointer(&s.params.ptrs[0]))
		t.Logf("%s: cuLaunchKernel on the stream of another context gives %v", tc.name, rr)
		if rr == cu.Success {
			require.Equal(t, float32(7), value(), "%s: a launch that succeeds runs on the stream", tc.name)
		} else {
			require.True(t, rebind(rr), "%s: %v must be an error rebind recognizes", tc.name, rr)
			require.Equal(t, float32(0), value(), "%s: a failed launch enqueues nothing", tc.name)
		}
		// Launch itself: binds and succeeds.
		require.Equal(t, cu.Success, d.lib.CtxSetCurrent(fr, tc.current), tc.name)
		require.NoError(t, s.Launch(k, one, one, fill(9)), tc.name)
		require.Equal(t, float32(9), value(), tc.name)
		cur, _ := d.lib.CtxGetCurrent(cu.NewFrame())
		require.Equal(t, d.ctx, cur, "%s: Launch leaves the device's context current", tc.name)
		require.False(t, d.broken(), tc.name)
	}
}
