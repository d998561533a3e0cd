//go:build !linux

package collective

// dlSupported reports whether this system has NCCL at all: NVIDIA builds it
// for Linux only.
const dlSupported = false
