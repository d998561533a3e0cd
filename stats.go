package gpu

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/anygpu/gpu/internal/units"
)

// Transfer counts operations of one direction and the bytes they moved.
type Transfer struct {
	Count int64 `json:"count"`
	Bytes int64 `json:"bytes"`
}

// TransferCounts is the transfer ledger of a buffer or a device.
type TransferCounts struct {
	H2D  Transfer `json:"h2d"`  // host to device
	D2H  Transfer `json:"d2h"`  // device to host
	D2D  Transfer `json:"d2d"`  // within the device
	Peer Transfer `json:"peer"` // from another device
	Fill Transfer `json:"fill"`
}

type transferKind int

const (
	kindH2D transferKind = iota
	kindD2H
	kindD2D
	kindPeer
	kindFill
	numTransferKinds
)

// transferCounters counts operations and bytes per transferKind.
type transferCounters [numTransferKinds]struct{ count, bytes atomic.Int64 }

func (t *transferCounters) add(kind transferKind, n int64) {
	t[kind].count.Add(1)
	t[kind].bytes.Add(n)
}

func (t *transferCounters) get(kind transferKind) Transfer {
	return Transfer{Count: t[kind].count.Load(), Bytes: t[kind].bytes.Load()}
}

func (t *transferCounters) snapshot() TransferCounts {
	return TransferCounts{
		H2D: t.get(kindH2D), D2H: t.get(kindD2H), D2D: t.get(kindD2D), Peer: t.get(kindPeer), Fill: t.get(kindFill),
	}
}

// Stats is a device's ledger: transfers, launches, allocations, memory, pools.
type Stats struct {
	Transfers      TransferCounts `json:"transfers"`
	KernelLaunches int64          `json:"kernel_launches"`
	// GraphLaunches counts Graph.Launch calls; the kernel launches and
	// matrix products each replays are in KernelLaunches too.
	GraphLaunches   int64     `json:"graph_launches"`
	Allocations     int64     `json:"allocations"`      // device buffers allocated
	Frees           int64     `json:"frees"`            // device buffers closed
	HostAllocations int64     `json:"host_allocations"` // host buffers allocated
	LiveBytes       int64     `json:"live_bytes"`       // bytes in open device buffers (as requested)
	PeakBytes       int64     `json:"peak_bytes"`       // highest LiveBytes seen
	Fallbacks       int64     `json:"fallbacks"`        // operations that took a slower path (peer copies staged through the host)
	OOMRetries      int64     `json:"oom_retries"`      // allocations retried after trimming the pools
	Errors          int       `json:"errors"`           // errors returned by the device's objects
	Pool            PoolStats `json:"pool"`
	HostPool        PoolStats `json:"host_pool"`
}

type counters struct {
	transfers                         transferCounters
	allocs, frees, hostAllocs         atomic.Int64
	live, peak, fallbacks, oomRetries atomic.Int64
}

func (c *counters) alloc(size int64) {
	c.allocs.Add(1)
	live := c.live.Add(size)
	for {
		peak := c.peak.Load()
		if live <= peak || c.peak.CompareAndSwap(peak, live) {
			return
		}
	}
}

func (c *counters) free(size int64) {
	c.frees.Add(1)
	c.live.Add(-size)
}

// Stats returns the device's ledger.
func (d *Device) Stats() Stats {
	if d == nil {
		return Stats{}
	}
	c := &d.stats
	return Stats{
		Transfers:       c.transfers.snapshot(),
		KernelLaunches:  d.launches.Load(),
		GraphLaunches:   d.graphLaunches.Load(),
		Allocations:     c.allocs.Load(),
		Frees:           c.frees.Load(),
		HostAllocations: c.hostAllocs.Load(),
		LiveBytes:       c.live.Load(),
		PeakBytes:       c.peak.Load(),
		Fallbacks:       c.fallbacks.Load(),
		OOMRetries:      c.oomRetries.Load(),
		Errors:          d.history.Snapshot().Total,
		Pool:            d.pool.Stats(),
		HostPool:        d.hostPool.Stats(),
	}
}

// String is a one-line summary of the ledger, for logs:
//
//	h2d 3 (12.0 MiB), d2h 2 (8.0 MiB), launches 10, allocs 5, frees 3, live 4.0 MiB, peak 8.0 MiB, pool hits 80% (8/10)
//
// Transfer directions without operations are left out ("no transfers" when
// there were none), and so are host allocations, each pool's hit rate,
// fallbacks, out-of-memory retries and errors while they are zero.
func (s Stats) String() string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	for _, t := range []struct {
		name string
		t    Transfer
	}{{"h2d", s.Transfers.H2D}, {"d2h", s.Transfers.D2H}, {"d2d", s.Transfers.D2D}, {"peer", s.Transfers.Peer}, {"fill", s.Transfers.Fill}} {
		if t.t.Count > 0 {
			add("%s %d (%s)", t.name, t.t.Count, units.ByteSize(t.t.Bytes))
		}
	}
	if len(parts) == 0 {
		add("no transfers")
	}
	add("launches %d, allocs %d, frees %d", s.KernelLaunches, s.Allocations, s.Frees)
	if s.GraphLaunches > 0 {
		add("graph launches %d", s.GraphLaunches)
	}
	if s.HostAllocations > 0 {
		add("host allocs %d", s.HostAllocations)
	}
	add("live %s, peak %s", units.ByteSize(s.LiveBytes), units.ByteSize(s.PeakBytes))
	for _, p := range []struct {
		name string
		p    PoolStats
	}{{"pool", s.Pool}, {"host pool", s.HostPool}} {
		if n := p.p.Hits + p.p.Misses; n > 0 {
			add("%s hits %.0f%% (%d/%d)", p.name, 100*p.p.HitRate(), p.p.Hits, n)
		}
	}
	for _, c := range []struct {
		name string
		n    int64
	}{{"fallbacks", s.Fallbacks}, {"oom retries", s.OOMRetries}, {"errors", int64(s.Errors)}} {
		if c.n > 0 {
			add("%s %d", c.name, c.n)
		}
	}
	return strings.Join(parts, ", ")
}
