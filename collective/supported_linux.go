//go:build linux

package collective

import "syscall"

// dlSupported reports whether this system has NCCL at all.
const dlSupported = true

// threadID is the calling OS thread's id: NCCL groups are per thread.
func threadID() int { return syscall.Gettid() }
