//go:build !linux

package collective

// dlSupported reports whether this system has NCCL at all: NVIDIA builds it
// for Linux only.
const dlSupported = false

// threadID is the calling OS thread's id where NCCL exists; elsewhere no
// Group gets as far as recording, and one id does.
func threadID() int { return 0 }
