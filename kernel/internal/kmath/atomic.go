package kmath

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// Atomic operations on an element of a buffer or a shared array, taken by
// address: kernel.AtomicAdd(&hist[b], 1). Each returns the element's value
// before the operation. Integer atomics work on every backend; AtomicAdd on
// float32 only where the device has float atomics (CUDA, Metal, the CPU):
// elsewhere the translation reports NotSupported.

// Atomic is the element types atomics take.
type Atomic interface{ ~int32 | ~uint32 }

// AtomicAdd adds v to *p.
func AtomicAdd[T Atomic | ~float32](p *T, v T) T {
	u := (*uint32)(unsafe.Pointer(p))
	half := T(1)
	half /= 2
	for {
		old := atomic.LoadUint32(u)
		var oldT, next T
		if half != 0 { // a float type
			oldT = T(math.Float32frombits(old))
			next = oldT + v
			if atomic.CompareAndSwapUint32(u, old, math.Float32bits(float32(next))) {
				return oldT
			}
			continue
		}
		oldT = *(*T)(unsafe.Pointer(&old))
		next = oldT + v
		if atomic.CompareAndSwapUint32(u, old, *(*uint32)(unsafe.Pointer(&next))) {
			return oldT
		}
	}
}

// AtomicMin stores min(*p, v) in *p.
func AtomicMin[T Atomic](p *T, v T) T {
	return casLoop(p, func(old T) T { return min(old, v) })
}

// AtomicMax stores max(*p, v) in *p.
func AtomicMax[T Atomic](p *T, v T) T {
	return casLoop(p, func(old T) T { return max(old, v) })
}

// AtomicAnd stores *p & v in *p.
func AtomicAnd[T Atomic](p *T, v T) T {
	return casLoop(p, func(old T) T { return old & v })
}

// AtomicOr stores *p | v in *p.
func AtomicOr[T Atomic](p *T, v T) T {
	return casLoop(p, func(old T) T { return old | v })
}

// AtomicXor stores *p ^ v in *p.
func AtomicXor[T Atomic](p *T, v T) T {
	return casLoop(p, func(old T) T { return old ^ v })
}

// AtomicExchange stores v in *p.
func AtomicExchange[T Atomic](p *T, v T) T {
	old := atomic.SwapUint32((*uint32)(unsafe.Pointer(p)), uint32(v))
	return T(old)
}

// AtomicCompareExchange stores v in *p if *p equals old; it returns the
// value *p held, which equals old when the store happened.
func AtomicCompareExchange[T Atomic](p *T, old, v T) T {
	u := (*uint32)(unsafe.Pointer(p))
	for {
		cur := atomic.LoadUint32(u)
		if T(cur) != old {
			return T(cur)
		}
		if atomic.CompareAndSwapUint32(u, cur, uint32(v)) {
			return T(cur)
		}
	}
}

// casLoop applies f to *p atomically and returns the old value.
func casLoop[T Atomic](p *T, f func(T) T) T {
	u := (*uint32)(unsafe.Pointer(p))
	for {
		old := atomic.LoadUint32(u)
		if atomic.CompareAndSwapUint32(u, old, uint32(f(T(old)))) {
			return T(old)
		}
	}
}
