//go:build linux

package cuda

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/internal/dl"
)

// TestSynchronizeContext waits on the async fake's queue with contexts that
// can end: Synchronize returns once the queue has drained, and returns the
// context's error while it is held, without waiting for it.
func TestSynchronizeContext(t *testing.T) {
	lib, path := buildAsyncFakePath(t)
	d := &device{lib: lib, ord: &ordinalState{}, buffers: map[*buffer]struct{}{}, streams: map[*stream]struct{}{}, hosts: map[*hostBuffer]struct{}{}}
	s := newStream(d, 0)
	h, err := dl.Open(path, dl.Now)
	require.NoError(t, err)
	hold := dl.Sym(h, "fake_hold")
	require.NotZero(t, hold, "fake_hold")
	const n = 4 << 20
	p, r := lib.MemAlloc(n)
	require.Equal(t, cu.Success, r)
	defer lib.MemFree(p)
	buf := &buffer{dev: d, ptr: p, size: n}
	data := bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7}, n/7)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	require.NoError(t, s.Write(buf, 0, data))
	require.NoError(t, s.Synchronize(ctx), "a live context: returns when the queue has drained")
	got := make([]byte, len(data))
	require.NoError(t, s.Read(got, buf, 0))
	require.NoError(t, s.Synchronize(ctx))
	require.Equal(t, data, got)

	purego.SyscallN(hold, 1)
	defer purego.SyscallN(hold, 0)
	require.NoError(t, s.Write(buf, 0, data[:directMax])) // a direct, asynchronous copy: stays queued
	short, cancelShort := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancelShort()
	start := time.Now()
	err = s.Synchronize(short)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 5*time.Second, "returns when the context ends, not when the work does")
	purego.SyscallN(hold, 0)
	require.NoError(t, s.Synchronize(context.Background()))
}
