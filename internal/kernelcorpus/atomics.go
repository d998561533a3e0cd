package kernelcorpus

import "github.com/anygpu/gpu/kernel"

// Histogram counts values into bins with global atomics (heavy contention).
//
//gpu:kernel
func Histogram(bins []uint32, in []uint32, n, nbins uint32) {
	i := kernel.GlobalX()
	if i < n {
		kernel.AtomicAdd(&bins[in[i]%nbins], 1)
	}
}

// SharedHistogram counts into a per-group shared histogram, then adds it to
// the global one.
//
//gpu:kernel
func SharedHistogram(bins []uint32, in []uint32, n uint32) {
	h := kernel.Shared[[16]uint32]()
	t := kernel.ThreadX()
	if t < 16 {
		h[t] = 0
	}
	kernel.Barrier()
	i := kernel.GlobalX()
	if i < n {
		kernel.AtomicAdd(&h[in[i]&15], 1)
	}
	kernel.Barrier()
	if t < 16 {
		kernel.AtomicAdd(&bins[t], h[t])
	}
}

// AtomicMinMax keeps the minimum and maximum of in, and the bitwise and/or/xor.
//
//gpu:kernel
func AtomicMinMax(acc []int32, uacc []uint32, in []int32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		v := in[i]
		kernel.AtomicMin(&acc[0], v)
		kernel.AtomicMax(&acc[1], v)
		u := uint32(v)
		kernel.AtomicAnd(&uacc[0], u|0xffff0000)
		kernel.AtomicOr(&uacc[1], u&0xff)
		kernel.AtomicXor(&uacc[2], u)
		kernel.AtomicMax(&uacc[3], u)
	}
}

// AtomicTicket hands out tickets with AtomicAdd's old value and records
// who got each one: out is a permutation of 0..n-1.
//
//gpu:kernel
func AtomicTicket(counter []uint32, out []uint32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		ticket := kernel.AtomicAdd(&counter[0], 1)
		out[ticket] = i
	}
}

// AtomicCAS adds 2 to a counter through a compare-and-swap loop, and
// exchanges each thread's own slot.
//
//gpu:kernel
func AtomicCAS(counter []uint32, slots []uint32, prev []uint32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		old := kernel.AtomicAdd(&counter[0], 0)
		for {
			got := kernel.AtomicCompareExchange(&counter[0], old, old+2)
			if got == old {
				break
			}
			old = got
		}
		prev[i] = kernel.AtomicExchange(&slots[i], i+7)
	}
}
