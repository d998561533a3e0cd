//go:build linux

package kernels

import (
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID.
const clockThreadCPUTime = 3

// threadCPUTime returns the CPU time the calling OS thread has used, and
// whether it could be read. The caller locks its goroutine to the thread
// (runtime.LockOSThread) around what it times. It reads the thread's CPU
// clock (clock_gettime), exact to the scheduler's accounting, where
// getrusage's figure moves in scheduler ticks (4 ms at HZ=250): a few
// passes over 256 MiB take a handful of ticks.
func threadCPUTime() (time.Duration, bool) {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
