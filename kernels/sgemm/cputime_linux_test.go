//go:build linux

package sgemm_test

import (
	"syscall"
	"time"
)

// processCPUTime returns the CPU time (user and system) of every thread of
// the process so far, and whether it could be read.
func processCPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
