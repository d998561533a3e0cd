package gpu

import (
	"math/bits"
	"sync"

	"github.com/anygpu/gpu/backend"
)

// PoolConfig shapes a memory pool. Requests up to MaxBlock are rounded up to
// a power-of-two size class (at least MinBlock) and served from freed blocks
// of that class when there are any; larger requests bypass the pool. Freed
// blocks are kept while the pool holds at most MaxPoolBytes of them.
type PoolConfig struct {
	MinBlock     int64 // smallest size class
	MaxBlock     int64 // largest pooled size class; bigger requests are not pooled
	MaxPoolBytes int64 // most bytes of free blocks kept for reuse; 0 disables pooling
	// Preallocate fills the pool when the device opens: one block of every
	// size class, as far as MaxPoolBytes allows.
	Preallocate bool
}

// Pool presets.
var (
	// DefaultPool suits most programs: a 256 MiB cap, classes 64 KiB..64 MiB.
	DefaultPool = PoolConfig{MinBlock: 64 << 10, MaxBlock: 64 << 20, MaxPoolBytes: 256 << 20}
	// HighThroughputPool keeps more and larger blocks, allocated up front.
	HighThroughputPool = PoolConfig{MinBlock: 1 << 20, MaxBlock: 256 << 20, MaxPoolBytes: 512 << 20, Preallocate: true}
	// LowMemoryPool keeps little memory cached.
	LowMemoryPool = PoolConfig{MinBlock: 16 << 10, MaxBlock: 16 << 20, MaxPoolBytes: 64 << 20}
	// NoPool allocates and frees every buffer directly.
	NoPool = PoolConfig{}
	// DefaultHostPool pools pinned staging memory: 4 MiB chunks are the
	// common request.
	DefaultHostPool = PoolConfig{MinBlock: 64 << 10, MaxBlock: 64 << 20, MaxPoolBytes: 256 << 20}
)

// devicePool is the pool a device gets without WithPool: DefaultPool, with
// its largest class and its cap raised on a discrete GPU to 1/128 and 1/32
// of the device's memory (at most 1 GiB and 4 GiB: on an H200, classes up
// to 1 GiB and 4 GiB kept). A tensor of 8192×4096 float32 is 128 MiB: past
// DefaultPool's 64 MiB class every such op allocated and freed its result
// through the driver, and cuMemFree waits for the device (an add took
// 373 µs there against 80 µs for the same op in bfloat16).
func devicePool(info DeviceInfo) PoolConfig {
	c := DefaultPool
	if info.Type != backend.TypeDiscreteGPU || info.MemoryBytes <= 0 {
		return c
	}
	c.MaxBlock = max(c.MaxBlock, min(info.MemoryBytes/128, 1<<30))
	c.MaxPoolBytes = max(c.MaxPoolBytes, min(info.MemoryBytes/32, 4<<30))
	return c
}

// PoolStats counts what a pool did.
type PoolStats struct {
	Available int64 `json:"available"`  // bytes in free blocks, ready for reuse
	InUse     int64 `json:"in_use"`     // bytes in pooled blocks handed out
	PoolBytes int64 `json:"pool_bytes"` // Available + InUse
	Hits      int64 `json:"hits"`       // requests served from a free block
	Misses    int64 `json:"misses"`     // pooled requests that had to allocate
	Bypassed  int64 `json:"bypassed"`   // requests too large for the pool
	Returns   int64 `json:"returns"`    // blocks given back and kept
	Drops     int64 `json:"drops"`      // blocks given back and freed (pool full)
	Trims     int64 `json:"trims"`      // Trim calls, including those after out-of-memory
}

// HitRate is Hits / (Hits + Misses), 0 with no pooled requests.
func (s PoolStats) HitRate() float64 {
	if s.Hits+s.Misses == 0 {
		return 0
	}
	return float64(s.Hits) / float64(s.Hits+s.Misses)
}

type closer interface{ Close() error }

