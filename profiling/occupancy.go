package profiling

import (
	"fmt"
	"math"
	"strings"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// This file is the CUDA occupancy calculation of NVIDIA's cuda_occupancy.h
// (CUDA 12.6, which knows compute capabilities up to 9.0), transcribed step by
// step (occupancy below lists the five steps; each step's function names the
// header's function it follows), extended to 10.x (treated as 9.0)
// and 12.x (9.0's rules with 8.6's carveouts) from NVIDIA's documentation.
// Partitioned global caching (5.2/5.3/6.x only) is always off, as it is by
// default in CUDA, and the legacy cache configuration is "prefer none"; only
// the carveout preference (Limits.CarveoutPercent) selects the shared memory
// size of an SM.

// Shared memory carveout preferences for Limits.CarveoutPercent, as
// CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT takes them. Any percent
// in 0..100 is allowed; it is rounded up to a carveout the device supports.
const (
	CarveoutDefault   = -1  // no preference: the whole SharedMemPerSM
	CarveoutMaxL1     = 0   // as little shared memory as possible
	CarveoutHalf      = 50  // half of SharedMemPerSM
	CarveoutMaxShared = 100 // all of SharedMemPerSM
)

// Unlimited is the per-factor block limit (OccupancyResult.BlockLimit*) of a
// resource the kernel does not use, as INT_MAX is in cuda_occupancy.h.
const Unlimited = math.MaxInt32

// Limits are the per-device capacities the occupancy calculation needs: the
// cudaOccDeviceProp of cuda_occupancy.h, plus the carveout preference of the
// kernel (cudaOccDeviceState). Fill it with LimitsFrom, or by hand from
// cuDeviceGetAttribute; every count must fit in an int32.
//
// CarveoutPercent is -1 (CarveoutDefault) for no preference. Note that the
// zero Limits value means 0% (CarveoutMaxL1), so a hand-built Limits should
// set it to CarveoutDefault unless it means that.
type Limits struct {
	ComputeMajor, ComputeMinor int // compute capability; 0 for non-CUDA devices
	SMs                        int // multiprocessors (CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
	WarpSize                   int
	MaxThreadsPerBlock         int
	MaxThreadsPerSM            int
	MaxBlocksPerSM             int // device-reported; 0 = the table of cuda_occupancy.h for the compute capability
	RegistersPerBlock          int
	RegistersPerSM             int
	SharedMemPerBlock          int // default per-block limit (48 KiB)
	SharedMemPerBlockOptin     int // per-block limit after opting in; 0 = SharedMemPerBlock
	SharedMemPerSM             int
	ReservedSharedMemPerBlock  int // reserved by the driver per block (1 KiB on 8.0+)
	CarveoutPercent            int // -1 default, 0..100 preferred shared memory share of the SM
}

// LimitsFrom maps a DeviceInfo to Limits: Units are the SMs, MaxThreadsPerUnit,
// MaxBlocksPerUnit, RegistersPerUnit and SharedMemPerUnit the per-SM
// capacities, ReservedSharedPerBlock the reserved shared memory. The
// carveout preference is CarveoutDefault. A non-CUDA device maps to Limits
// with ComputeMajor 0, for which Occupancy reports NotSupported.
func LimitsFrom(info backend.DeviceInfo) Limits {
	return Limits{
		ComputeMajor:              info.ComputeMajor,
		ComputeMinor:              info.ComputeMinor,
		SMs:                       info.Units,
		WarpSize:                  info.WarpSize,
		MaxThreadsPerBlock:        info.MaxThreadsPerBlock,
		MaxThreadsPerSM:           info.MaxThreadsPerUnit,
		MaxBlocksPerSM:            info.MaxBlocksPerUnit,
		RegistersPerBlock:         info.RegistersPerBlock,
		RegistersPerSM:            info.RegistersPerUnit,
		SharedMemPerBlock:         info.SharedMemPerBlock,
		SharedMemPerBlockOptin:    info.SharedMemPerBlockOptin,
		SharedMemPerSM:            info.SharedMemPerUnit,
		ReservedSharedMemPerBlock: info.ReservedSharedPerBlock,
		CarveoutPercent:           CarveoutDefault,
	}
}

// KernelAttrs are the resources of one kernel (cudaOccFuncAttributes).
//
// This is a struct of its own rather than backend.KernelAttributes because
// the calculation needs two things the backend does not report: whether the
// kernel opted in to more than 48 KiB of shared memory, and its block
// barrier count. AttrsFrom converts.
type KernelAttrs struct {
	Registers          int // registers per thread (CU_FUNC_ATTRIBUTE_NUM_REGS)
	SharedMemBytes     int // static shared memory per block (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
	MaxThreadsPerBlock int // the kernel's own block size limit; 0 = the device's

	// OptIn selects the opt-in shared memory limit (FUNC_SHMEM_LIMIT_OPTIN):
	// the kernel's dynamic shared memory limit was set with
	// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, blocks may use up to
	// Limits.SharedMemPerBlockOptin, and a launch asking for more dynamic
	// shared memory than MaxDynamicShared cannot run. Without OptIn the
	// per-block limit is Limits.SharedMemPerBlock (48 KiB).
	OptIn bool
	// MaxDynamicShared is the kernel's dynamic shared memory limit. 0 means
	// the CUDA default: SharedMemPerBlock-SharedMemBytes, or with OptIn the
	// most the device allows, SharedMemPerBlockOptin-SharedMemBytes.
	MaxDynamicShared int
	// BlockBarriers is the number of block barriers the kernel uses. On 9.0
	// and later an SM has 2 per resident block slot (64 on 9.0), which limits
	// the blocks of kernels using many. 0 = not counted (CUDA kernels use 1,
	// which never limits).
	BlockBarriers int
}

// AttrsFrom converts the attributes a backend reports. OptIn is set when the
// backend reported a dynamic shared memory limit (CUDA always does, and the
// CUDA runtime's own conversion always opts in), and BlockBarriers is 1, as
// the CUDA runtime assumes.
func AttrsFrom(a backend.KernelAttributes) KernelAttrs {
	return KernelAttrs{
		Registers:          a.Registers,
		SharedMemBytes:     a.SharedMemBytes,
		MaxThreadsPerBlock: a.MaxThreadsPerBlock,
		OptIn:              a.MaxDynamicShared > 0,
		MaxDynamicShared:   a.MaxDynamicShared,
		BlockBarriers:      1,
	}
}

// LimitFactor is a set of the resources that limit occupancy
// (cudaOccLimitingFactor). Several are set when they tie.
type LimitFactor uint8

// The limiting factors, with cuda_occupancy.h's bit values.
const (
	LimitWarps     LimitFactor = 1 << iota // warp slots of the SM (block size)
	LimitRegisters                         // register file
	LimitSharedMem                         // shared memory
	LimitBlocks                            // resident block slots of the SM
	LimitBarriers                          // block barriers (9.0 and later)
)

var limitNames = [...]string{"warps", "registers", "shared memory", "blocks", "barriers"}

// Has reports whether every factor of g is in f.
func (f LimitFactor) Has(g LimitFactor) bool { return f&g == g }

// String joins the names of the set factors with "|" ("warps|registers");
// "none" for the empty set.
func (f LimitFactor) String() string {
	if f == 0 {
		return "none"
	}
	var parts []string
	for i, n := range limitNames {
		if f&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if rest := f &^ (1<<len(limitNames) - 1); rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", uint8(rest)))
	}
	return strings.Join(parts, "|")
}

// OccupancyResult is the theoretical occupancy of one launch configuration.
type OccupancyResult struct {
	BlocksPerSM  int     // resident blocks per SM; 0 = the launch cannot run
	WarpsPerSM   int     // BlocksPerSM * warps per block
	ThreadsPerSM int     // BlocksPerSM * block size
	Occupancy    float64 // WarpsPerSM / (MaxThreadsPerSM / WarpSize), 0..1
	// Limiter is the set of factors at the minimum of the warp, register,
	// shared memory and block limits, plus LimitBarriers when the barrier
	// limit (9.0+) is at the final count. As in cuda_occupancy.h, a barrier
	// limit below the others leaves the factors of that first minimum set.
	Limiter LimitFactor

	RegistersPerBlock int // registers allocated per block (per-warp granularity 256)
	SharedMemPerBlock int // shared memory allocated per block: static + reserved + dynamic, rounded to the granularity

	// The block limit of each factor; Unlimited where the kernel does not
	// use the resource (no registers, no shared memory, no barriers counted).
	BlockLimitWarps, BlockLimitRegisters, BlockLimitSharedMem, BlockLimitBlocks, BlockLimitBarriers int
}

// arch holds what cuda_occupancy.h hard-codes per compute capability.
type arch struct {
	smemGranularity  int   // bytes
	maxRegsPerThread int   // numRegs above this: 0 blocks
	subPartitions    int   // register file partitions per SM
	maxBlocks        int   // resident blocks per SM
	carveoutsKB      []int // legal shared memory sizes per SM; nil before Volta
	reservedInLimit  bool  // the reserved shared memory is added to the per-block limit (8.0+)
	barriersPerBlock int   // barriers per block slot; 0 = no barrier limit (before 9.0)
}

const regAllocGranularity = 256 // registers, allocated per warp, on every supported CC

var (
	carveoutsVolta  = []int{0, 8, 16, 32, 64, 96}
	carveoutsTuring = []int{32, 64}
	carveoutsA100   = []int{0, 8, 16, 32, 64, 100, 132, 164}
	carveouts100    = []int{0, 8, 16, 32, 64, 100}
	carveoutsHopper = []int{0, 8, 16, 32, 64, 100, 132, 164, 196, 228}
)

// archOf returns the per-CC constants; ok is false for compute capabilities
// the calculation does not know.
func archOf(major, minor int) (a arch, ok bool) {
	switch major {
	case 5, 6:
		a = arch{smemGranularity: 256, maxRegsPerThread: 255, subPartitions: 4, maxBlocks: 32}
		if major == 6 && minor == 0 {
			a.subPartitions = 2 // GP100
		}
	case 7:
		a = arch{smemGranularity: 256, maxRegsPerThread: 256, subPartitions: 4, maxBlocks: 32, carveoutsKB: carveoutsVolta}
		if minor == 5 {
			a.maxBlocks, a.carveoutsKB = 16, carveoutsTuring
		}
	case 8:
		a = arch{smemGranularity: 128, maxRegsPerThread: 256, subPartitions: 4, maxBlocks: 16, carveoutsKB: carveouts100, reservedInLimit: true}
		switch minor {
		case 0:
			a.maxBlocks = 32
		case 9:
			a.maxBlocks = 24
		}
		if minor == 0 || minor == 7 {
			a.carveoutsKB = carveoutsA100
		}
	case 9, 10:
		a = arch{smemGranularity: 128, maxRegsPerThread: 256, subPartitions: 4, maxBlocks: 32, carveoutsKB: carveoutsHopper, reservedInLimit: true, barriersPerBlock: 2}
	case 12:
		// Not in the 12.6 header. NVIDIA documents 48 warps, 32 blocks and
		// carveouts up to 100 KB per SM; the rest is taken from 9.0.
		a = arch{smemGranularity: 128, maxRegsPerThread: 256, subPartitions: 4, maxBlocks: 32, carveoutsKB: carveouts100, reservedInLimit: true, barriersPerBlock: 2}
	default:
		return arch{}, false
	}
	return a, true
}

// alignUp rounds a shared memory size up to the next legal carveout
// (cudaOccAlignUpShmemSizeVoltaPlus); ok is false above the largest.
func (a arch) alignUp(size int) (int, bool) {
	for _, kb := range a.carveoutsKB {
		if size <= kb*1024 {
			return kb * 1024, true
		}
	}
	return 0, false
}

func divUp(x, y int) int   { return (x + y - 1) / y }
func roundUp(x, y int) int { return y * divUp(x, y) }

// mulSat multiplies non-negative a and b, saturating at math.MaxInt.
func mulSat(a, b int) int {
	if a != 0 && b > math.MaxInt/a {
		return math.MaxInt
	}
	return a * b
}

func invalid(format string, args ...any) *errors.Error {
	return errors.E(errors.InvalidArgument, "", "occupancy", format, args...)
}

// check validates l and k and returns the constants of l's compute
// capability.
func check(l Limits, k KernelAttrs) (arch, error) {
	if l.ComputeMajor == 0 {
		e := errors.E(errors.NotSupported, "", "occupancy",
			"the occupancy calculation needs CUDA-style limits (compute capability, per-SM registers, warps and shared memory); this device has no compute capability")
		e.Hint = "occupancy applies to CUDA devices only; use LimitsFrom on a CUDA DeviceInfo"
		return arch{}, e
	}
	a, ok := archOf(l.ComputeMajor, l.ComputeMinor)
	if !ok {
		e := errors.E(errors.NotSupported, "", "occupancy",
			"compute capability %d.%d is not known to the occupancy calculation (it knows 5.x-10.x and 12.x)",
			l.ComputeMajor, l.ComputeMinor)
		e.Hint = "use cuOccupancyMaxActiveBlocksPerMultiprocessor on the device"
		return arch{}, e
	}
	positive := []struct {
		name string
		v    int
	}{
		{"SMs", l.SMs}, {"WarpSize", l.WarpSize}, {"MaxThreadsPerBlock", l.MaxThreadsPerBlock},
		{"MaxThreadsPerSM", l.MaxThreadsPerSM}, {"RegistersPerBlock", l.RegistersPerBlock},
		{"RegistersPerSM", l.RegistersPerSM}, {"SharedMemPerBlock", l.SharedMemPerBlock},
		{"SharedMemPerSM", l.SharedMemPerSM},
	}
	for _, f := range positive {
		if f.v <= 0 || f.v > math.MaxInt32 {
			return a, invalid("Limits.%s is %d; it must be in 1..%d", f.name, f.v, math.MaxInt32)
		}
	}
	nonNegative := []struct {
		name string
		v    int
	}{
		{"Limits.MaxBlocksPerSM", l.MaxBlocksPerSM}, {"Limits.SharedMemPerBlockOptin", l.SharedMemPerBlockOptin},
		{"Limits.ReservedSharedMemPerBlock", l.ReservedSharedMemPerBlock},
		{"KernelAttrs.Registers", k.Registers}, {"KernelAttrs.SharedMemBytes", k.SharedMemBytes},
		{"KernelAttrs.MaxThreadsPerBlock", k.MaxThreadsPerBlock},
		{"KernelAttrs.MaxDynamicShared", k.MaxDynamicShared}, {"KernelAttrs.BlockBarriers", k.BlockBarriers},
	}
	for _, f := range nonNegative {
		if f.v < 0 || f.v > math.MaxInt32 {
			return a, invalid("%s is %d; it must be in 0..%d", f.name, f.v, math.MaxInt32)
		}
	}
	if l.CarveoutPercent < CarveoutDefault || l.CarveoutPercent > CarveoutMaxShared {
		return a, invalid("Limits.CarveoutPercent is %d; it must be -1 (default) or 0..100", l.CarveoutPercent)
	}
	if l.MaxBlocksPerSM > 0 {
		a.maxBlocks = l.MaxBlocksPerSM
	}
	return a, nil
}

// Occupancy computes how many blocks of blockSize threads, each with dynSmem
// bytes of dynamic shared memory, fit on one SM at once
// (cuOccupancyMaxActiveBlocksPerMultiprocessor), and what limits them.
//
// The five steps of cuda_occupancy.h:
//
//  1. registers: Registers*WarpSize rounded up to 256 per warp; a block must
//     fit RegistersPerBlock even with its warps rounded up to the 4 register
//     sub-partitions (the hardware check), and no more than 256 registers per
//     thread (255 before 7.0); each sub-partition holds
//     (RegistersPerSM/4)/registers-per-warp warps.
//  2. warps: (MaxThreadsPerSM/WarpSize) / ceil(blockSize/WarpSize); 0 when
//     blockSize exceeds MaxThreadsPerBlock.
//  3. blocks: the per-CC maximum (32; 16 on 7.5, 8.6, 8.7; 24 on 8.9), or
//     Limits.MaxBlocksPerSM when set.
//  4. shared memory: static + reserved + dynamic, rounded up to 128 bytes
//     (256 before 8.0), against the per-block limit (48 KiB, or the opt-in
//     limit, plus the reserved 1 KiB on 8.0+) and the SM's carveout: the
//     preference rounded up to a legal carveout size, or the smallest
//     carveout that holds one block when the preference is smaller.
//  5. the minimum of the four, and on 9.0+ the block barrier limit
//     (2*blocks/BlockBarriers).
//
// The kernel's own MaxThreadsPerBlock is not checked here, as
// cuda_occupancy.h does not check it; SuggestBlockSize honours it.
//
// Checked against cuOccupancyMaxActiveBlocksPerMultiprocessor on an H200
// (9.0, driver 580): the same block count for all 759402 combinations of 63
// kernels (8 to 206 registers, 0/10000/40000 bytes of static shared memory),
// three dynamic shared memory limits, seven carveout preferences, 41 block
// sizes and 14 dynamic shared memory sizes. Other compute capabilities follow
// the header and NVIDIA's documentation but were not measured.
// Bad input is an *errors.Error of category InvalidArgument; Limits of a
// non-CUDA device (ComputeMajor 0) or of an unknown compute capability are
// NotSupported. It never panics.
func Occupancy(l Limits, k KernelAttrs, blockSize, dynSmem int) (OccupancyResult, error) {
	if blockSize <= 0 || blockSize > math.MaxInt32 {
		return OccupancyResult{}, invalid("block size %d must be in 1..%d", blockSize, math.MaxInt32)
	}
	if dynSmem < 0 || dynSmem > math.MaxInt32 {
		return OccupancyResult{}, invalid("dynamic shared memory %d must be in 0..%d bytes", dynSmem, math.MaxInt32)
	}
	a, err := check(l, k)
	if err != nil {
		return OccupancyResult{}, err
	}
	return occupancy(l, a, k, blockSize, dynSmem)
}

// occupancy is Occupancy on checked input.
func occupancy(l Limits, a arch, k KernelAttrs, blockSize, dynSmem int) (OccupancyResult, error) {
	var r OccupancyResult
	warpsPerBlock := divUp(blockSize, l.WarpSize)

	// 1. registers
	limRegs, regsPerBlock := regsLimit(l, a.subPartitions, a.maxRegsPerThread, k.Registers, warpsPerBlock)
	if a.subPartitions == 2 && limRegs > 0 {
		// GP100: a kernel that cannot run on GP10x (4 sub-partitions) is
		// not allowed on any Pascal, as in cuda_occupancy.h.
		if lim4, _ := regsLimit(l, 4, a.maxRegsPerThread, k.Registers, warpsPerBlock); lim4 == 0 {
			limRegs = 0
		}
	}
	r.RegistersPerBlock = regsPerBlock

	// 2. warps
	limWarps := 0
	if blockSize <= l.MaxThreadsPerBlock {
		limWarps = (l.MaxThreadsPerSM / l.WarpSize) / warpsPerBlock
	}

	// 3. blocks
	limBlocks := a.maxBlocks

	// 4. shared memory
	limSmem, alloc, err := smemLimit(l, a, k, dynSmem)
	if err != nil {
		return OccupancyResult{}, err
	}
	r.SharedMemPerBlock = alloc

	// 5. combine
	lim := min(limRegs, limSmem, limWarps, limBlocks)
	if lim == limWarps {
		r.Limiter |= LimitWarps
	}
	if lim == limRegs {
		r.Limiter |= LimitRegisters
	}
	if lim == limSmem {
		r.Limiter |= LimitSharedMem
	}
	if lim == limBlocks {
		r.Limiter |= LimitBlocks
	}
	limBars := Unlimited
	if a.barriersPerBlock > 0 && k.BlockBarriers > 0 {
		limBars = limBlocks * a.barriersPerBlock / k.BlockBarriers
		lim = min(lim, limBars)
		if lim == limBars {
			r.Limiter |= LimitBarriers
		}
	}

	r.BlocksPerSM = lim
	r.WarpsPerSM = lim * warpsPerBlock
	r.ThreadsPerSM = lim * blockSize
	if maxWarps := l.MaxThreadsPerSM / l.WarpSize; maxWarps > 0 {
		r.Occupancy = float64(r.WarpsPerSM) / float64(maxWarps)
	}
	r.BlockLimitWarps, r.BlockLimitRegisters, r.BlockLimitSharedMem = limWarps, limRegs, limSmem
	r.BlockLimitBlocks, r.BlockLimitBarriers = limBlocks, limBars
	return r, nil
}

// regsLimit is step 1 (cudaOccMaxBlocksPerSMRegsLimit with partitioned
// global caching off): the block limit and the registers allocated per block.
func regsLimit(l Limits, subPartitions, maxRegsPerThread, regs, warpsPerBlock int) (limit, perBlock int) {
	perWarp := roundUp(mulSat(regs, l.WarpSize), regAllocGranularity)
	perBlock = mulSat(perWarp, warpsPerBlock)
	assumed := mulSat(perWarp, roundUp(warpsPerBlock, subPartitions)) // the hardware check
	switch {
	case l.RegistersPerBlock < assumed || l.RegistersPerBlock < perBlock || regs > maxRegsPerThread:
		return 0, perBlock
	case perWarp == 0:
		return Unlimited, perBlock
	}
	warpsPerSubPartition := (l.RegistersPerSM / subPartitions) / perWarp
	return warpsPerSubPartition * subPartitions / warpsPerBlock, perBlock
}

// maxDynamicShared is the kernel's effective dynamic shared memory limit.
func maxDynamicShared(l Limits, k KernelAttrs) int {
	if k.MaxDynamicShared > 0 {
		return k.MaxDynamicShared
	}
	limit := l.SharedMemPerBlock
	if k.OptIn && l.SharedMemPerBlockOptin > 0 {
		limit = l.SharedMemPerBlockOptin
	}
	return max(limit-k.SharedMemBytes, 0)
}

// perBlockSmemLimit is cudaOccSMemPerBlock: the most shared memory one block
// may be allocated, for a kernel whose largest use is maxUsage.
func perBlockSmemLimit(l Limits, a arch, k KernelAttrs, maxUsage int) int {
	limit := l.SharedMemPerBlock
	if a.carveoutsKB != nil && k.OptIn && maxUsage > l.SharedMemPerBlock && l.SharedMemPerBlockOptin > 0 {
		limit = l.SharedMemPerBlockOptin
	}
	if a.reservedInLimit {
		limit += l.ReservedSharedMemPerBlock
	}
	return limit
}

// preference is the shared memory an SM is configured with for this kernel
// (cudaOccSMemPerMultiprocessor).
func preference(l Limits, a arch) (int, error) {
	if a.carveoutsKB == nil { // before Volta: fixed shared memory
		return l.SharedMemPerSM, nil
	}
	bytes := l.SharedMemPerSM
	if l.CarveoutPercent != CarveoutDefault {
		bytes = l.CarveoutPercent * l.SharedMemPerSM / 100
	}
	pref, ok := a.alignUp(bytes)
	if !ok {
		return 0, invalid("shared memory per SM of %d bytes is more than the largest carveout (%d KiB) of compute capability %d.%d",
			bytes, a.carveoutsKB[len(a.carveoutsKB)-1], l.ComputeMajor, l.ComputeMinor)
	}
	return pref, nil
}

// smemLimit is step 4 (cudaOccMaxBlocksPerSMSmemLimit): the block limit and
// the shared memory allocated per block.
func smemLimit(l Limits, a arch, k KernelAttrs, dynSmem int) (limit, alloc int, err error) {
	pref, err := preference(l, a)
	if err != nil {
		return 0, 0, err
	}
	static := k.SharedMemBytes + l.ReservedSharedMemPerBlock
	alloc = roundUp(static+dynSmem, a.smemGranularity)
	maxDyn := maxDynamicShared(l, k)
	dynExceeded := k.OptIn && dynSmem > maxDyn
	perBlock := perBlockSmemLimit(l, a, k, static+maxDyn)
	if dynExceeded || alloc > perBlock {
		return 0, alloc, nil
	}
	perSM := pref
	if pref < alloc {
		// The preference is only a hint: it limits occupancy, but the SM
		// is configured with at least enough for one block.
		if a.carveoutsKB == nil {
			perSM = l.SharedMemPerSM
		} else if perSM, err = alignUpOrErr(l, a, alloc); err != nil {
			return 0, alloc, err
		}
	}
	if alloc == 0 {
		return Unlimited, 0, nil
	}
	return perSM / alloc, alloc, nil
}

func alignUpOrErr(l Limits, a arch, size int) (int, error) {
	v, ok := a.alignUp(size)
	if !ok {
		return 0, invalid("%d bytes of shared memory per block is more than the largest carveout (%d KiB) of compute capability %d.%d",
			size, a.carveoutsKB[len(a.carveoutsKB)-1], l.ComputeMajor, l.ComputeMinor)
	}
	return v, nil
}

// SuggestBlockSize returns the block size that maximises the resident
// threads per SM, and the smallest grid that fills every SM at that block
// size (blocks per SM * SMs), as cuOccupancyMaxPotentialBlockSize does.
//
// Block sizes are tried from the largest allowed (the least of
// Limits.MaxThreadsPerBlock, KernelAttrs.MaxThreadsPerBlock and
// blockSizeLimit, the last two when non-zero) down in steps of WarpSize; the
// first, largest size of the best occupancy wins (ties keep the larger block),
// and the search stops early at 100%. dynSmem, if not nil, gives the dynamic
// shared memory a block of each size needs; nil means none.
//
// Unlike CUDA, which returns a block size of 0, it returns an error of
// category Launch when no block size can run (the kernel needs more
// registers or shared memory than an SM has).
//
// The carveout preference is honoured as Occupancy honours it, as it is by
// cuda_occupancy.h and by the CUDA runtime's cudaOccupancyMaxPotentialBlockSize
// (which searches with cudaOccupancyMaxActiveBlocksPerMultiprocessor). The
// driver's cuOccupancyMaxPotentialBlockSize agrees for the default carveout,
// 0 and 100 (measured on an H200, driver 580), but computes any other
// percentage as if no preference were set; pass CarveoutDefault to reproduce
// its answer there.
func SuggestBlockSize(l Limits, k KernelAttrs, dynSmem func(blockSize int) int, blockSizeLimit int) (minGridSize, blockSize int, err error) {
	a, err := check(l, k)
	if err != nil {
		return 0, 0, err
	}
	if blockSizeLimit < 0 {
		return 0, 0, invalid("block size limit %d must not be negative (0 = no limit)", blockSizeLimit)
	}
	limit := l.MaxThreadsPerBlock
	if k.MaxThreadsPerBlock > 0 {
		limit = min(limit, k.MaxThreadsPerBlock)
	}
	if blockSizeLimit > 0 {
		limit = min(limit, blockSizeLimit)
	}
	occLimit := l.MaxThreadsPerSM
	gran := l.WarpSize
	best, bestBlocks, bestThreads := 0, 0, 0
	for aligned := roundUp(limit, gran); aligned > 0; aligned -= gran {
		bs := min(limit, aligned)
		dyn := 0
		if dynSmem != nil {
			dyn = dynSmem(bs)
			if dyn < 0 || dyn > math.MaxInt32 {
				return 0, 0, invalid("dynamic shared memory for block size %d is %d; it must be in 0..%d bytes", bs, dyn, math.MaxInt32)
			}
		}
		r, err := occupancy(l, a, k, bs, dyn)
		if err != nil {
			return 0, 0, err
		}
		if threads := bs * r.BlocksPerSM; threads > bestThreads {
			best, bestBlocks, bestThreads = bs, r.BlocksPerSM, threads
		}
		if bestThreads == occLimit {
			break
		}
	}
	if best == 0 {
		return 0, 0, errors.E(errors.Launch, "", "occupancy",
			"no block size up to %d threads fits on an SM (%d registers per thread, %d bytes of static shared memory)",
			limit, k.Registers, k.SharedMemBytes)
	}
	return bestBlocks * l.SMs, best, nil
}

// AvailableDynamicSharedMem returns the most dynamic shared memory per block
// with which numBlocks blocks of blockSize threads could be resident on one
// SM (cuOccupancyAvailableDynamicSMemPerBlock): the SM's shared memory (its
// per-block limit when numBlocks is 1, otherwise the carveout preference)
// divided by numBlocks, rounded down to the allocation granularity, capped by
// the per-block limit, less the static shared memory, capped by the kernel's
// dynamic limit.
//
// Like cuda_occupancy.h and the driver (the same answers for 169344
// configurations measured on an H200) it does not subtract the reserved
// shared memory per block, so on 8.0+ the answer can be up to 1 KiB too large
// for numBlocks to be resident at once; check with Occupancy. It is an InvalidArgument error
// when numBlocks blocks do not fit even without dynamic shared memory.
func AvailableDynamicSharedMem(l Limits, k KernelAttrs, numBlocks, blockSize int) (int, error) {
	if numBlocks <= 0 {
		return 0, invalid("number of blocks %d must be positive", numBlocks)
	}
	r, err := Occupancy(l, k, blockSize, 0)
	if err != nil {
		return 0, err
	}
	if r.BlocksPerSM < numBlocks {
		return 0, invalid("only %d blocks of %d threads fit on an SM (limited by %s), not %d",
			r.BlocksPerSM, blockSize, r.Limiter, numBlocks)
	}
	a, _ := check(l, k) // checked by Occupancy
	perBlock := perBlockSmemLimit(l, a, k, l.SharedMemPerSM)
	var perSM int
	if numBlocks == 1 {
		perSM = perBlock
	} else {
		if perSM, err = preference(l, a); err != nil {
			return 0, err
		}
		if perSM == 0 {
			if perSM, err = alignUpOrErr(l, a, 1); err != nil {
				return 0, err
			}
		}
	}
	avail := perSM / numBlocks / a.smemGranularity * a.smemGranularity
	avail = min(avail, perBlock)
	avail = max(avail-k.SharedMemBytes, 0)
	return min(avail, maxDynamicShared(l, k)), nil
}
