package sgemm

import "github.com/anygpu/gpu"

// SetMatMul replaces the launcher's Stream.MatMul with f.
func SetMatMul(l *Launcher, f func(*gpu.Stream, gpu.MatMul) error) { l.matMul = f }