// Pool caches freed device or host memory blocks by size class. It is safe
// for concurrent use.
type Pool struct {
	cfg   PoolConfig
	alloc func(int64) (closer, error)

	mu    sync.Mutex
	free  map[int64][]closer
	stats PoolStats
}

func newPool(cfg PoolConfig, alloc func(int64) (closer, error)) *Pool {
	if cfg.MinBlock <= 0 {
		cfg.MinBlock = 1
	}
	return &Pool{cfg: cfg, alloc: alloc, free: map[int64][]closer{}}
}

// Config returns the pool's configuration (the zero PoolConfig for a nil
// pool).
func (p *Pool) Config() PoolConfig {
	if p == nil {
		return PoolConfig{}
	}
	return p.cfg
}

// Stats returns the pool's counters (zero for a nil pool).
func (p *Pool) Stats() PoolStats {
	if p == nil {
		return PoolStats{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.PoolBytes = s.Available + s.InUse
	return s
}

// class is the size class for size, or 0 when size bypasses the pool.
func (p *Pool) class(size int64) int64 {
	if p.cfg.MaxPoolBytes <= 0 || size > p.cfg.MaxBlock {
		return 0
	}
	c := int64(1) << bits.Len64(uint64(size-1))
	if c < p.cfg.MinBlock {
		c = p.cfg.MinBlock
	}
	if c > p.cfg.MaxBlock { // MaxBlock not a power of two
		return 0
	}
	return c
}

// get returns a block of at least size bytes and its class (0: not pooled).
func (p *Pool) get(size int64) (closer, int64, error) {
	class := p.class(size)
	if class == 0 {
		b, err := p.alloc(size)
		if err == nil {
			p.mu.Lock()
			p.stats.Bypassed++
			p.mu.Unlock()
		}
		return b, 0, err
	}
	p.mu.Lock()
	if list := p.free[class]; len(list) > 0 {
		b := list[len(list)-1]
		list[len(list)-1] = nil
		p.free[class] = list[:len(list)-1]
		p.stats.Hits++
		p.stats.Available -= class
		p.stats.InUse += class
		p.mu.Unlock()
		return b, class, nil
	}
	p.stats.Misses++
	p.mu.Unlock()
	b, err := p.alloc(class)
	if err != nil {
		return nil, 0, err
	}
	p.mu.Lock()
	p.stats.InUse += class
	p.mu.Unlock()
	return b, class, nil
}

// put gives a block back: kept for reuse while the pool has room, else freed.
func (p *Pool) put(b closer, class int64) error {
	if class == 0 {
		return b.Close()
	}
	p.mu.Lock()
	p.stats.InUse -= class
	if p.stats.Available+class <= p.cfg.MaxPoolBytes {
		p.free[class] = append(p.free[class], b)
		p.stats.Available += class
		p.stats.Returns++
		p.mu.Unlock()
		return nil
	}
	p.stats.Drops++
	p.mu.Unlock()
	return b.Close()
}

// Trim frees every cached block (nothing, for a nil pool).
func (p *Pool) Trim() {
	if p == nil {
		return
	}
	p.mu.Lock()
	free := p.free
	p.free = map[int64][]closer{}
	p.stats.Available = 0
	p.stats.Trims++
	p.mu.Unlock()
	for _, list := range free {
		for _, b := range list {
			_ = b.Close()
		}
	}
}

// preallocate fills the pool with one block per class, smallest first, as far
// as MaxPoolBytes allows.
func (p *Pool) preallocate() error {
	if !p.cfg.Preallocate || p.cfg.MaxPoolBytes <= 0 {
		return nil
	}
	var total int64
	for class := p.class(p.cfg.MinBlock); class != 0 && class <= p.cfg.MaxBlock; class *= 2 {
		if total+class > p.cfg.MaxPoolBytes {
			break
		}
		b, err := p.alloc(class)
		if err != nil {
			return err
		}
		total += class
		p.mu.Lock()
		p.free[class] = append(p.free[class], b)
		p.stats.Available += class
		p.mu.Unlock()
	}
	return nil
}
