package ops

// The row kernels' fast path (reduceRows, softmaxRows, normRows): a row of a
// contiguous view (cstride 1) whose words are whole (float32, or 16-bit
// starting on a word with an even number of columns) and at most rowSlots
// elements per thread long is read once, each thread loading words t, t+b,
// t+2b, ... (a warp's loads are consecutive words, all issued before the
// first is used) into registers. Softmax and the norms then work from the
// registers: no pass re-reads the row. The group meets in a two-level
// reduction: each thread's value in shared memory, the first parts threads
// fold chunk values each, every thread folds the parts: two barriers
// instead of a tree's log2(b). Other rows take the general path, which reads
// the row once per pass.

// rowSlots is the most elements of a row one thread of the fast path holds:
// 64 threads hold a row of 4096.
const rowSlots = 64

// rowParts is the most partial results of a fast-path reduction's first
// level.
const rowParts = 8

// rowFast reports whether a row at element base of cols elements of dtype
// code dt, cstride apart, takes the fast path in a group of b threads.
func rowFast(dt, cols, cstride, base, b uint32) bool {
	if cstride != 1 || cols == 0 || cols > rowSlots*b {
		return false
	}
	return dt == DTFloat32 || (base%2 == 0 && cols%2 == 0)
}

// rowHeld is how many elements thread t of b holds of a fast-path row of
// words words of per elements each: per for each of words t, t+b, ...
func rowHeld(t, b, words, per uint32) uint32 {
	if t >= words {
		return 0
	}
	return per * ((words - t + b - 1) / b)
}

// rowChunk is how many values each of the first threads folds in a
// fast-path reduction over b threads; rowPartsOf how many threads (at most
// rowParts) fold, chunk values each.
func rowChunk(b uint32) uint32 { return (b + rowParts - 1) / rowParts }

// rowPartsOf is the number of partial results of a fast-path reduction
// over b threads in chunks of chunk.
func rowPartsOf(b, chunk uint32) uint32 { return (b + chunk - 1) / chunk }

// reduceValue folds v into acc for reduction op code op: the larger of the
// two for ReduceMax, their sum otherwise.
func reduceValue(op uint32, acc, v float32) float32 {
	if op == ReduceMax {
		return max(acc, v)
	}
	return acc + v
}
