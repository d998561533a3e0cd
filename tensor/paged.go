package tensor

import (
	"math"
	"slices"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// A paged KV cache keeps a layer's keys (or values) for many sequences in one
// page pool, a [pages heads page dim] tensor of a float dtype, as vLLM lays
// it out: position j of a sequence lies at row j%page of page
// table[j/page], where table, the sequence's block table, is an Int32
// tensor [blocks] of page indices (in any order; pages need not be
// contiguous nor the sequence's length a multiple of page). A sequence holds
// up to blocks·page positions. AppendPagedKV scatters new keys or values
// into the pool; PagedAttention reads them through the table. Table entries
// outside 0..pages-1 are the caller's error: AppendPagedKV skips them and
// PagedAttention reads the pool's last page instead (no access leaves the
// pool).

// checkPaged is nil when pool is a usable page pool [pages heads page dim]
// of a float dtype (like's, when like is not nil), contiguous from the start
// of its buffer, and table a block table for it (an Int32 [blocks],
// contiguous); it returns the sequence's capacity, blocks·page.
func checkPaged(op, name string, pool, table, like *Tensor) (int, error) {
	if err := needFloat(op, pool, like); err != nil {
		return 0, err
	}
	if err := table.usable(op); err != nil {
		return 0, err
	}
	if len(pool.shape) != 4 {
		return 0, invalid(op+" "+shapeString(pool.shape), "%s page pool of rank 4 [pages heads page dim]", name)
	}
	if !pool.IsContiguous() || pool.offset != 0 {
		return 0, invalidHint(op+" "+shapeString(pool.shape), "make the pool with Zeros or Empty", "%s page pool is a view", name)
	}
	if pool.shape[0] == 0 || pool.shape[2] == 0 {
		return 0, invalid(op+" "+shapeString(pool.shape), "%s page pool without pages or positions", name)
	}
	if pool.Len() > math.MaxUint32 {
		return 0, notSupported(op+" "+shapeString(pool.shape), "use more pools of fewer pages", "%s page pool of more than 2³² elements", name)
	}
	if table.dtype != Int32 {
		return 0, invalidHint(op+" "+shapeString(table.shape), "Cast the block table to Int32", "block table of dtype %s", table.dtype)
	}
	if len(table.shape) != 1 || !table.IsContiguous() {
		return 0, invalid(op+" "+shapeString(table.shape)+" for "+shapeString(pool.shape), "a contiguous block table [blocks]")
	}
	return table.shape[0] * pool.shape[2], nil
}

// AppendPagedKV writes x, keys or values of shape [n heads dim] for
// positions pos..pos+n-1 of a sequence (any view, as AppendKV's), into pool,
// a page pool [pages heads page dim], through the sequence's block table
// (see the paged KV cache above): pool[table[j/page], h, j%page, d] = x[j-pos,
// h, d]. Positions past the table's blocks·page are an InvalidArgument
// error. x and pool share a float dtype; the elements are copied exactly.
func AppendPagedKV(pool, table, x *Tensor, pos int) error {
	const op = "append paged kv"
	capacity, err := checkPaged(op, "the", pool, table, nil)
	if err != nil {
		return err
	}
	if err := needFloat(op, x, pool); err != nil {
		return err
	}
	if err := sameDevice(op, pool, x, table); err != nil {
		return err
	}
	pages, heads, page, dim := pool.shape[0], pool.shape[1], pool.shape[2], pool.shape[3]
	shapes := shapeString(x.shape) + " into " + shapeString(pool.shape)
	if len(x.shape) != 3 || x.shape[1] != heads || x.shape[2] != dim {
		return invalid(op+" "+shapes, "want [n %d %d]", heads, dim)
	}
	n := x.shape[0]
	if pos < 0 || pos+n > capacity {
		return invalid(op+" "+shapes+" through "+shapeString(table.shape), "positions %d..%d outside the block table's %d", pos, pos+n-1, capacity)
	}
	return appendKV(op, pool, x, kvSource{table: table, heads: heads, ctx: capacity, dim: dim, page: page, pages: pages}, pos, nil)
}

// appendKV launches the appendKV kernel: the checked rows x [n heads dim]
// into the cache or pool cache at dst's positions (dst.table nil: a
// contiguous cache [heads ctx dim]) from pos, or, when at is not nil, from
// at[0] read on the device (a checked position tensor).
func appendKV(op string, cache, x *Tensor, dst kvSource, pos int, at *Tensor) error {
	n := x.shape[0]
	if n*dst.heads*dst.dim == 0 {
		return nil
	}
	ds := cache.st.ds
	uses := []*storage{cache.st, x.st}
	table, posArg, posAt, pdev := gpu.Buf(cache.st.buf), gpu.Buf(cache.st.buf), pos, 0
	toff := 0
	if dst.table != nil {
		table, toff = gpu.Buf(dst.table.st.buf), dst.table.offset
		uses = append(uses, dst.table.st)
	}
	if at != nil {
		posArg, posAt, pdev = gpu.Buf(at.st.buf), at.offset, 1
		uses = append(uses, at.st)
	}
	var args argList
	args.add(gpu.Buf(cache.st.buf), gpu.Buf(x.st.buf), table, posArg)
	args.u32(int(cache.dtype), n, dst.heads, dst.dim, posAt, pdev, dst.ctx, dst.page, dst.pages, toff)
	args.u32(x.offset, x.strides[0], x.strides[1], x.strides[2])
	return wrap(ds.launch("appendKV", false, n*dst.heads*dst.dim, uses, args.args()...), op)
}

// PagedAttention is Attention over paged KV caches: the queries q [nq heads
// dim] (any view) at positions pos..pos+nq-1 of a sequence attend causally
// to its positions 0..pos+nq-1, read from the page pools k and v ([pages
// heads page dim], AppendPagedKV's) through the sequence's block table. The
// result is [nq heads dim], contiguous, equal to Attention's over
// contiguous caches holding the same keys and values; the kernels are
// Attention's (blocks of queries for a prefill, flash-decoding for a decode
// step), only the addresses of keys and values differ.
func PagedAttention(q, k, v, table *Tensor, pos int, scale float32) (*Tensor, error) {
	const op = "paged attention"
	src, shapes, err := pagedSource(op, q, k, v, table)
	if err != nil {
		return nil, err
	}
	nq := q.shape[0]
	if pos < 0 || pos+nq > src.ctx {
		return nil, invalid(shapes, "positions %d..%d outside the block table's %d", pos, pos+nq-1, src.ctx)
	}
	return attend(op, q, src, pos, nil, scale)
}

// pagedSource checks PagedAttention's queries q, pools k and v and block
// table and returns where attention reads them, and the op with the shapes,
// for errors.
func pagedSource(op string, q, k, v, table *Tensor) (kvSource, string, error) {
	if err := needFloat(op, q, nil); err != nil {
		return kvSource{}, "", err
	}
	capacity, err := checkPaged(op, "the key", k, table, q)
	if err != nil {
		return kvSource{}, "", err
	}
	if _, err := checkPaged(op, "the value", v, table, q); err != nil {
		return kvSource{}, "", err
	}
	if err := sameDevice(op, q, k, v, table); err != nil {
		return kvSource{}, "", err
	}
	shapes := op + " " + shapeString(q.shape) + " over " + shapeString(k.shape)
	if !slices.Equal(k.shape, v.shape) {
		return kvSource{}, "", invalid(shapes, "key pool %s and value pool %s differ", shapeString(k.shape), shapeString(v.shape))
	}
	pages, heads, page, dim := k.shape[0], k.shape[1], k.shape[2], k.shape[3]
	if len(q.shape) != 3 || q.shape[1] != heads || q.shape[2] != dim {
		return kvSource{}, "", invalid(shapes, "queries of shape [nq %d %d]", heads, dim)
	}
	if dim > ops.AttentionMaxHeadDim {
		return kvSource{}, "", notSupported(shapes, "", "head dimension %d; at most %d", dim, ops.AttentionMaxHeadDim)
	}
	return kvSource{k: k, v: v, table: table, heads: heads, ctx: capacity, dim: dim, page: page, pages: pages}, shapes + " through " + shapeString(table.shape), nil
}
