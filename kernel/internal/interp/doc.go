// Package interp runs kernels on the CPU without a Go compiler: it turns the
// IR of a kernel translated at run time (kernel.Translate) into a
// backend.GoKernel the CPU backend calls once per work group.
//
// Compile builds, once per kernel, a tree of Go closures from the IR; a call
// walks no IR. A group runs on the calling goroutine in the lane model: its
// threads are lanes that run in step, each statement for every active lane
// before the next statement starts, so a Barrier needs no code. Every lane
// has a frame (the frames are contiguous, a fixed stride apart) in which
// each varying local, temporary, constant and thread id has a byte offset
// fixed at Compile; locals that every thread holds alike (uniform: see
// uniformity) live once, in the group's uniform frame, and their code runs
// once per group.
//
// A varying operation is one loop over the active lanes (a list of lane
// indices; a run of consecutive lanes steps from frame to frame), generic
// over the Go type of its operands, so F32, I32, U32 (and the 64-bit types)
// each get their own machine code. A load or store of a buffer or shared
// array indexed by a lane id that is the lane's index plus a base in the
// group (ThreadIndex; ThreadX and GlobalX in a 1-D group) copies a run of
// elements with one range check. An If splits the active lanes by its
// condition (a comparison is fused with the split; lanes where it holds
// first, as in t < s, are a part of the list and nothing is copied); a For
// runs until no lane is left in it; break, continue and return take lanes
// out of the list until their construct ends. What has no lane loop
// (helper calls, atomics, math functions, vectors, local arrays, && and
// ||) runs the scalar compiler's closures lane by lane, on a thread whose
// frame is the lane's; helpers are inlined at each call site, with slots
// of their own (the IR has no recursion). The state of a group (frames,
// lists, shared memory) comes from a pool, per group size.
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
