package kernels

// GeneratedUntuned is Source without its hand-tuned exception: every op's
// Go kernel is the generated one, so benchmarks can show what the exception
// is worth.
var GeneratedUntuned = generated
