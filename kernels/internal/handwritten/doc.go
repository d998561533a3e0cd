// Package handwritten holds the built-in ops as they were written by hand,
// once per dialect (dialect_*.go: CUDA, GLSL, WGSL, MSL; the GLSL of vulkan/
// compiled to SPIR-V; the Go kernels of gokernels.go), before they were
// written once in Go (kernels/internal/ops, kernels.Source). It is kept only
// so that `gpu bench --kernels handwritten` and the benchmarks of package
// kernels can compare the generated ops with these (kernels.Handwritten); it
// is deleted once that comparison is recorded.
package handwritten
