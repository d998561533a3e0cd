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
	// maxCopyWorkers bounds the goroutines of one copy: a large memcpy is
	// bound by one core's bandwidth (about 9 GB/s on the H200 machine), and
	// a few cores reach the memory's.
	maxCopyWorkers = 16
	// Go's copy switches to non-temporal stores from 1 MiB up. Uploads fill
	// staging memory in pieces under that (uploadPiece), so the chunk stays
	// in the last-level cache, from which the device's copy may read it;
	// downloads copy out of staging memory in pieces of at least that
	// (downloadPiece), so the caller's memory is written without reading it
	// first. The CUDA backend's staging sweep on an H200 found the same
	// (backend/cuda/staging.go).
	uploadPiece   = 512 << 10
	downloadPiece = 1 << 20
)

// parallelCopy copies src into dst (len(dst) >= len(src)) with up to
// maxCopyWorkers goroutines, each taking one contiguous piece of at least
// piece bytes, and returns when all of it is copied.
func parallelCopy(dst, src []byte, piece int) {
	n := len(src)
	workers := min(runtime.GOMAXPROCS(0), maxCopyWorkers, n/max(piece, 1))
	if n < parallelCopyMin || workers < 2 {
		copy(dst, src)
		return
	}
	// Pieces are multiples of 64 bytes (a cache line), the last takes the
	// rest.
	step := (n/workers + 63) &^ 63
	var wg sync.WaitGroup
	for lo := step; lo < n; lo += step {
		hi := min(lo+step, n)
		wg.Go(func() { copy(dst[lo:hi], src[lo:hi]) })
	}
	copy(dst[:min(step, n)], src[:min(step, n)])
	wg.Wait()
}
