package kernels

// GeneratedUntuned is Source without its hand-tuned exceptions: every op's
// Go kernel is the generated one, so benchmarks can show what the exceptions
// are worth.
var GeneratedUntuned = generated
