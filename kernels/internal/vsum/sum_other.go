//go:build !amd64 && !arm64

package vsum

// On this architecture the pure-Go loops run.
var (
	sum4       = sum4Generic
	dot4       = dot4Generic
	sumChunks4 = sumChunks4By4
	dotChunks4 = dotChunks4By4
)

// Arch names the loops in use: "generic" (pure Go) here.
func Arch() string { return "generic" }
