//go:build cgo

package webgpu

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/oliverbestmann/webgpu/wgpu"
)

// addWGSL adds k to words [0, n) of y.
const addWGSL = `
struct P { n: u32, k: u32, grid: vec4<u32>, block: vec4<u32> }
@group(0) @binding(0) var<storage, read_write> y: array<u32>;
@group(0) @binding(1) var<uniform> p: P;

@compute @workgroup_size(64)
fn add(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x < p.n) { y[gid.x] = y[gid.x] + p.k; }
}
`

func addKernel(t *testing.T, d *device) (backend.Module, backend.Kernel) {
	t.Helper()
	m, err := d.Compile(context.Background(), backend.Source{
		Name: "add", WGSL: addWGSL,
		Params: map[string][]backend.ArgKind{"add": {backend.ArgBuffer, backend.ArgU32, backend.ArgU32}},
	}, backend.CompileOptions{})
	require.NoError(t, err)
	k, err := m.Kernel("add")
	require.NoError(t, err)
	return m, k
}

func addArgs(b backend.Buffer, n int, k uint32) []backend.Arg {
	return []backend.Arg{{Kind: backend.ArgBuffer, Buffer: b}, {Kind: backend.ArgU32, Bits: uint64(n)}, {Kind: backend.ArgU32, Bits: uint64(k)}}
}

func readWords(t *testing.T, s backend.Stream, b backend.Buffer, n int) []uint32 {
	t.Helper()
	raw := make([]byte, 4*n)
	require.NoError(t, s.Read(raw, b, 0))
	require.NoError(t, s.Synchronize(context.Background()))
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	return out
}

// TestBatchedLaunches interleaves launches (repeated and varying scalars,
// two streams) with fills, writes, copies and a bad launch, which fails
// alone: the work around it lands, in order.
func TestBatchedLaunches(t *testing.T) {
	d := openInternal(t)
	m, k := addKernel(t, d)
	defer m.Close()
	const n = 1000
	var streams [2]backend.Stream
	for i := range streams {
		s, err := d.NewStream()
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		streams[i] = s
	}
	s1, s2 := streams[0], streams[1]
	a, err := d.Alloc(4 * n)
	require.NoError(t, err)
	defer a.Close()
	b, err := d.Alloc(4 * n)
	require.NoError(t, err)
	defer b.Close()
	grid, block := backend.Dim3{X: (n + 63) / 64}, backend.Dim3{X: 64}
	want := uint32(0)
	require.NoError(t, s1.Fill(a, 0, 4*n, 5))
	want = 5
	for i := 0; i < 300; i++ {
		kk := uint32(1)
		if i%3 == 0 {
			kk = uint32(i)
		}
		s := s1
		if i%2 == 1 {
			s = s2
		}
		require.NoError(t, s.Launch(k, grid, block, addArgs(a, n, kk)))
		want += kk
		switch i % 50 {
		case 10:
			// A bad launch (no scalars: no uniform) fails from Launch.
			err := s.Launch(k, grid, block, addArgs(a, n, 1)[:1])
			require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
		case 20:
			require.NoError(t, s.Copy(b, 0, a, 0, 4*n))
			require.NoError(t, s.Launch(k, grid, block, addArgs(b, n, 7)))
			require.NoError(t, s.Copy(a, 0, b, 0, 4*n))
			want += 7
		case 30:
			w := make([]byte, 4*n)
			for j := 0; j < n; j++ {
				binary.LittleEndian.PutUint32(w[4*j:], want+uint32(j))
			}
			require.NoError(t, s.Write(a, 0, w))
		case 40:
			require.NoError(t, s.Fill(a, 0, 4*n, want))
		}
	}
	require.NoError(t, s2.Synchronize(context.Background()))
	got := readWords(t, s1, a, n)
	// The last fill (i = 290) made every word want less the launches after
	// it, which want counts.
	for j := range got {
		require.Equal(t, want, got[j], "word %d", j)
	}
}

// TestBindGroupCache checks that repeated launches share a bind group and
// that closing a buffer or a module drops the bind groups holding it.
func TestBindGroupCache(t *testing.T) {
	d := openInternal(t)
	m, k := addKernel(t, d)
	s, err := d.NewStream()
	require.NoError(t, err)
	defer s.Close()
	a, err := d.Alloc(256)
	require.NoError(t, err)
	b, err := d.Alloc(256)
	require.NoError(t, err)
	defer b.Close()
	grid, block := backend.Dim3{X: 1}, backend.Dim3{X: 64}
	for i := 0; i < 10; i++ {
		require.NoError(t, s.Launch(k, grid, block, addArgs(a, 64, 2)))
	}
	require.NoError(t, s.Launch(k, grid, block, addArgs(b, 64, 3)))
	require.Equal(t, []uint32{20, 20}, readWords(t, s, a, 2))
	holding := func(buf backend.Buffer) int {
		d.mu.Lock()
		defer d.mu.Unlock()
		c := 0
		d.cachedBindGroupsLocked(func(e *bgEntry) {
			for _, x := range e.entries {
				if x.Buffer == buf.(*buffer).buf {
					c++
				}
			}
		})
		return c
	}
	require.Equal(t, 1, holding(a), "ten launches with the same arguments share one bind group")
	require.Equal(t, 1, holding(b))
	require.NoError(t, a.Close())
	require.Equal(t, 0, holding(a))
	require.NoError(t, m.Close())
	require.Equal(t, 0, holding(b))
}

