//go:build cgo

package webgpu

import (
	"runtime"
	"sync"
)

const (
	// parallelCopyMin is the smallest copy split over several goroutines:
	// below it, starting them costs more than they save.
	parallelCopyMin = 1 << 20
	// copyPiece is the least each goroutine of a parallel copy moves.
	copyPiece = 512 << 10
	// maxCopyWorkers bounds the goroutines of one copy: a large memcpy is
	// bound by one core's bandwidth, and a few cores reach the memory's.
	maxCopyWorkers = 16
)

// parallelCopy copies src into dst (len(dst) >= len(src)) with up to
// maxCopyWorkers goroutines, each taking one contiguous piece, and returns
// when all of it is copied.
func parallelCopy(dst, src []byte) {
	n := len(src)
	workers := min(runtime.GOMAXPROCS(0), maxCopyWorkers, n/copyPiece)
	if n < parallelCopyMin || workers < 2 {
		copy(dst, src)
		return
	}
	// Pieces are multiples of 64 bytes (a cache line), the last takes the
	// rest.
	piece := (n/workers + 63) &^ 63
	var wg sync.WaitGroup
	for lo := piece; lo < n; lo += piece {
		hi := min(lo+piece, n)
		wg.Go(func() { copy(dst[lo:hi], src[lo:hi]) })
	}
	copy(dst[:min(piece, n)], src[:min(piece, n)])
	wg.Wait()
}
