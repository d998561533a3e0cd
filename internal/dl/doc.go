// Package dl is the module's one way to reach a native library at run time,
// without cgo: list the places it is searched for (an environment
// override, file names for the system's own search, then the directories
// where installations and Python wheels put it, each only where the file
// is), try them in order with Load (open each candidate, let the binding
// resolve its symbols and accept or reject it, and keep a reason per
// candidate), remember the outcome per override value (Memo), call the
// library's functions through purego.SyscallN, and move strings across.
// Opening goes through dlopen (purego) on Unix and LoadLibrary on Windows;
// dlopen and dlsym run under one lock on one locked thread, so concurrent
// probes never read each other's dlerror.
//
// What a library is called, where its vendor installs it and which systems
// it exists for stay with its binding (the packages under internal/ of each
// backend, nvrtc, collective, health, profiling); this package holds only
// what they share.
package dl
