package profiling

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProfilerConcurrentAdd(t *testing.T) {
	p := New()
	const writers, each = 8, 1000
	var wg sync.WaitGroup
	stop := make(chan struct{})
	readerDone := make(chan struct{})
	go func() { // readers race with the writers
		defer close(readerDone)
		for {
			select {
			case <-stop:
				return
			default:
				_ = p.Records()
				_ = p.Len()
				_ = p.Summaries()
			}
		}
	}()
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				p.Add(Record{Kind: KindKernel, Name: "k", Device: "cpu:0", Stream: w,
					Start: time.Duration(i), End: time.Duration(i + 10)})
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	<-readerDone
	require.Equal(t, writers*each, p.Len())
	s := p.Summaries()
	require.Len(t, s, 1)
	assert.Equal(t, writers*each, s[0].Count)
	assert.Equal(t, time.Duration(writers*each*10), s[0].Total)
}

func TestProfilerRecordsSortedCopy(t *testing.T) {
	p := New()
	p.Add(Record{Name: "c", Start: 30})
	p.Add(Record{Name: "a", Start: 10})
	p.Add(Record{Name: "b1", Start: 20})
	p.Add(Record{Name: "b2", Start: 20}) // same Start: keeps insertion order
	recs := p.Records()
	var names []string
	for _, r := range recs {
		names = append(names, r.Name)
	}
	assert.Equal(t, []string{"a", "b1", "b2", "c"}, names)

	recs[0].Name = "changed" // a copy: the profiler is not affected
	assert.Equal(t, "a", p.Records()[0].Name)
	assert.Equal(t, 4, p.Len())

	p.Reset()
	assert.Equal(t, 0, p.Len())
	assert.Empty(t, p.Records())
	assert.NotNil(t, p.Records())
}

func TestProfilerNil(t *testing.T) {
	var p *Profiler
	assert.NotPanics(t, func() {
		p.Add(Record{Name: "x"})
		p.Reset()
		assert.Equal(t, 0, p.Len())
		assert.Empty(t, p.Records())
		assert.Empty(t, p.Summaries())
		assert.Zero(t, p.Elapsed())
		assert.True(t, p.Epoch().IsZero())
	})
}

func TestProfilerEpoch(t *testing.T) {
	before := time.Now()
	p := New()
	assert.False(t, p.Epoch().Before(before))
	e1 := p.Elapsed()
	time.Sleep(time.Millisecond)
	assert.Greater(t, p.Elapsed(), e1)
}

func TestRecordDuration(t *testing.T) {
	assert.Equal(t, 5*time.Microsecond, Record{Start: time.Microsecond, End: 6 * time.Microsecond}.Duration())
	assert.Equal(t, time.Duration(0), Record{Start: 10, End: 5}.Duration())
}
