package profiling

import (
	"slices"
	"strings"
	"time"
)

// Summary aggregates the records of one (Kind, Name) pair. Records with an
// empty Name are grouped under their Kind alone (all h2d copies together).
//
// Percentiles use the nearest-rank method on the sorted durations d[0..n-1]:
// the p-th percentile is d[ceil(p/100*n)-1], so P50 of 4 values is the 2nd
// smallest and P95 of 20 values is the 19th. Every percentile is one of the
// measured durations; nothing is interpolated.
type Summary struct {
	Kind  Kind
	Name  string
	Count int

	Total, Min, Max time.Duration
	Mean            time.Duration // Total / Count, truncated to the nanosecond
	P50, P95        time.Duration // nearest-rank percentiles

	Bytes int64   // sum of the records' Bytes
	GBps  float64 // Bytes / Total in 1e9 bytes per second; 0 when Bytes or Total is 0, and for allocations, compilations and ranges, which move no data
}

// Label is Name, or the Kind when Name is empty.
func (s Summary) Label() string {
	if s.Name == "" {
		return string(s.Kind)
	}
	return s.Name
}

// Summaries summarizes the profiler's records; see Summarize.
func (p *Profiler) Summaries() []Summary {
	return Summarize(p.Records())
}

// Summarize groups records by (Kind, Name) and returns one Summary per group,
// sorted by Total descending (ties by Kind, then Name). It does not modify
// records.
func Summarize(records []Record) []Summary {
	type key struct {
		kind Kind
		name string
	}
	groups := map[key][]time.Duration{}
	bytes := map[key]int64{}
	var order []key
	for _, r := range records {
		k := key{r.Kind, r.Name}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r.Duration())
		bytes[k] += r.Bytes
	}
	out := make([]Summary, 0, len(order))
	for _, k := range order {
		d := groups[k]
		slices.Sort(d)
		var total time.Duration
		for _, v := range d {
			total += v
		}
		s := Summary{
			Kind:  k.kind,
			Name:  k.name,
			Count: len(d),
			Total: total,
			Min:   d[0],
			Max:   d[len(d)-1],
			Mean:  total / time.Duration(len(d)),
			P50:   nearestRank(d, 50),
			P95:   nearestRank(d, 95),
			Bytes: bytes[k],
		}
		if s.Bytes > 0 && total > 0 && k.kind.movesData() {
			s.GBps = float64(s.Bytes) / total.Seconds() / 1e9
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Summary) int {
		switch {
		case a.Total > b.Total:
			return -1
		case a.Total < b.Total:
			return 1
		}
		if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// nearestRank returns the p-th percentile (0 < p <= 100) of the sorted,
// non-empty d by the nearest-rank method: d[ceil(p*n/100)-1].
func nearestRank(d []time.Duration, p int) time.Duration {
	n := len(d)
	rank := (p*n + 99) / 100 // ceil(p*n/100) in integers
	if rank < 1 {
		rank = 1
	}
	if rank > n {
		rank = n
	}
	return d[rank-1]
}
