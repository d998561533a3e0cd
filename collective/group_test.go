package collective

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/profiling"
)

func TestGroupRecordName(t *testing.T) {
	for _, tc := range []struct {
		ops  []string
		want string
	}{
		{[]string{"all-reduce"}, "group: all-reduce"},
		{[]string{"all-reduce", "all-gather"}, "group: all-reduce, all-gather"},
		{[]string{"send", "receive", "send", "receive", "send"}, "group: send ×3, receive ×2"},
	} {
		var g groupRecord
		s := &gpu.Stream{}
		for i, op := range tc.ops {
			g.add(s, op, int64(i+1))
		}
		require.Len(t, g.streams, 1, "one stream, one entry")
		assert.Equal(t, tc.want, g.streams[0].name())
		assert.Equal(t, int64(len(tc.ops)*(len(tc.ops)+1)/2), g.streams[0].bytes, "bytes summed")
	}
}

// openProfiled opens n CPU devices sharing one profiler.
func openProfiled(t *testing.T, n int) ([]*gpu.Device, *profiling.Profiler) {
	t.Helper()
	prof := profiling.New()
	drv, ok := backend.Lookup("cpu")
	require.True(t, ok)
	devs := make([]*gpu.Device, n)
	for i := range devs {
		d, err := gpu.OpenDriver(context.Background(), drv, 0, gpu.WithProfiler(prof))
		require.NoError(t, err)
		t.Cleanup(func() { _ = d.Close() })
		devs[i] = d
	}
	return devs, prof
}

// TestGroupRecordRun: a group's launch (end) runs once, bracketed by every
// stream the group used, so each stream gets one collective record that
// is named after its collectives, on the profile's time axis;
// end's error comes back, and end runs even when a stream cannot be
// bracketed.
func TestGroupRecordRun(t *testing.T) {
	tests := []struct {
		name     string
		endErr   error
		closeOne bool // close the second device's stream before the launch
		records  int
	}{
		{"two streams", nil, false, 2},
		{"launch fails: no record", errors.E(errors.Internal, Backend, "group end", "boom"), false, 0},
		{"a closed stream", nil, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			devs, prof := openProfiled(t, 2)
			var g groupRecord
			g.add(devs[0].DefaultStream(), "all-reduce", 64)
			g.add(devs[1].DefaultStream(), "send", 8)
			g.add(devs[1].DefaultStream(), "receive", 8)
			g.add(devs[0].DefaultStream(), "all-reduce", 64)
			if tt.closeOne {
				require.NoError(t, devs[1].Close())
			}
			calls := 0
			before := prof.Elapsed()
			err := g.run(func() error {
				calls++
				return tt.endErr
			})
			assert.Equal(t, 1, calls, "the group is launched exactly once")
			switch {
			case tt.endErr != nil:
				require.ErrorIs(t, err, tt.endErr)
			case tt.closeOne:
				require.ErrorIs(t, err, errors.Closed, "the stream that could not be bracketed says why")
			default:
				require.NoError(t, err)
			}
			for i, d := range devs {
				if i == 0 || !tt.closeOne {
					require.NoError(t, d.DefaultStream().Synchronize(context.Background()))
				}
				_ = d.Profiler()
			}
			after := prof.Elapsed()
			got := map[string]profiling.Record{}
			for _, r := range prof.Records() {
				require.Equal(t, profiling.KindCollective, r.Kind)
				got[r.Device+"/"+r.Name] = r
			}
			require.Len(t, got, tt.records, "%v", got)
			if tt.records == 0 {
				return
			}
			want := map[string]int64{devs[0].Name() + "/group: all-reduce ×2": 128}
			if !tt.closeOne {
				want[devs[1].Name()+"/group: send, receive"] = 16
			}
			for key, bytes := range want {
				r, ok := got[key]
				require.True(t, ok, "record %s in %v", key, got)
				assert.Equal(t, bytes, r.Bytes)
				// The CPU's events are stamped when its stream reaches them,
				// not around the host's call: only the GPU test can check
				// that the record spans the launch (TestProfiledGroup).
				assert.LessOrEqual(t, before, r.Start, "on the profile's time axis")
				assert.LessOrEqual(t, r.Start, r.End)
				assert.LessOrEqual(t, r.End, after)
			}
		})
	}
}

// TestGroupPerThread: a collective joins the Group under way on its own OS
// thread, and no other; a nested Group records into the outer one.
func TestGroupPerThread(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	require.Nil(t, currentGroup())
	g, outer, done := beginGroup()
	require.True(t, outer)
	require.Same(t, g, currentGroup())

	inner, innerOuter, innerDone := beginGroup()
	assert.False(t, innerOuter, "a nested group is not the outer one")
	assert.Same(t, g, inner, "a nested group records into the outer one")
	innerDone()
	require.Same(t, g, currentGroup(), "the outer group is still under way")

	other := make(chan *groupRecord)
	go func() { other <- currentGroup() }()
	assert.Nil(t, <-other, "another goroutine's collectives are not in this thread's group")

	done()
	assert.Nil(t, currentGroup())
	assert.Zero(t, grouping.Load())
}
