// Package kernelcorpus is the kernel language's differential test corpus: kernels
// that together use every construct the language accepts. Each runs on every
// available backend and must match the CPU backend's run of the generated Go
// (floats within a few ULP, integers exactly); see kernel's diff tests.
package kernelcorpus

//go:generate go run github.com/anygpu/gpu/cmd/gpu kernels
