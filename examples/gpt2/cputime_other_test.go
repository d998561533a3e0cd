//go:build !unix

package main

import "time"

// cpuTime is 0 where the process's CPU time is not read (the benchmark then
// reports 0 CPU time).
func cpuTime() time.Duration { return 0 }
