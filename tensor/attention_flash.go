package tensor

import (
	"os"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/tensor/internal/ops"
)

// EnvAttentionFlash set to "off" runs prefill attention on the block kernels
// (attentionBlock, attentionBlockWide) instead of the register-tiled flash
// kernels, for comparison: the flash kernels are the default wherever the
// device's groups have their shared memory.
const EnvAttentionFlash = "ANYGPU_TENSOR_ATTENTION_FLASH"

// attentionFlashKernel is the flash kernel that takes a prefill of nq
// queries of head dimension dim on a device whose groups have shared bytes
// of shared memory (0: not reported), launched with groups of
// ops.AttentionFlashThreads taking ops.AttentionFlashQueries queries each;
// "" when none does: fewer queries than a
// block kernel's (a decode, which the split per-query kernel takes), a head
// dimension past ops.AttentionFlashWideDim, less shared memory than the
// kernel's (WebGPU's default 16 KiB, OpenGL ES's guaranteed 16), or off
// (EnvAttentionFlash). Head dimensions up to ops.AttentionFlashDim take the
// smaller kernel, whose key tiles are twice as long.
func attentionFlashKernel(nq, dim, shared int, off bool) string {
	name, need := "attentionFlash", ops.AttentionFlashShared
	if dim > ops.AttentionFlashDim {
		name, need = "attentionFlashWide", ops.AttentionFlashWideShared
	}
	if off || nq < ops.AttentionBlockQueries || dim > ops.AttentionFlashWideDim || (shared > 0 && shared < need) {
		return ""
	}
	return name
}

// attentionFlashOff reports whether EnvAttentionFlash turns the flash
// kernels off.
func attentionFlashOff() bool { return os.Getenv(EnvAttentionFlash) == "off" }

// flashUnitGroups is how many groups of ops.AttentionFlashThreads a compute
// unit should have before the flash kernels split keys: 8 groups of 2
// warps are 16 warps a unit, what the smaller kernel's registers allow on an
// H100/H200 (128 a thread).
const flashUnitGroups = 8

// flashLeastKeys is the shortest range of keys a split takes: 4 key tiles,
// so that staging a block's queries stays a small part of a split's work.
const flashLeastKeys = 4 * 32

// flashSplits is how many ranges of keys the flash kernels cut each query
// block's keys into, and their length (a multiple of 32, the key tile): one
// range when the groups (query blocks × heads) alone give every one of units
// compute units flashUnitGroups, else enough ranges to (flash-decoding), none
// shorter than flashLeastKeys. keys is the longest block's range, pos + nq.
// A split also shortens the longest block's path: GPT-2's 1024-token
// prefill (32 blocks × 12 heads on 132 units) takes 3 ranges of 352 keys.
func flashSplits(groups, keys, units int) (splits, kchunk int) {
	want := flashUnitGroups * max(1, units)
	if groups <= 0 || groups >= want || keys <= flashLeastKeys {
		return 1, max(keys, 1)
	}
	splits = min((want+groups-1)/groups, keys/flashLeastKeys)
	kchunk = ((keys+splits-1)/splits + 31) / 32 * 32
	return (keys + kchunk - 1) / kchunk, kchunk
}

// attendFlash runs flash kernel name (attentionFlashKernel's choice) for
// attend: the prefill q over src at pos into out, of q's dtype, in
// flashSplits's ranges joined by attentionCombine. uses are the launch's
// tensors' storages.
func attendFlash(ds *deviceState, op, name string, out, q *Tensor, src kvSource, pos int, scale float32, uses []*storage) error {
	return attendBlocks(ds, op, name, ops.AttentionFlashThreads, ops.AttentionFlashQueries, out, q, src, pos, scale, uses)
}

// attendBlocks runs kernel name, which takes the arguments of the flash
// kernels in groups of threads threads, a block of queries queries each
// (attentionFlash, attentionFlashWide, attentionTC's variants), as
// attendFlash does. The splits are flashSplits's for the groups counted in
// groups of the flash kernels' size, so that a unit is given as many
// warps whichever kernel runs.
func attendBlocks(ds *deviceState, op, name string, threads, queries int, out, q *Tensor, src kvSource, pos int, scale float32, uses []*storage) error {
	nq, heads, dim := q.shape[0], src.heads, src.dim
	blocks := (nq + queries - 1) / queries
	splits, kchunk := flashSplits(blocks*heads*threads/ops.AttentionFlashThreads, pos+nq, ds.info().Units)
	part, stats := out, out // not written with one split
	if splits > 1 {
		var err error
		if part, err = empty(ds, op, Float32, []int{nq * heads * splits, dim}); err != nil {
			return err
		}
		defer part.Close()
		if stats, err = empty(ds, op, Float32, []int{nq * heads * splits, 2}); err != nil {
			return err
		}
		defer stats.Close()
		uses = append(uses, part.st, stats.st)
	}
	table, paging := src.tableArgs()
	var args argList
	args.add(gpu.Buf(part.st.buf), gpu.Buf(stats.st.buf), gpu.Buf(q.st.buf), gpu.Buf(src.k.st.buf), gpu.Buf(src.v.st.buf), table)
	args.u32(int(q.dtype), nq, heads, dim, pos)
	args.u32(paging[:]...)
	args.u32(q.offset, q.strides[0], q.strides[1], q.strides[2], kchunk, splits)
	args.add(gpu.F32(scale))
	if err := ds.launchGroups(name, threads, blocks*heads*splits, uses, args.args()...); err != nil {
		return wrap(err, op)
	}
	if splits > 1 {
		n := out.Len()
		var args argList
		args.add(gpu.Buf(out.st.buf), gpu.Buf(part.st.buf), gpu.Buf(stats.st.buf))
		args.u32(int(q.dtype), n, dim, splits)
		if err := ds.launch("attentionCombine", false, words(q.dtype, n), uses, args.args()...); err != nil {
			return wrap(err, op)
		}
	}
	return nil
}
