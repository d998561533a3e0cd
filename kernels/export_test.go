package kernels

// GeneratedUntuned is Source without its hand-tuned exceptions: every op's
// Go kernel is the generated one, so benchmarks can show what the exceptions
// are worth.
var GeneratedUntuned = generated

// HandwrittenGo is the built-ins as they were written by hand in Go, with
// Source's sgemm: the baseline the CPU benchmarks time the generated Go
// against (Go kernels only: the CPU backend alone compiles it).
var HandwrittenGo = handwrittenGo
