package errors_test

import (
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/errors"
)

// numbered returns n distinct errors, cycling through three categories.
func numbered(n int) []error {
	cats := []errors.Category{errors.OutOfMemory, errors.Launch, errors.Execution}
	out := make([]error, n)
	for i := range out {
		out[i] = errors.E(cats[i%len(cats)], "test", "op", "error %d", i)
	}
	return out
}

func recentErrs(h errors.History) []error {
	out := make([]error, len(h.Recent))
	for i, e := range h.Recent {
		out[i] = e.Err
	}
	return out
}

func TestRecorderEmpty(t *testing.T) {
	var r errors.Recorder
	h := r.Snapshot()
	assert.Empty(t, h.Recent)
	assert.Zero(t, h.Total)
	assert.Empty(t, h.Counts)
	assert.Zero(t, h.Count(errors.OutOfMemory))
	assert.NoError(t, r.Record(nil), "nil is ignored")
	assert.Zero(t, r.Snapshot().Total)
}

func TestRecorderRecordReturnsErr(t *testing.T) {
	var r errors.Recorder
	err := errors.FromCUDA(2, "alloc")
	assert.Same(t, err, r.Record(err))
	h := r.Snapshot()
	require.Len(t, h.Recent, 1)
	assert.Same(t, err, h.Recent[0].Err)
	assert.Equal(t, errors.OutOfMemory, h.Recent[0].Category)
	assert.False(t, h.Recent[0].Time.IsZero())
}

func TestRecorderRing(t *testing.T) {
	tests := []struct {
		depth, n int
		want     []int // indexes into numbered(n) expected in Recent, oldest first
	}{
		{depth: 3, n: 0, want: []int{}},
		{depth: 3, n: 2, want: []int{0, 1}},
		{depth: 3, n: 3, want: []int{0, 1, 2}},
		{depth: 3, n: 4, want: []int{1, 2, 3}},
		{depth: 3, n: 5, want: []int{2, 3, 4}},
		{depth: 3, n: 6, want: []int{3, 4, 5}},
		{depth: 3, n: 10, want: []int{7, 8, 9}},
		{depth: 1, n: 4, want: []int{3}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("depth %d, %d errors", tt.depth, tt.n), func(t *testing.T) {
			r := errors.Recorder{Depth: tt.depth}
			errs := numbered(tt.n)
			for _, err := range errs {
				r.Record(err)
			}
			want := make([]error, len(tt.want))
			for i, k := range tt.want {
				want[i] = errs[k]
			}
			h := r.Snapshot()
			assert.Equal(t, want, recentErrs(h), "oldest first")
			assert.Equal(t, tt.n, h.Total)
		})
	}
}

func TestRecorderDefaultDepth(t *testing.T) {
	var r errors.Recorder
	errs := numbered(errors.DefaultHistoryDepth + 5)
	for _, err := range errs {
		r.Record(err)
	}
	h := r.Snapshot()
	require.Len(t, h.Recent, errors.DefaultHistoryDepth)
	assert.Equal(t, errs[5:], recentErrs(h))
	assert.Equal(t, len(errs), h.Total)
}

func TestRecorderDepthFixedAtFirstRecord(t *testing.T) {
	r := errors.Recorder{Depth: 4}
	errs := numbered(7)
	for _, err := range errs[:5] {
		r.Record(err)
	}
	r.Depth = 2 // too late: ignored
	for _, err := range errs[5:] {
		r.Record(err)
	}
	assert.Equal(t, errs[3:], recentErrs(r.Snapshot()))
}

func TestRecorderCounts(t *testing.T) {
	r := errors.Recorder{Depth: 2}
	r.Record(errors.FromCUDA(2, "alloc"))
	r.Record(errors.FromCUDA(2, "alloc"))
	r.Record(errors.FromCUDA(700, "sync"))
	r.Record(fmt.Errorf("x: %w", errors.FromNVRTC(6, "compile")))
	r.Record(io.EOF)
	r.Record(nil)
	h := r.Snapshot()
	assert.Equal(t, 5, h.Total)
	assert.Len(t, h.Recent, 2, "counts cover more than the ring")
	assert.Equal(t, map[errors.Category]int{
		errors.OutOfMemory: 2,
		errors.Execution:   1,
		errors.Compilation: 1,
		errors.Internal:    1,
	}, h.Counts)
	assert.Equal(t, 2, h.Count(errors.OutOfMemory))
	assert.Zero(t, h.Count(errors.Timeout))
}

func TestRecorderSnapshotIsACopy(t *testing.T) {
	var r errors.Recorder
	r.Record(errors.FromCUDA(2, "alloc"))
	h := r.Snapshot()
	h.Recent[0].Err = io.EOF
	h.Counts[errors.OutOfMemory] = 99
	h2 := r.Snapshot()
	assert.NotEqual(t, io.EOF, h2.Recent[0].Err)
	assert.Equal(t, 1, h2.Count(errors.OutOfMemory))
}

func TestRecorderConcurrent(t *testing.T) {
	const goroutines, per = 8, 500
	r := errors.Recorder{Depth: 16}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cat := errors.Categories()[g%4]
			for i := range per {
				r.Record(errors.E(cat, "test", "op", "g%d #%d", g, i))
				if i%50 == 0 {
					_ = r.Snapshot()
				}
			}
		}()
	}
	wg.Wait()
	h := r.Snapshot()
	assert.Equal(t, goroutines*per, h.Total)
	assert.Len(t, h.Recent, 16)
	sum := 0
	for c, n := range h.Counts {
		assert.Equal(t, goroutines/4*per, n, "count of %v", c)
		sum += n
	}
	assert.Equal(t, h.Total, sum)
	for i := 1; i < len(h.Recent); i++ {
		assert.False(t, h.Recent[i].Time.Before(h.Recent[i-1].Time), "oldest first")
	}
}
