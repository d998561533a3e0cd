package kernels

import (
	"math/bits"
	"runtime"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/kernels/internal/vsum"
)

// The CPU's reductions sum consecutive groups together. Group g's elements
// are the chunks of B at c·G·B + g·B (the package documentation), so in
// round c the chunks of groups g..g+k-1 lie side by side: k·B contiguous
// elements, where one group alone reads B elements and jumps G·B (1 KiB
// chunks 1 MiB apart for 1024 groups of 256: too short a run for the
// hardware prefetchers, 0.62× copy()'s bandwidth on one core). The groups
// of a launch fall into batches of batchGroups consecutive groups; the
// first group of a batch (its leader) reads the batch's rounds, four
// streams at a time, into one partial sum per group (vsum.SumChunks4) and
// writes the batch's partials out[g], each the sum of exactly the elements
// the documentation gives group g; the other groups of the batch write
// nothing. A launch runs every group (the CPU backend spreads them over its
// workers in any order), so when it completes out holds what the
// documentation says; only a caller running part of a launch's groups would
// see the difference.

// batchRunLog is log₂ of the elements (2¹⁶: 256 KiB of float32) a batch
// reads in a round, where the group size and grid allow (batchGroups). Over
// 64 Mi float32s in 1024 groups of 256 on one core of the 2-core
// development machine (passes of each size interleaved with copy(), medians
// of 40, by thread CPU time), runs of 16 KiB read 0.63× copy()'s bytes per
// CPU-second, 32 KiB 0.75×, 64 KiB 0.80×, 128 KiB 0.81×, 256 KiB 0.85×; one
// contiguous range (a grid of one group) 0.89×.
const batchRunLog = 16

// maxBatchLog is log₂ of the most groups in a batch (their partials live on
// the leader's stack).
const maxBatchLog = 8

// batchCPUs is the cores whose workers a launch's batches should keep busy.
var batchCPUs = runtime.NumCPU()

// batchGroups returns how many consecutive groups of size b, in a grid of
// grid groups, are summed together: the largest power of two with at most
// 2^batchRunLog elements a round (b rounded up to a power of two), at most
// 2^maxBatchLog groups, and a batch per core to go round. Every group of a
// launch asks (to know whether it leads a batch), so this takes no
// division.
func batchGroups(b, grid int) int {
	shift := min(batchRunLog-bits.Len(uint(b-1)), maxBatchLog, bits.Len(uint(grid))-1-bits.Len(uint(batchCPUs-1)))
	return 1 << max(shift, 0)
}

// goReduceSumTuned writes, when group g leads its batch (see above), the
// batch's partial sums of x to out[first..first+k); a reduction may add in
// any order (results are compared with ReductionTolerance), which lets it
// add a group's elements out of the generated kernel's order. The launch
// checks are guardGo's (out holding the leader's slot); slots of the batch
// past out are not written; a group with y or z index other than 0 writes
// nothing, as the generated kernel.
func goReduceSumTuned(g backend.Group, args []backend.Arg) {
	out, x, n := args[0].Float32s(), args[1].Float32s(), int(args[2].U32())
	reduceBatch(g, out, x[:n], nil)
}

// goDotTuned is goReduceSumTuned for dot: the partial sums of x[i]·y[i].
func goDotTuned(g backend.Group, args []backend.Arg) {
	out, x, y, n := args[0].Float32s(), args[1].Float32s(), args[2].Float32s(), int(args[3].U32())
	reduceBatch(g, out, x[:n], y[:n])
}

// reduceBatch writes, when group g leads its batch, the batch's partial
// sums of x (y nil) or of x[i]·y[i] to out.
func reduceBatch(g backend.Group, out, x, y []float32) {
	size, grid := g.Size.Norm(), g.Grid.Norm()
	b, groups, first := size.X, grid.X, g.ID.X
	if g.ID.Y != 0 || g.ID.Z != 0 || b <= 0 || groups <= 0 || first < 0 || first >= groups {
		return
	}
	k := batchGroups(b, groups)
	if first&(k-1) != 0 {
		return
	}
	k = min(k, groups-first)
	var partials [1 << maxBatchLog]float64
	acc := partials[:k]
	n := len(x)
	lo, run, stride := first*b, k*b, groups*b // the batch's rounds: run elements every stride
	// Whole rounds as four streams, a quarter of them apart: one stream alone
	// does not reach the bandwidth of four.
	if q := (n - lo + stride - run) / stride / 4; q > 0 {
		if run == stride { // the whole grid: the rounds lie end to end
			sumRuns4(x, y, lo, q*stride, q*stride, b, acc)
		} else {
			for t := range q {
				sumRuns4(x, y, lo+t*stride, q*stride, run, b, acc)
			}
		}
		lo += 4 * q * stride
	}
	for ; lo < n; lo += stride {
		hi := min(lo+run, n)
		if y == nil {
			vsum.SumChunks(x[lo:hi], b, acc)
		} else {
			vsum.DotChunks(x[lo:hi], y[lo:hi], b, acc)
		}
	}
	// After every read: with a grid of one group, out may be x.
	for j, s := range acc[:max(min(k, len(out)-first), 0)] {
		out[first+j] = float32(s)
	}
}

// sumRuns4 adds to acc the chunk sums (vsum.SumChunks4, or DotChunks4 with
// y) of the four runs of run elements at lo, lo+apart, lo+2·apart and
// lo+3·apart.
func sumRuns4(x, y []float32, lo, apart, run, b int, acc []float64) {
	l0, l1, l2, l3 := lo, lo+apart, lo+2*apart, lo+3*apart
	if y == nil {
		vsum.SumChunks4(x[l0:l0+run], x[l1:l1+run], x[l2:l2+run], x[l3:l3+run], b, acc)
		return
	}
	vsum.DotChunks4(x[l0:l0+run], x[l1:l1+run], x[l2:l2+run], x[l3:l3+run],
		y[l0:l0+run], y[l1:l1+run], y[l2:l2+run], y[l3:l3+run], b, acc)
}
