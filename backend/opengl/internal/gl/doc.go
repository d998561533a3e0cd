// Package gl is a minimal binding of the OpenGL 4.3 core entry points a
// compute backend uses (buffers, compute shaders and programs, sync objects,
// timestamp queries, program introspection), resolved through a
// GetProcAddress function (eglGetProcAddress) and called through
// internal/dl, so nothing is linked at build time.
//
// Every function takes only integer and pointer arguments: dl.Call (purego's
// SyscallN) cannot call C functions that mix integer and floating-point
// parameters. The functions must be called on the OS thread whose context is
// current.
package gl
