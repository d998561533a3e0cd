package kernels

// GeneratedUntuned is Generated without its hand-tuned exception: every op's
// Go kernel is the generated one, so benchmarks can show what the exception
// is worth.
var GeneratedUntuned = generated
