//go:build !linux

package cpu

func readHost() host { return host{} }

// availableMemory is unknown here; the device falls back to total minus live.
func availableMemory() int64 { return 0 }
