// Package interp runs kernels on the CPU without a Go compiler: it turns the
// IR of a kernel translated at run time (kernel.Translate) into a
// backend.GoKernel the CPU backend calls once per work group.
//
// Compile builds, once per kernel, a tree of Go closures from the IR; a call
// walks no IR. Each thread has a frame, a block of memory in which every
// local, scalar parameter, constant and thread id has a byte offset fixed at
// Compile and a Go type fixed by its IR type: reading a local is one load,
// with no map lookup and no interface boxing. The closures are generic over
// the Go type of their operands, so F32, I32, U32 (and the 64-bit types)
// each get their own machine code, and operators read operands that are
// frame slots directly rather than through a call. Helpers are inlined at
// each call site, with slots of their own (the IR has no recursion).
//
// A group runs on the calling goroutine, never a goroutine per thread. A
// kernel without barriers runs its threads one after another in one frame
// (every local is declared, and so written, before it is read). A kernel
// with barriers is split at them: the statements between two barriers run
// for every thread in turn, each in a frame of its own, and an If or For
// that holds a barrier (its condition is uniform) runs at group level with
// its body split the same way. The frames and shared memory of a group call
// come from a pool.
//
// Semantics are the IR's (see package ir): integers wrap, shifts follow Go,
// x/0 == x and x%0 == 0, float to integer conversions saturate with NaN
// giving 0, float32 results are rounded to float32 after each operation, Fma
// rounds once, math functions are package kernel's (so the interpreter
// agrees with a kernel compiled as Go), and atomics on buffers go through
// package kernel's atomics (sync/atomic), since a launch's groups run in
// parallel. Shared memory starts zeroed.
//
// An index out of range of a buffer or array, or an argument list that does
// not match the kernel, panics with an error naming the kernel's source
// position; the CPU backend recovers it into the launch's error.
package interp
