// Package vsum sums float32 runs for the CPU backend's reductions: plain sums
// (Sum, Sum4) and dot products (Dot, Dot4), in Go assembly with AVX2 (and
// FMA, for the dot products) on amd64 CPUs that have it, with NEON (Advanced
// SIMD, which every arm64 CPU has) on arm64, and in a pure-Go loop elsewhere.
//
// A sum adds each block of up to BlockLen elements of a run in float32 (in
// several vector accumulators, so in an order of its own) and the blocks'
// sums in float64, so its error stays near that of a pairwise sum: a
// reduction's result is compared with a tolerance (kernels.ReductionTolerance)
// because every backend adds in an order of its own.
//
// Sum4 and Dot4 read four runs side by side, so that the cache misses of runs
// far apart in memory overlap (a group of a grid-stride reduction takes
// chunks a grid apart). SumChunks4 and DotChunks4 read four long runs side
// by side into the partial sums of several groups at once (chunk i of a run
// to partial i mod k), so that consecutive groups of a grid-stride
// reduction are summed in passes over contiguous memory.
package vsum
