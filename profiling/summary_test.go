package profiling

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const us, ms = time.Microsecond, time.Millisecond

// fixedRecords is a known workload:
//   - kernel "saxpy": 5 launches of 5, 1, 4, 2, 3 us (no bytes)
//   - h2d (no name): 20 copies of 1..20 ms, 1e6 bytes each
//   - d2h (no name): 1 copy of 1 ms, 2e6 bytes
//   - kernel "gemm": 100 us and 300 us
func fixedRecords() []Record {
	var recs []Record
	t := time.Duration(0)
	add := func(r Record, d time.Duration) {
		r.Start, r.End = t, t+d
		t += d + us
		recs = append(recs, r)
	}
	for _, d := range []time.Duration{5, 1, 4, 2, 3} {
		add(Record{Kind: KindKernel, Name: "saxpy", Device: "cuda:0", Grid: dim(4096), Block: dim(256), Occupancy: 1}, d*us)
	}
	for i := 1; i <= 20; i++ {
		add(Record{Kind: KindH2D, Device: "cuda:0", Stream: i % 2, Bytes: 1e6}, time.Duration(i)*ms)
	}
	add(Record{Kind: KindD2H, Device: "cuda:0", Bytes: 2e6}, ms)
	add(Record{Kind: KindKernel, Name: "gemm", Device: "cuda:0", Stream: 3, Grid: dim(64), Block: dim(128), Occupancy: 0.5}, 300*us)
	add(Record{Kind: KindKernel, Name: "gemm", Device: "cuda:0", Stream: 3, Grid: dim(64), Block: dim(128), Occupancy: 0.5}, 100*us)
	return recs
}

func TestSummarize(t *testing.T) {
	recs := fixedRecords()
	orig := slices.Clone(recs)
	got := Summarize(recs)
	assert.Equal(t, orig, recs, "Summarize must not modify its input")

	want := []Summary{
		// total 1+..+20 = 210 ms; mean 10.5 ms; p50 = d[ceil(0.5*20)-1] = d[9] = 10 ms;
		// p95 = d[ceil(0.95*20)-1] = d[18] = 19 ms; 20e6 B / 0.21 s = 0.0952... GB/s.
		{Kind: KindH2D, Count: 20, Total: 210 * ms, Min: ms, Max: 20 * ms, Mean: 10500 * us,
			P50: 10 * ms, P95: 19 * ms, Bytes: 20e6, GBps: 20e6 / 0.21 / 1e9},
		// one 1 ms copy of 2e6 B = 2 GB/s.
		{Kind: KindD2H, Count: 1, Total: ms, Min: ms, Max: ms, Mean: ms, P50: ms, P95: ms, Bytes: 2e6, GBps: 2},
		// 100 + 300 us: p50 = d[ceil(1)-1] = 100 us, p95 = d[ceil(1.9)-1] = 300 us.
		{Kind: KindKernel, Name: "gemm", Count: 2, Total: 400 * us, Min: 100 * us, Max: 300 * us, Mean: 200 * us,
			P50: 100 * us, P95: 300 * us},
		// 1..5 us: total 15, mean 3, p50 = d[ceil(2.5)-1] = d[2] = 3 us, p95 = d[ceil(4.75)-1] = d[4] = 5 us.
		{Kind: KindKernel, Name: "saxpy", Count: 5, Total: 15 * us, Min: us, Max: 5 * us, Mean: 3 * us,
			P50: 3 * us, P95: 5 * us},
	}
	require.Len(t, got, len(want))
	for i := range want {
		assert.InDelta(t, want[i].GBps, got[i].GBps, 1e-12, "%s GBps", want[i].Label())
		want[i].GBps, got[i].GBps = 0, 0
		assert.Equal(t, want[i], got[i], "summary %d", i)
	}

	p := New()
	for _, r := range recs {
		p.Add(r)
	}
	assert.Equal(t, Summarize(recs), p.Summaries())
}

func TestSummarizeEdgeCases(t *testing.T) {
	assert.Empty(t, Summarize(nil))
	// Same kind, one named and one not: two groups. Equal totals sort by kind, then name.
	got := Summarize([]Record{
		{Kind: KindKernel, Name: "b", End: 10},
		{Kind: KindKernel, End: 10},
		{Kind: KindFill, End: 10, Bytes: 100},
		{Kind: KindKernel, Name: "a", End: 10},
	})
	require.Len(t, got, 4)
	assert.Equal(t, []string{"fill", "kernel", "a", "b"},
		[]string{got[0].Label(), got[1].Label(), got[2].Label(), got[3].Label()})
	// Zero time: no GB/s even with bytes.
	got = Summarize([]Record{{Kind: KindH2D, Bytes: 1 << 20}})
	assert.Zero(t, got[0].GBps)
	assert.Equal(t, int64(1<<20), got[0].Bytes)
}

func TestNearestRank(t *testing.T) {
	seq := func(n int) []time.Duration {
		d := make([]time.Duration, n)
		for i := range d {
			d[i] = time.Duration(i + 1)
		}
		return d
	}
	cases := []struct {
		n, p int
		want time.Duration
	}{
		{1, 50, 1}, {1, 95, 1},
		{2, 50, 1}, {2, 95, 2},
		{4, 50, 2},   // ceil(2) = 2
		{5, 50, 3},   // ceil(2.5) = 3
		{10, 95, 10}, // ceil(9.5) = 10
		{20, 95, 19}, // ceil(19) = 19
		{100, 95, 95},
		{101, 50, 51}, // ceil(50.5) = 51
	}
	for _, c := range cases {
		assert.Equal(t, c.want, nearestRank(seq(c.n), c.p), "n=%d p=%d", c.n, c.p)
	}
}
