package kernels

import "github.com/anygpu/gpu/kernel"

// Axpy64 is y = a*x + y in float64 with a 64-bit index.
//
//gpu:kernel
func Axpy64(y, x []float64, n uint64, a float64) {
	i := uint64(kernel.GlobalY())<<32 | uint64(kernel.GlobalX())
	if i < n {
		y[i] = kernel.Fma(a, x[i], y[i])
	}
}

// Bits swaps the halves of each float's bits and counts negative inputs.
//
//gpu:kernel
func Bits(out []uint32, neg []int32, in []float32, n int) {
	i := int(kernel.GlobalX())
	if i >= n {
		return
	}
	b := kernel.Float32bits(in[i])
	out[i] = b<<16 | b>>16
	if in[i] < 0 {
		kernel.AtomicAdd(&neg[0], 1)
	}
	kernel.AtomicMax(&neg[1], int32(i))
}

// Sum64 adds into a float atomic (needs float atomics).
//
//gpu:kernel
func SumAtomic(total []float32, x []float32, n uint32) {
	if i := kernel.GlobalX(); i < n {
		kernel.AtomicAdd(&total[0], x[i])
	}
}
