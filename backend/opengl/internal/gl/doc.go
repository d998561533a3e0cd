// Package gl is a minimal binding of the OpenGL 4.3 core and OpenGL ES 3.1
// entry points a compute backend uses (buffers, compute shaders and programs,
// sync objects, timestamp queries, program introspection), resolved through a
// GetProcAddress function (eglGetProcAddress) and called through
// internal/dl, so nothing is linked at build time.
//
// Every function takes only integer and pointer arguments: dl.Call (purego's
// SyscallN) cannot call C functions that mix integer and floating-point
// parameters. The functions must be called on the OS thread whose context is
// current.
//
// OpenGL ES 3.1 lacks glGetBufferSubData, glClearBufferSubData and (without
// GL_EXT_disjoint_timer_query) timestamp queries: Load(getProc, true) leaves
// them out, and ReadMapped and FillMapped do reads and fills through
// glMapBufferRange instead.
package gl
