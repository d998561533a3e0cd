//go:build !linux

package kernels

import "time"

// threadCPUTime reports that the calling thread's CPU time cannot be read
// here (Linux only).
func threadCPUTime() (time.Duration, bool) { return 0, false }
