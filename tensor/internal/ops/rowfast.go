package ops

import "github.com/anygpu/gpu/kernel"

// The row kernels' fast path (reduceRows, softmaxRows, normRows) takes a row
// of a contiguous view (cstride 1) whose elements fill whole words (float32,
// or 16-bit starting on a word with an even number of columns): each pass
// over the row has thread t of b read words t, t+b, t+2b, ... (a warp's
// loads are consecutive words), rowUnroll of them issued before the first
// is used, and takes both halves of a 16-bit word at once. Softmax makes
// two passes (a running maximum and sum, then the output), layer norm three
// (mean, squared deviations, output) and RMS norm two; the passes after the
// first find the row in the caches. The group meets in a two-level
// reduction: each thread's value in shared memory, the first parts threads
// fold chunk values each, every thread folds the parts: two barriers
// instead of a tree's log2(b). The other rows take the general path, one
// element at a time.

// rowUnroll is how many words of a row a thread of the fast path loads
// before it uses them.
const rowUnroll = 8

// rowParts is the most partial results of a fast-path reduction's first
// level.
const rowParts = 8

// rowFast reports whether a row at element base of cols elements of dtype
// code dt, cstride apart, takes the fast path.
func rowFast(dt, cols, cstride, base uint32) bool {
	if cstride != 1 || cols == 0 {
		return false
	}
	return dt == DTFloat32 || (base%2 == 0 && cols%2 == 0)
}

// rowChunk is how many values each of the first threads folds in a
// fast-path reduction over b threads.
func rowChunk(b uint32) uint32 { return (b + rowParts - 1) / rowParts }

// rowPartsOf is the number of partial results (at most rowParts) of a
// fast-path reduction over b threads in chunks of chunk.
func rowPartsOf(b, chunk uint32) uint32 { return (b + chunk - 1) / chunk }

// reduceValue folds v into acc for reduction op code op: the larger of the
// two for ReduceMax, their sum otherwise.
func reduceValue(op uint32, acc, v float32) float32 {
	if op == ReduceMax {
		return max(acc, v)
	}
	return acc + v
}

// reduceWord folds the elements of word w (per of them, of dtype code dt)
// into acc, as reduceValue.
func reduceWord(op uint32, acc float32, w, per, dt uint32) float32 {
	if per == 1 {
		return reduceValue(op, acc, kernel.Float32frombits(w))
	}
	return reduceValue(op, reduceValue(op, acc, lowHalf(w, dt)), highHalf(w, dt))
}

// wordSum is the sum of the elements of word w.
func wordSum(w, per, dt uint32) float32 {
	if per == 1 {
		return kernel.Float32frombits(w)
	}
	return lowHalf(w, dt) + highHalf(w, dt)
}

// wordMax is the largest of m and the elements of word w.
func wordMax(m float32, w, per, dt uint32) float32 {
	if per == 1 {
		return max(m, kernel.Float32frombits(w))
	}
	return max(m, max(lowHalf(w, dt), highHalf(w, dt)))
}

// wordExpSum is the sum of e^(v-m) over the elements v of word w.
func wordExpSum(w, per, dt uint32, m float32) float32 {
	if per == 1 {
		return kernel.Exp(kernel.Float32frombits(w) - m)
	}
	return kernel.Exp(lowHalf(w, dt)-m) + kernel.Exp(highHalf(w, dt)-m)
}

// wordSquares is the sum of (v-mean)² over the elements v of word w.
func wordSquares(w, per, dt uint32, mean float32) float32 {
	if per == 1 {
		d := kernel.Float32frombits(w) - mean
		return d * d
	}
	lo, hi := lowHalf(w, dt)-mean, highHalf(w, dt)-mean
	return lo*lo + hi*hi
}

// softmaxWord is the output word of input word w: e^(v-m)·inv of each
// element v.
func softmaxWord(w, per, dt uint32, m, inv float32) uint32 {
	if per == 1 {
		return kernel.Float32bits(kernel.Exp(kernel.Float32frombits(w)-m) * inv)
	}
	return encode16(kernel.Exp(lowHalf(w, dt)-m)*inv, dt) | encode16(kernel.Exp(highHalf(w, dt)-m)*inv, dt)<<16
}

// normWord is the output word of input word w: (v-mean)·inv of each element
// v, times its gamma (from word g) and plus its beta (from word bw) as
// affine's flags say.
func normWord(w, g, bw, per, dt, affine uint32, mean, inv float32) uint32 {
	if per == 1 {
		v := (kernel.Float32frombits(w) - mean) * inv
		if affine&NormGamma != 0 {
			v *= kernel.Float32frombits(g)
		}
		if affine&NormBeta != 0 {
			v += kernel.Float32frombits(bw)
		}
		return kernel.Float32bits(v)
	}
	lo, hi := (lowHalf(w, dt)-mean)*inv, (highHalf(w, dt)-mean)*inv
	if affine&NormGamma != 0 {
		lo *= lowHalf(g, dt)
		hi *= highHalf(g, dt)
	}
	if affine&NormBeta != 0 {
		lo += lowHalf(bw, dt)
		hi += highHalf(bw, dt)
	}
	return encode16(lo, dt) | encode16(hi, dt)<<16
}
