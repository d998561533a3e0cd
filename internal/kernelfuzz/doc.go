// Package kernelfuzz generates random valid kernels of the kernel language
// (package kernel) from a seed, with their inputs and launch geometry, for
// differential tests: the CPU backend's run of a kernel is the reference
// every other backend must match.
//
// A generated file holds one or more //gpu:kernel functions and helper
// functions with random signatures (buffers and scalars of int32, uint32 and
// float32), random statements (declarations, assignments, if/else, bounded
// three-clause, range, condition-only and infinite loops with break and
// continue, early returns, local arrays, atomics, shared arrays with
// barriers in uniform control flow, subgroup reductions finished through a
// shared array and lane-preserving shuffles) and random expression trees (every
// integer operator, shifts by any count, division and remainder by zero,
// conversions, comparisons, logical operators, min, max and the kernel
// package's math functions).
//
// Every generated kernel is valid by construction: buffer indices are in
// range (outputs at the thread's own slots behind a guard against n, inputs
// modulo n, arrays modulo their length), loops have constant trip counts,
// no constant expression overflows, and every local is used. Results are
// the same on every conforming device: integers wrap as the language says,
// atomics only combine order-independently, and floats stay integral and
// within ±4096 at every step (clamped before they could grow), so +, -, *,
// comparisons and conversions are exact whether or not a device fuses a
// multiply and an add, and no NaN or infinity arises.
//
// Generated code also stays clear of one driver's compile-time weakness:
// lavapipe (Mesa 22.3) takes time exponential in the length of a chain of
// float min, max and kernel.Clamp on scalar parameters that ends in a
// condition (minutes for six clamps in a row). Every expression carries an
// estimate of that cost and statements keep it bounded; walk.go explains
// the bug, the model and the seeds that found it.
//
// Options switches constructs off, to keep a known translator or driver
// bug out of a run while it is being fixed.
package kernelfuzz
