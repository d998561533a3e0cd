package vsum

// The loops in use: the NEON ones (Advanced SIMD is part of every arm64 CPU,
// so there is nothing to detect).
var (
	sum4       = sum4Asm
	dot4       = dot4Asm
	sumChunks4 = sumChunks4By4
	dotChunks4 = dotChunks4By4
)

// Arch names the loops in use: "neon" here.
func Arch() string { return "neon" }
