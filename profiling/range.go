package profiling

import (
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/anygpu/gpu/profiling/internal/nvtx"
)

// Range starts a user range named name, like PyTorch's record_function or
// an NVTX range, and returns the function that ends it:
//
//	defer prof.Range("forward")()
//
// The ended range is a host-timed Record of KindRange (Device "", Stream
// -1) from the call to the end, shown in every report. Ranges nest (an inner
// range ends before the outer one) and may be opened from many goroutines at
// once; calling end twice records the range once. A nil Profiler returns an
// end that does nothing.
//
// Where the NVTX library (CUDA 12's libnvToolsExt.so.1 or CUDA 13's
// libnvtx3interop.so.1, found by the system's search, in $CUDA_HOME,
// /usr/local/cuda or the nvidia-nvtx wheel, or named by ANYGPU_NVTX_LIBRARY)
// loads,
// each range is also an NVTX range (nvtxRangeStartA/nvtxRangeEnd), so Nsight
// Systems shows it on its timeline. Without the library nothing else
// happens; the reason is logged once at debug level.
func (p *Profiler) Range(name string) (end func()) {
	if p == nil {
		return func() {}
	}
	lib := nvtxLibrary()
	var id uint64
	if lib != nil {
		id = lib.Start(name)
	}
	start := p.Elapsed()
	var ended atomic.Bool
	return func() {
		if !ended.CompareAndSwap(false, true) {
			return
		}
		stop := p.Elapsed()
		if lib != nil {
			lib.End(id)
		}
		p.Add(Record{Kind: KindRange, Name: name, Stream: -1, Start: start, End: stop, HostTimed: true})
	}
}

// nvtxLibrary is the NVTX library, or nil when none loads; the first call
// looks for it.
var nvtxLibrary = sync.OnceValue(func() *nvtx.Library {
	lib, err := nvtx.Load()
	if err != nil {
		slog.Debug("anygpu: user ranges are not NVTX ranges", "err", err)
		return nil
	}
	slog.Debug("anygpu: user ranges are NVTX ranges", "library", lib.Path)
	return lib
})
