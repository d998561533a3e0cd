package kernel

import "github.com/anygpu/gpu/kernel/internal/kmath"

// Atomic operations on an element of a buffer or a shared array, taken by
// address: kernel.AtomicAdd(&hist[b], 1). Each returns the element's value
// before the operation. Integer atomics work on every backend; AtomicAdd on
// float32 only where the device has float atomics (CUDA, Metal, the CPU):
// elsewhere the translation reports NotSupported.

// Atomic is the element types atomics take.
type Atomic interface{ ~int32 | ~uint32 }

// AtomicAdd adds v to *p.
func AtomicAdd[T Atomic | ~float32](p *T, v T) T { return kmath.AtomicAdd(p, v) }

// AtomicMin stores min(*p, v) in *p.
func AtomicMin[T Atomic](p *T, v T) T { return kmath.AtomicMin(p, v) }

// AtomicMax stores max(*p, v) in *p.
func AtomicMax[T Atomic](p *T, v T) T { return kmath.AtomicMax(p, v) }

// AtomicAnd stores *p & v in *p.
func AtomicAnd[T Atomic](p *T, v T) T { return kmath.AtomicAnd(p, v) }

// AtomicOr stores *p | v in *p.
func AtomicOr[T Atomic](p *T, v T) T { return kmath.AtomicOr(p, v) }

// AtomicXor stores *p ^ v in *p.
func AtomicXor[T Atomic](p *T, v T) T { return kmath.AtomicXor(p, v) }

// AtomicExchange stores v in *p.
func AtomicExchange[T Atomic](p *T, v T) T { return kmath.AtomicExchange(p, v) }

// AtomicCompareExchange stores v in *p if *p equals old; it returns the
// value *p held, which equals old when the store happened.
func AtomicCompareExchange[T Atomic](p *T, old, v T) T { return kmath.AtomicCompareExchange(p, old, v) }
