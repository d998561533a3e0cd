//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"sync"

	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
)

// slabSize is the size of a staging slab; writes and reads of Go slices move
// through slabs in pieces of at most this size.
const slabSize = 8 << 20

// maxFreeSlabs is how many idle slabs a device keeps for reuse.
const maxFreeSlabs = 8

// slab is a host-visible staging buffer. A stream carves regions from its
// current slab; each batch that used it holds a reference, so the slab is
// reused only when the stream has moved on and those batches are retired.
type slab struct {
	vb   *vkBuffer
	refs int    // the stream holding it as current + the batches using it
	head uint64 // next free byte
}

type slabPool struct {
	d    *device
	mu   sync.Mutex
	free []*slab
}

// get returns an empty slab with one reference. d.mu is held.
func (p *slabPool) get() (*slab, error) {
	p.mu.Lock()
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		s.refs, s.head = 1, 0
		return s, nil
	}
	p.mu.Unlock()
	vb, err := p.d.newVkBuffer(p.d.hostMem, slabSize, hostUsage)
	if err != nil {
		return nil, err
	}
	return &slab{vb: vb, refs: 1}, nil
}

// unref drops a reference; the last one returns the slab. d.mu is held.
func (p *slabPool) unref(s *slab) {
	s.refs--
	if s.refs > 0 {
		return
	}
	p.mu.Lock()
	if len(p.free) < maxFreeSlabs {
		p.free = append(p.free, s)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	s.vb.destroy(p.d)
}

func (p *slabPool) destroy() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.free {
		s.vb.destroy(p.d)
	}
	p.free = nil
}

// querySlot is one timestamp query.
type querySlot struct {
	pool uint64
	idx  uint32
}

// queryPool hands out timestamp queries from VkQueryPools of queriesPerPool.
type queryPool struct {
	d     *device
	mu    sync.Mutex
	pools []uint64
	free  []querySlot
}

const queriesPerPool = 512

// get returns a free query. d.mu is held.
func (p *queryPool) get() (querySlot, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) == 0 {
		info := vk.QueryPoolCreateInfo{SType: vk.StructureTypeQueryPoolCreateInfo, QueryType: vk.QueryTypeTimestamp, QueryCount: queriesPerPool}
		h, r := p.d.vd.CreateQueryPool(&info)
		if r != vk.Success {
			return querySlot{}, p.d.check(r, "create query pool")
		}
		p.pools = append(p.pools, h)
		for i := uint32(queriesPerPool); i > 0; i-- {
			p.free = append(p.free, querySlot{h, i - 1})
		}
	}
	q := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	if p.d.hostReset {
		p.d.vd.ResetQueryPool(q.pool, q.idx, 1)
	}
	return q, nil
}

func (p *queryPool) put(q querySlot) {
	p.mu.Lock()
	p.free = append(p.free, q)
	p.mu.Unlock()
}

func (p *queryPool) destroy() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.pools {
		p.d.vd.DestroyQueryPool(h)
	}
	p.pools, p.free = nil, nil
}
