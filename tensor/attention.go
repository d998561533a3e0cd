package tensor

import (
	"os"
	"slices"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// checkCache is nil when cache is a usable KV cache [heads ctx dim] of a
// float dtype (like's, when like is not nil), contiguous from the start of
// its buffer (the attention kernel addresses it so).
func checkCache(op, name string, cache, like *Tensor) error {
	if err := needFloat(op, cache, like); err != nil {
		return err
	}
	if len(cache.shape) != 3 {
		return invalid(op+" "+shapeString(cache.shape), "%s cache of rank 3 [heads ctx dim]", name)
	}
	if !cache.IsContiguous() || cache.offset != 0 {
		return invalidHint(op+" "+shapeString(cache.shape), "make the cache with Zeros or Empty", "%s cache is a view", name)
	}
	return nil
}

// AppendKV writes x, keys or values of shape [n heads dim] for positions
// pos..pos+n-1 (any view: a slice of a fused QKV projection works without a
// copy), into cache, a preallocated [heads ctx dim] tensor: cache[h, pos+i,
// d] = x[i, h, d]. Positions past ctx are an InvalidArgument error. x and
// cache share a float dtype (Float32, Float16 or BFloat16).
func AppendKV(cache, x *Tensor, pos int) error {
	const op = "append kv"
	if err := checkCache(op, "the", cache, nil); err != nil {
		return err
	}
	if err := needFloat(op, x, cache); err != nil {
		return err
	}
	if err := sameDevice(op, cache, x); err != nil {
		return err
	}
	heads, ctx, dim := cache.shape[0], cache.shape[1], cache.shape[2]
	if len(x.shape) != 3 || x.shape[1] != heads || x.shape[2] != dim {
		return invalid(op+" "+shapeString(x.shape)+" into "+shapeString(cache.shape), "want [n %d %d]", heads, dim)
	}
	n := x.shape[0]
	if pos < 0 || pos+n > ctx {
		return invalid(op+" "+shapeString(x.shape)+" into "+shapeString(cache.shape), "positions %d..%d outside the cache's %d", pos, pos+n-1, ctx)
	}
	// The cache's rows pos..pos+n-1, seen as [n heads dim].
	strides := [3]int{cache.strides[1], cache.strides[0], cache.strides[2]}
	return assignView(op, cache, strides[:], pos*cache.strides[1], x)
}

// AppendKVPair is AppendKV of keys k into the key cache kc and values v
// into the value cache vc in one launch: kc[h, pos+i, d] = k[i, h, d] and
// vc[h, pos+i, d] = v[i, h, d]. The caches share shape and dtype, k and v
// are [n heads dim] (any views); positions past ctx are an InvalidArgument
// error.
func AppendKVPair(kc, vc, k, v *Tensor, pos int) error {
	const op = "append kv pair"
	if err := checkKVPair(op, kc, vc, k, v); err != nil {
		return err
	}
	if n, ctx := k.shape[0], kc.shape[1]; pos < 0 || pos+n > ctx {
		return invalid(op+" "+shapeString(k.shape)+" into "+shapeString(kc.shape), "positions %d..%d outside the caches' %d", pos, pos+n-1, ctx)
	}
	return appendKVPair(op, kc, vc, k, v, pos, nil)
}

// Attention returns causal scaled dot-product attention of the queries q,
// [nq heads dim] (any view) at positions pos..pos+nq-1, over the KV caches
// k and v ([heads ctx dim], AppendKV's) holding positions 0..pos+nq-1:
// query i attends to positions 0..pos+i with weights
// softmax(scale·q·k). The result is [nq heads dim], contiguous. Prefill is
// pos 0 and nq the prompt's length; decode is nq 1. The kernel is
// FlashAttention's online softmax over tiles of keys: no score matrix is
// stored: a prefill (16 queries or more, dim ≤ 128, where the device's
// groups have the shared memory: 14 KiB for dim ≤ 64, 27 KiB above) takes
// them in blocks of 16 sharing each staged tile of keys; a decode step
// splits long caches into ranges (flash-decoding). dim is at most 256. q and the caches share
// a float dtype, the result's; scores, softmax and sums are float32.
func Attention(q, k, v *Tensor, pos int, scale float32) (*Tensor, error) {
	const op = "attention"
	src, shapes, err := attentionSource(op, q, k, v)
	if err != nil {
		return nil, err
	}
	nq := q.shape[0]
	if pos < 0 || pos+nq > src.ctx {
		return nil, invalid(shapes, "positions %d..%d outside the cache's %d", pos, pos+nq-1, src.ctx)
	}
	return attend(op, q, src, pos, nil, scale)
}

// attentionSource checks Attention's queries q and caches k and v and
// returns where attention reads them, and the op with the shapes, for
// errors.
func attentionSource(op string, q, k, v *Tensor) (kvSource, string, error) {
	if err := needFloat(op, q, nil); err != nil {
		return kvSource{}, "", err
	}
	if err := checkCache(op, "the key", k, q); err != nil {
		return kvSource{}, "", err
	}
	if err := checkCache(op, "the value", v, q); err != nil {
		return kvSource{}, "", err
	}
	if err := sameDevice(op, q, k, v); err != nil {
		return kvSource{}, "", err
	}
	shapes := op + " " + shapeString(q.shape) + " over " + shapeString(k.shape)
	if !slices.Equal(k.shape, v.shape) {
		return kvSource{}, "", invalid(shapes, "key cache %s and value cache %s differ", shapeString(k.shape), shapeString(v.shape))
	}
	heads, ctx, dim := k.shape[0], k.shape[1], k.shape[2]
	if len(q.shape) != 3 || q.shape[1] != heads || q.shape[2] != dim {
		return kvSource{}, "", invalid(shapes, "queries of shape [nq %d %d]", heads, dim)
	}
	if dim > ops.AttentionMaxHeadDim {
		return kvSource{}, "", notSupported(shapes, "", "head dimension %d; at most %d", dim, ops.AttentionMaxHeadDim)
	}
	return kvSource{k: k, v: v, heads: heads, ctx: ctx, dim: dim}, shapes, nil
}

// kvSource is where attention reads keys and values: contiguous caches
// [heads ctx dim] (table nil), or page pools [pages heads page dim] through
// table, an Int32 block table of ctx/page entries.
type kvSource struct {
	k, v, table     *Tensor
	heads, ctx, dim int
	page, pages     int
}

// tableArgs is the kernels' table buffer and their ctx, page, pages and
// toff scalars for src; for contiguous caches the table is any buffer of the
// launch (the kernels do not read it) and page is 0.
func (src *kvSource) tableArgs() (gpu.Arg, [4]int) {
	if src.table == nil {
		return gpu.Buf(src.k.st.buf), [4]int{src.ctx, 0, 0, 0}
	}
	return gpu.Buf(src.table.st.buf), [4]int{src.ctx, src.page, src.pages, src.table.offset}
}

// attend launches attention of the checked queries q over src, the first
// at position pos, or, when at is not nil, at at[0] read on the device (a
// checked position tensor): the block kernels for a prefill whose head
// dimension they take and whose shared memory the device has, else the
// per-query kernel, split for decode. A device position takes the
// per-query kernel, split as for keys = ctx: its launches depend on the
// shapes alone.
func attend(op string, q *Tensor, src kvSource, pos int, at *Tensor, scale float32) (*Tensor, error) {
	heads, dim := src.heads, src.dim
	nq := q.shape[0]
	ds := q.st.ds
	out, err := empty(ds, op, q.dtype, q.shape)
	if err != nil {
		return nil, err
	}
	if out.Len() == 0 {
		return out, nil
	}
	dt := int(q.dtype)
	table, paging := src.tableArgs()
	var ubuf [8]*storage
	uses := append(ubuf[:0], out.st, q.st, src.k.st, src.v.st)
	if src.table != nil {
		uses = append(uses, src.table.st)
	}
	keys, posArg, posAt, pdev := pos+nq, gpu.Buf(q.st.buf), pos, 0
	if at != nil {
		uses = append(uses, at.st)
		keys, posArg, posAt, pdev = src.ctx, gpu.Buf(at.st.buf), at.offset, 1
	}
	info := ds.info()
	if tc := attentionTCKernel(q, dim, info, attentionTCEnv()); tc != "" && at == nil { // a 16-bit prefill on matrix units
		if err := attendBlocks(ds, op, tc, ops.AttentionTCThreads, ops.AttentionTCQueries, out, q, src, pos, scale, uses); err != nil {
			_ = out.Close()
			return nil, err
		}
		return out, nil
	}
	if kernel, threads := attentionBlockKernel(nq, dim, info.SharedMemPerBlock); kernel != "" && at == nil { // a prefill: blocks of queries
		if flash := attentionFlashKernel(nq, dim, info.SharedMemPerBlock, attentionFlashOff()); flash != "" && !attentionMMA(q.dtype, dim, info) {
			if err := attendFlash(ds, op, flash, out, q, src, pos, scale, uses); err != nil {
				_ = out.Close()
				return nil, err
			}
			return out, nil
		}
		queries := ops.AttentionBlockQueries
		if attentionMMA(q.dtype, dim, info) {
			kernel, threads, queries = "attentionBlockMMA", ops.AttentionBlockMMAThreads, ops.AttentionBlockMMAQueries
		}
		var args argList
		args.add(gpu.Buf(out.st.buf), gpu.Buf(q.st.buf), gpu.Buf(src.k.st.buf), gpu.Buf(src.v.st.buf), table)
		args.u32(dt, nq, heads, dim, pos)
		args.u32(paging[:]...)
		args.u32(q.offset, q.strides[0], q.strides[1], q.strides[2])
		args.add(gpu.F32(scale))
		blocks := (nq + queries - 1) / queries
		if err := ds.launchGroups(kernel, threads, blocks*heads, uses, args.args()...); err != nil {
			_ = out.Close()
			return nil, wrap(err, op)
		}
		return out, nil
	}
	splits, kchunk := ds.attentionSplits(nq*heads, keys)
	part, stats := out, out // not written with one split
	odt := dt
	if splits > 1 {
		if part, err = empty(ds, op, Float32, []int{nq * heads * splits, dim}); err != nil {
			_ = out.Close()
			return nil, err
		}
		defer part.Close()
		if stats, err = empty(ds, op, Float32, []int{nq * heads * splits, 2}); err != nil {
			_ = out.Close()
			return nil, err
		}
		defer stats.Close()
		uses = append(uses, part.st, stats.st)
		odt = int(Float32)
	}
	var args argList
	args.add(gpu.Buf(part.st.buf), gpu.Buf(stats.st.buf), gpu.Buf(q.st.buf), gpu.Buf(src.k.st.buf), gpu.Buf(src.v.st.buf), table, posArg)
	args.u32(dt, odt, nq, heads, dim, posAt, pdev)
	args.u32(paging[:]...)
	args.u32(q.offset, q.strides[0], q.strides[1], q.strides[2], kchunk, splits)
	args.add(gpu.F32(scale))
	if err := ds.launch("attention", true, nq*heads*splits, uses, args.args()...); err != nil {
		_ = out.Close()
		return nil, wrap(err, op)
	}
	if splits > 1 {
		n := out.Len()
		var args argList
		args.add(gpu.Buf(out.st.buf), gpu.Buf(part.st.buf), gpu.Buf(stats.st.buf))
		args.u32(dt, n, dim, splits)
		if err := ds.launch("attentionCombine", false, words(q.dtype, n), uses, args.args()...); err != nil {
			_ = out.Close()
			return nil, wrap(err, op)
		}
	}
	return out, nil
}

// attentionBlockKernel is the block kernel that takes a prefill of nq
// queries of head dimension dim on a device whose groups have shared bytes
// of shared memory (0: not reported), and its group size; "" when none
// does (fewer queries than a block, a head dimension past
// ops.AttentionBlockWideDim, or less shared memory than the kernel's): the per-query kernel takes it. Head dimensions up to
// ops.AttentionBlockDim take the smaller kernel (under 16 KiB of shared
// memory), the rest up to ops.AttentionBlockWideDim the wide one.
func attentionBlockKernel(nq, dim, shared int) (string, int) {
	switch {
	case nq < ops.AttentionBlockQueries || dim > ops.AttentionBlockWideDim:
		return "", 0
	case dim <= ops.AttentionBlockDim:
		return "attentionBlock", ops.AttentionBlockThreads
	}
	if shared > 0 && shared < ops.AttentionBlockWideShared {
		return "", 0
	}
	return "attentionBlockWide", ops.AttentionBlockWideThreads
}

// EnvAttentionMMA set to "on" runs 16-bit prefill attention on CUDA through
// attentionBlockMMA (kernel.MatMulAdd on the tensor cores) instead of the
// float32 block kernels. It is off by default: on an H200 it measured 6.6
// TFLOP/s against the block kernel's 8.2 (bfloat16, 32 heads of 128, 4096
// positions) and the same GPT-2 prefill (81.3k against 79.7k tokens/s),
// its operands and output tile living in float32 shared memory.
const EnvAttentionMMA = "ANYGPU_TENSOR_ATTENTION_MMA"

// attentionMMA reports whether a prefill of dtype and head dimension dim
// that a block kernel takes runs attentionBlockMMA instead, whose products
// are kernel.MatMulAdd: on CUDA (tensor cores) for the 16-bit dtypes, up to
// its head dimension, where the device has its shared memory. It takes
// blocks of ops.AttentionBlockMMAQueries queries.
func attentionMMA(dtype DType, dim int, info gpu.DeviceInfo) bool {
	return info.Backend == "cuda" && os.Getenv(EnvAttentionMMA) == "on" && (dtype == BFloat16 || dtype == Float16) && dim <= ops.AttentionBlockMMADim &&
		(info.SharedMemPerBlock == 0 || info.SharedMemPerBlock >= ops.AttentionBlockMMAShared)
}

// attentionSplits is how many ranges of positions attention cuts a query's
// keys into, and their length: one range when the (query, head) pairs alone
// give every compute unit of the device a few groups, else enough ranges to
// (flash-decoding), none shorter than 64 positions. keys is the longest
// query's range.
func (ds *deviceState) attentionSplits(pairs, keys int) (splits, kchunk int) {
	const least = 64
	want := 2 * max(1, ds.info().Units)
	if pairs >= want || keys <= least {
		return 1, keys
	}
	splits = min((want+pairs-1)/pairs, keys/least)
	kchunk = (keys + splits - 1) / splits
	return (keys + kchunk - 1) / kchunk, kchunk
}
