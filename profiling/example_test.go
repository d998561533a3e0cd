package profiling_test

import (
	"fmt"

	"github.com/anygpu/gpu/profiling"
)

// An H100 (compute capability 9.0) and a kernel of 64 registers per thread,
// launched with 128 threads per block.
func ExampleOccupancy() {
	h100 := profiling.Limits{
		ComputeMajor: 9, ComputeMinor: 0, SMs: 132, WarpSize: 32,
		MaxThreadsPerBlock: 1024, MaxThreadsPerSM: 2048, MaxBlocksPerSM: 32,
		RegistersPerBlock: 65536, RegistersPerSM: 65536,
		SharedMemPerBlock: 48 << 10, SharedMemPerBlockOptin: 227 << 10, SharedMemPerSM: 228 << 10,
		ReservedSharedMemPerBlock: 1 << 10, CarveoutPercent: profiling.CarveoutDefault,
	}
	kernel := profiling.KernelAttrs{Registers: 64}

	r, err := profiling.Occupancy(h100, kernel, 128, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d blocks/SM, %d warps/SM, %.0f%% occupancy, limited by %s\n",
		r.BlocksPerSM, r.WarpsPerSM, 100*r.Occupancy, r.Limiter)

	kernel.Registers = 32
	r, _ = profiling.Occupancy(h100, kernel, 128, 0)
	fmt.Printf("%d blocks/SM, %d warps/SM, %.0f%% occupancy, limited by %s\n",
		r.BlocksPerSM, r.WarpsPerSM, 100*r.Occupancy, r.Limiter)

	minGrid, block, _ := profiling.SuggestBlockSize(h100, kernel, nil, 0)
	fmt.Printf("suggested: %d threads per block, at least %d blocks\n", block, minGrid)
	// Output:
	// 8 blocks/SM, 32 warps/SM, 50% occupancy, limited by registers
	// 16 blocks/SM, 64 warps/SM, 100% occupancy, limited by warps|registers
	// suggested: 1024 threads per block, at least 264 blocks
}
