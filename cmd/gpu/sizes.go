package main

import (
	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/backend"
)

// sizes are the problem sizes and repetition counts of one bench run.
type sizes struct {
	TransferBytes int64 // each transfer metric moves this many bytes per run
	Elements      int   // float32 elements of saxpy and reduce
	SgemmN        int   // sgemm is SgemmN × SgemmN × SgemmN
	SgemmReduced  bool  // SgemmN is below the full size because the device is slow
	AllocBytes    int64 // size of each allocation of alloc_free_us
	Launches      int   // launches per round of launch_us
	AllocPairs    int   // Alloc+Close pairs per round of alloc_free_us
	Rounds        int   // rounds of launch_us and alloc_free_us
	Reps          int   // timed runs of every other metric (after one warm-up)
	SgemmReps     int   // timed runs of sgemm
}

// fullSgemmN is the sgemm size measured on a GPU; slowSgemmN is used instead
// on devices that execute on a CPU (the CPU backend, software rasterisers,
// simulated devices), where 4096³ would take minutes.
const (
	fullSgemmN = 4096
	slowSgemmN = 2048
)

// slowDevice reports whether the device computes on a CPU: the CPU backend,
// a software driver, or a simulated device (which presents a GPU's
// DeviceInfo but runs on the CPU backend).
func slowDevice(info gpu.DeviceInfo, simulated bool) bool {
	if simulated {
		return true
	}
	switch info.Type {
	case backend.TypeCPU, backend.TypeSoftware, backend.TypeSimulated:
		return true
	}
	return false
}

// sizesFor returns the sizes for a device: a GPU's (256 MiB transfers,
// 64 Mi elements, 4096³ sgemm, 1 MiB allocations), or much smaller ones with
// quick.
func sizesFor(info gpu.DeviceInfo, simulated, quick bool) sizes {
	if quick {
		return sizes{
			TransferBytes: 16 << 20, Elements: 4 << 20, SgemmN: 512, AllocBytes: 1 << 20,
			Launches: 1000, AllocPairs: 500, Rounds: 3, Reps: 3, SgemmReps: 3,
		}
	}
	s := sizes{
		TransferBytes: 256 << 20, Elements: 64 << 20, SgemmN: fullSgemmN, AllocBytes: 1 << 20,
		Launches: 10000, AllocPairs: 2000, Rounds: 5, Reps: 10, SgemmReps: 10,
	}
	if slowDevice(info, simulated) {
		s.SgemmN, s.SgemmReduced, s.SgemmReps = slowSgemmN, true, 3
	}
	return s
}
