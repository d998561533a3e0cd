package gpu_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	gpuerrors "github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/profiling"
)

// Two devices doing strictly sequential work share the profiler's one time
// axis: in Start order their records are the order the work was issued in,
// and none overlaps the next.
func TestProfilerOneTimeAxis(t *testing.T) {
	ctx := context.Background()
	p := profiling.New()
	devs, err := gpu.OpenAll(ctx, gpu.WithBackends("test-ok"), gpu.WithProfiler(p))
	require.NoError(t, err)
	defer func() { require.NoError(t, gpu.CloseAll(devs)) }()
	require.Len(t, devs, 2)

	type op struct {
		kind   profiling.Kind
		device string
	}
	var issued []op
	data := make([]byte, 64<<10)
	for range 3 {
		for _, d := range devs {
			b, err := d.Alloc(int64(len(data)))
			require.NoError(t, err)
			s := d.DefaultStream()
			require.NoError(t, s.Write(b, 0, data))
			require.NoError(t, s.Fill(b, 0, int64(len(data)), 7))
			require.NoError(t, s.Read(data, b, 0))
			require.NoError(t, s.Synchronize(ctx))
			require.NoError(t, b.Close())
			for _, k := range []profiling.Kind{profiling.KindAlloc, profiling.KindH2D, profiling.KindFill, profiling.KindD2H} {
				issued = append(issued, op{k, d.Name()})
			}
		}
	}
	devs[0].Profiler()
	recs := devs[1].Profiler().Records()
	require.Len(t, recs, len(issued))
	for i, r := range recs {
		assert.Equal(t, issued[i], op{r.Kind, r.Device}, "record %d", i)
		if i > 0 {
			prev := recs[i-1]
			assert.LessOrEqual(t, prev.End, r.Start, "%s on %s overlaps %s on %s", prev.Kind, prev.Device, r.Kind, r.Device)
		}
	}
	assert.LessOrEqual(t, recs[len(recs)-1].End, p.Elapsed())

	// The Chrome trace puts every event on a named, positive thread.
	var trace bytes.Buffer
	require.NoError(t, p.WriteChromeTrace(&trace))
	var doc struct {
		TraceEvents []struct {
			Name string `json:"name"`
			Ph   string `json:"ph"`
			Tid  int    `json:"tid"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(trace.Bytes(), &doc))
	names := map[string]bool{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			assert.Positive(t, e.Tid, e.Name)
		}
		names[e.Name] = true
	}
	assert.True(t, names["thread_name"])
}

// ProfileNative is how package collective records its collectives.
func TestStreamProfileNative(t *testing.T) {
	ctx := context.Background()
	p := profiling.New()
	dev, err := gpu.Open(ctx, gpu.WithBackends("cpu"), gpu.WithProfiler(p))
	require.NoError(t, err)
	defer dev.Close()
	s, err := dev.NewStream()
	require.NoError(t, err)

	ran := 0
	require.NoError(t, s.ProfileNative(profiling.KindCollective, "all-reduce", 1024, func() error { ran++; return nil }))
	errNative := errors.New("ncclSystemError")
	require.ErrorIs(t, s.ProfileNative(profiling.KindCollective, "broadcast", 8, func() error { ran++; return errNative }), errNative)
	require.Equal(t, 2, ran)
	require.NoError(t, s.Synchronize(ctx))

	recs := dev.Profiler().Records()
	require.Len(t, recs, 1, "a failed enqueue is not recorded")
	r := recs[0]
	assert.Equal(t, profiling.KindCollective, r.Kind)
	assert.Equal(t, "all-reduce", r.Name)
	assert.Equal(t, "cpu:0", r.Device)
	assert.Equal(t, s.ID(), r.Stream)
	assert.Equal(t, int64(1024), r.Bytes)
	assert.LessOrEqual(t, r.Start, r.End)
	assert.LessOrEqual(t, r.End, p.Elapsed())

	cases := []struct {
		name    string
		s       *gpu.Stream
		enqueue func() error
		want    gpuerrors.Category
	}{
		{"nil stream", nil, func() error { return nil }, gpuerrors.InvalidArgument},
		{"nil enqueue", s, nil, gpuerrors.InvalidArgument},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.s.ProfileNative(profiling.KindCollective, "x", 0, c.enqueue)
			assert.True(t, gpuerrors.Is(err, c.want), "%v", err)
		})
	}
	require.NoError(t, s.Close())
	err = s.ProfileNative(profiling.KindCollective, "x", 0, func() error { t.Error("ran on a closed stream"); return nil })
	assert.True(t, gpuerrors.Is(err, gpuerrors.Closed), "%v", err)

	// Without a profiler it only runs enqueue.
	plain, err := gpu.Open(ctx, gpu.WithBackends("cpu"))
	require.NoError(t, err)
	defer plain.Close()
	require.NoError(t, plain.DefaultStream().ProfileNative(profiling.KindCollective, "x", 0, func() error { ran++; return nil }))
	assert.Equal(t, 3, ran)
	assert.Nil(t, plain.Profiler())
}

func TestStatsString(t *testing.T) {
	cases := []struct {
		name string
		s    gpu.Stats
		want string
	}{
		{"zero", gpu.Stats{}, "no transfers, launches 0, allocs 0, frees 0, live 0 B, peak 0 B"},
		{"busy", gpu.Stats{
			Transfers:      gpu.TransferCounts{H2D: gpu.Transfer{Count: 3, Bytes: 12 << 20}, D2H: gpu.Transfer{Count: 2, Bytes: 8 << 20}, Fill: gpu.Transfer{Count: 1, Bytes: 4096}},
			KernelLaunches: 10, Allocations: 5, Frees: 3, HostAllocations: 2, LiveBytes: 4 << 20, PeakBytes: 8 << 20,
			Fallbacks: 1, OOMRetries: 2, Errors: 3,
			Pool:     gpu.PoolStats{Hits: 8, Misses: 2},
			HostPool: gpu.PoolStats{Hits: 1, Misses: 1},
		}, "h2d 3 (12.0 MiB), d2h 2 (8.0 MiB), fill 1 (4.0 KiB), launches 10, allocs 5, frees 3, host allocs 2, live 4.0 MiB, peak 8.0 MiB, " +
			"pool hits 80% (8/10), host pool hits 50% (1/2), fallbacks 1, oom retries 2, errors 3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.want, c.s.String()) })
	}

	dev, err := gpu.Open(context.Background(), gpu.WithBackends("cpu"))
	require.NoError(t, err)
	defer dev.Close()
	b, err := dev.Alloc(1 << 20)
	require.NoError(t, err)
	require.NoError(t, dev.DefaultStream().Write(b, 0, make([]byte, 1024)))
	assert.Equal(t, fmt.Sprint(dev.Stats()), dev.Stats().String())
	assert.Contains(t, dev.Stats().String(), "h2d 1 (1.0 KiB), launches 0, allocs 1, frees 0, live 1.0 MiB")
}
