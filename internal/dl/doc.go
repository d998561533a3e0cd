// Package dl is the module's one way to reach a native library at run time,
// without cgo: list the places it is searched for (an environment
// override, file names for the system's own search, then the directories
// where installations and Python wheels put it, each only where the file
// is), open it (dlopen through purego on Unix, LoadLibrary on Windows,
// nothing on other systems), fill its symbol table, remember the outcome
// per override value, call its functions through purego.SyscallN, and move
// strings across.
//
// What a library is called, where its vendor installs it and which systems
// it exists for stay with its binding (backend/cuda/internal/cu, nvrtc,
// collective); this package holds only what they share.
package dl
