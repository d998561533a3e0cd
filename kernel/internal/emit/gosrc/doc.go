// Package gosrc emits Go for the CPU backend from the kernel IR: one group
// function per kernel, of the type gpu.GoKernel, that runs every thread of
// one work group (the CPU backend runs the groups of a launch in parallel).
//
// A kernel without barriers is a nest of loops over the group's threads (z,
// y, x) around the inlined body; an early return ends the thread (continue
// of the thread loop). A kernel with barriers is split at them into phases,
// each a loop over the group's threads, as CPU OpenCL implementations do: an
// If or For around a Barrier (uniform, as the front end checks) runs once per
// group, and its body is split in turn. Locals that live across a phase
// boundary become per-thread slices indexed by the thread's linear index;
// uniform ones stay scalars. Shared arrays are arrays local to the group
// function. No goroutine is started per thread.
//
// What is the same in every thread runs once per group (uniform.go): leading
// uniform guards, pure uniform locals, and the reciprocals of uniform
// divisors. A barrier-free kernel whose control flow is uniform over strips
// of threads runs that control flow once per strip, around tight loops over
// the strip's threads (strips.go); where a strip passes a run's guards
// as a whole and its threads' 4-wide accesses are consecutive, the run is a
// loop over windows of the buffers that Go checks once per strip
// (windows.go). A phase guarded by bounds on the thread index runs only the
// threads inside them (threadrange.go).
//
// The emitted Go keeps the IR's semantics: integers wrap, shifts are Go's,
// x/0 == x and x%0 == 0, float-to-integer conversion saturates (NaN gives 0),
// and every float product is rounded to its type (an explicit conversion
// stops Go from fusing a*b+c). Math, atomics and 4-wide loads and stores call
// package kernel, the same code a plain Go call of the kernel runs.
//
// Indexing a buffer or an array out of range panics, as any Go does; the CPU
// backend recovers the panic of a kernel and fails the launch with an
// Execution error, where a GPU would read garbage and drop the write.
package gosrc
