package cpu

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu/internal/memview"
)

// parallelFor calls fn on consecutive sub-ranges of [0, n) of at least grain
// items, on up to GOMAXPROCS goroutines (the caller's included), and returns
// the first panic as an error.
func parallelFor(op string, n, grain int, fn func(lo, hi int)) (err error) {
	if n <= 0 {
		return nil
	}
	workers := runtime.GOMAXPROCS(0)
	if grain < 1 {
		grain = 1
	}
	if maxW := (n + grain - 1) / grain; workers > maxW {
		workers = maxW
	}
	if workers <= 1 {
		defer func() {
			if v := recover(); v != nil {
				err = panicError(op, v)
			}
		}()
		fn(0, n)
		return nil
	}
	// Chunks a few times smaller than an even split balance uneven work
	// without paying much for the shared counter.
	chunk := n / (workers * 4)
	if chunk < grain {
		chunk = grain
	}
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	work := func() {
		defer wg.Done()
		defer func() {
			if v := recover(); v != nil {
				errOnce.Do(func() { firstErr = panicError(op, v) })
			}
		}()
		for {
			lo := int(next.Add(int64(chunk))) - chunk
			if lo >= n {
				return
			}
			hi := lo + chunk
			if hi > n {
				hi = n
			}
			fn(lo, hi)
		}
	}
	wg.Add(workers)
	for i := 1; i < workers; i++ {
		go work()
	}
	work()
	wg.Wait()
	return firstErr
}

// copyGrain is the smallest piece a parallel copy or fill hands to a core.
const copyGrain = 512 << 10

// parallelCopy copies src into dst (equal lengths) using several cores for
// large copies: one core cannot saturate the memory bus.
func parallelCopy(dst, src []byte) {
	if len(dst) < 2*copyGrain {
		copy(dst, src)
		return
	}
	_ = parallelFor("copy", len(dst), copyGrain, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}

// fill32 sets dst (a multiple of 4 bytes, 4-byte aligned) to the repeated v.
func fill32(dst []byte, v uint32) {
	fillPiece := func(p []byte) {
		seed := p
		if len(seed) > 256 {
			seed = seed[:256]
		}
		words := memview.As[uint32](seed)
		for i := range words {
			words[i] = v
		}
		// Doubling copies run at memmove speed.
		for done := len(seed); done < len(p); done *= 2 {
			copy(p[done:], p[:done])
		}
	}
	if len(dst) < 2*copyGrain {
		fillPiece(dst)
		return
	}
	_ = parallelFor("fill", len(dst)/4, copyGrain/4, func(lo, hi int) { fillPiece(dst[4*lo : 4*hi]) })
}