// TestSalvagedBatch records a dispatch that validation would have refused
// (one buffer bound read-only and read-write) straight into the shared
// pass, followed by a good launch of another stream: when the pass fails,
// the good launch is recorded again and lands; only the bad dispatch's
// stream gets the error.
func TestSalvagedBatch(t *testing.T) {
	d := openInternal(t)
	m, k := addKernel(t, d)
	defer m.Close()
	cm, err := d.Compile(context.Background(), backend.Source{Name: "conflict", WGSL: `
@group(0) @binding(0) var<storage, read> x: array<u32>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(64)
fn conflict(@builtin(global_invocation_id) gid: vec3<u32>) {
	if (gid.x < arrayLength(&y)) { y[gid.x] = x[gid.x]; }
}
`, Params: map[string][]backend.ArgKind{"conflict": {backend.ArgBuffer, backend.ArgBuffer}}}, backend.CompileOptions{})
	require.NoError(t, err)
	defer cm.Close()
	ck, err := cm.Kernel("conflict")
	require.NoError(t, err)
	good, err := d.NewStream()
	require.NoError(t, err)
	defer good.Close()
	bad, err := d.NewStream()
	require.NoError(t, err)
	defer bad.Close()
	const n = 256
	a, err := d.Alloc(4 * n)
	require.NoError(t, err)
	defer a.Close()
	b, err := d.Alloc(4 * n)
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, good.Fill(a, 0, 4*n, 0))
	grid, block := backend.Dim3{X: n / 64}, backend.Dim3{X: 64}
	require.NoError(t, good.Launch(k, grid, block, addArgs(a, n, 1)))

	kern, buf := ck.(*kernel), b.(*buffer)
	d.mu.Lock()
	bg, err := d.dev.TryCreateBindGroup(&wgpu.BindGroupDescriptor{Layout: kern.layout, Entries: []wgpu.BindGroupEntry{
		{Binding: 0, Buffer: buf.buf, Size: buf.alloc}, {Binding: 1, Buffer: buf.buf, Size: buf.alloc},
	}})
	if err == nil {
		// Into the shared pass (opened for it if the first launch went
		// already), where the next launch joins it.
		err = d.recordLocked(recorded{s: bad.(*stream), op: "launch conflict", vcat: errors.InvalidArgument, pipe: kern.pipe, bg: bg, x: 1, y: 1, z: 1})
		d.touchLocked(bad.(*stream))
	}
	d.mu.Unlock()
	require.NoError(t, err)
	defer bg.Release()

	require.NoError(t, good.Launch(k, grid, block, addArgs(a, n, 2)))
	require.NoError(t, good.Synchronize(context.Background()))
	for i, v := range readWords(t, good, a, n) {
		require.Equal(t, uint32(3), v, "word %d: the good launches land", i)
	}
	err = bad.Synchronize(context.Background())
	require.Equal(t, errors.InvalidArgument, errors.CategoryOf(err), "%v", err)
	require.Contains(t, err.Error(), "conflicting usages")
}

// TestParamsArena checks the parameter arena: a block repeated in a later
// submission keeps its place (and its launch its bind group), and launches
// with more distinct blocks than the arena holds, in submissions of
// several sizes, all land with their own scalars as the arena starts over.
func TestParamsArena(t *testing.T) {
	defer func(old int) { arenaSize = old }(arenaSize)
	arenaSize = 4 << 10
	d := openInternal(t)
	m, k := addKernel(t, d)
	defer m.Close()
	s, err := d.NewStream()
	require.NoError(t, err)
	defer s.Close()
	grid, block := backend.Dim3{X: 1}, backend.Dim3{X: 64}

	a, err := d.Alloc(256)
	require.NoError(t, err)
	defer a.Close()
	require.NoError(t, s.Fill(a, 0, 256, 0))
	places := func() (int, int) {
		d.mu.Lock()
		defer d.mu.Unlock()
		groups := 0
		d.cachedBindGroupsLocked(func(*bgEntry) { groups++ })
		return len(d.paramAt), groups
	}
	require.NoError(t, s.Launch(k, grid, block, addArgs(a, 64, 5)))
	require.NoError(t, s.Synchronize(context.Background()))
	p1, g1 := places()
	require.NoError(t, s.Launch(k, grid, block, addArgs(a, 64, 5)))
	require.NoError(t, s.Synchronize(context.Background()))
	p2, g2 := places()
	require.Equal(t, []uint32{10, 10}, readWords(t, s, a, 2))
	require.Equal(t, p1, p2, "the repeated block keeps its place")
	require.Equal(t, g1, g2, "the repeated launch keeps its bind group")

	slots := arenaSize / d.uniformAlign
	for _, tc := range []struct {
		name     string
		launches int
		syncEach int // launches between Synchronizes; 0: one at the end
	}{
		{"one submission", 3 * slots, 0},
		{"synchronized", 3 * slots, 7},
		{"one per launch", slots + 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := d.Alloc(256)
			require.NoError(t, err)
			defer b.Close()
			require.NoError(t, s.Fill(b, 0, 256, 0))
			var want uint32
			for i := range tc.launches {
				v := uint32(1000 + i) // every launch a block of its own
				want += v
				require.NoError(t, s.Launch(k, grid, block, addArgs(b, 64, v)))
				if tc.syncEach > 0 && i%tc.syncEach == 0 {
					require.NoError(t, s.Synchronize(context.Background()))
				}
			}
			got := readWords(t, s, b, 64)
			for i, w := range got {
				require.Equal(t, want, w, "word %d", i)
			}
		})
	}
}
