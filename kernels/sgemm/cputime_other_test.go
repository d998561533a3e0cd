//go:build !linux

package sgemm_test

import "time"

// processCPUTime reports that the process's CPU time cannot be read here
// (Linux only).
func processCPUTime() (time.Duration, bool) { return 0, false }
