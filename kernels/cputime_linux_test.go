//go:build linux

package kernels

import (
	"syscall"
	"time"
)

// rusageThread is Linux's RUSAGE_THREAD: getrusage for the calling thread.
const rusageThread = 1

// threadCPUTime returns the CPU time (user and system) the calling OS
// thread has used, and whether it could be read. The caller locks its
// goroutine to the thread (runtime.LockOSThread) around what it times.
func threadCPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
