//go:build linux

package collective

// dlSupported reports whether this system has NCCL at all.
const dlSupported = true
