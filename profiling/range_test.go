package profiling

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRangeNested(t *testing.T) {
	p := New()
	endOuter := p.Range("step")
	endInner := p.Range("forward")
	time.Sleep(time.Millisecond)
	endInner()
	endInner() // a second end records nothing
	endOuter()

	recs := p.Records()
	require.Len(t, recs, 2)
	outer, inner := recs[0], recs[1]
	assert.Equal(t, Record{Kind: KindRange, Name: "step", Stream: -1, Start: outer.Start, End: outer.End, HostTimed: true}, outer)
	assert.Equal(t, "forward", inner.Name)
	assert.Equal(t, KindRange, inner.Kind)
	assert.LessOrEqual(t, outer.Start, inner.Start)
	assert.GreaterOrEqual(t, outer.End, inner.End)
	assert.GreaterOrEqual(t, inner.Duration(), time.Millisecond)
	assert.LessOrEqual(t, outer.End, p.Elapsed(), "ranges are on the profiler's host axis")
}

func TestRangeConcurrent(t *testing.T) {
	p := New()
	const goroutines, each = 16, 100
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				end := p.Range("outer")
				p.Range("inner")()
				end()
			}
		})
	}
	wg.Wait()
	sums := p.Summaries()
	require.Len(t, sums, 2)
	for _, s := range sums {
		assert.Equal(t, goroutines*each, s.Count, s.Name)
		assert.Zero(t, s.GBps)
	}
}

func TestRangeNilProfiler(t *testing.T) {
	var p *Profiler
	assert.NotPanics(t, func() { p.Range("x")() })
}
