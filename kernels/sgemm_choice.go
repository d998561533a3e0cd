package kernels

import (
	"slices"

	"github.com/anygpu/gpu/backend"
)

// The entry points of sgemm's tiled variants, in SgemmSource (not Source).
// Each has OpSgemm's parameters and computes what OpSgemm computes (the same
// results within float rounding, for any grid and block); they differ in the
// tile of C a group takes, and so in the group size, the shared memory and
// the number of groups a matrix gives. ChooseSgemm picks one, or OpSgemm,
// per launch.
const (
	OpSgemm128x64 = "sgemm128x64" // 128×64 tiles, 8×4 results per thread, 256 threads, 24 KiB shared
	OpSgemm64x64  = "sgemm64x64"  // 64×64 tiles, 4×4 per thread, 256 threads, 16 KiB shared
	OpSgemm32x32  = "sgemm32x32"  // 32×32 tiles, 4×4 per thread, 64 threads, 4 KiB shared
	OpSgemm64MMA  = "sgemm64mma"  // 64×64 tiles through kernel.MatMulAdd, 256 threads, 32 KiB shared
	OpSgemmFrom   = "sgemmfrom"   // 64×128 tiles through kernel.MatMulAddFrom, any group, 32 KiB shared: the CPU's
)

// SgemmVariant describes one tiled sgemm kernel: a group of exactly
// Block's threads (any shape of that count) takes TileM×TileN tiles of C,
// with SharedBytes of shared memory; a group of any other size takes the
// kernel's slow path, one element of C per thread.
type SgemmVariant struct {
	Kernel       string       // the entry point: OpSgemm or one of its variants
	TileM, TileN int          // rows and columns of C per tile
	Block        backend.Dim3 // the group of the tiled path
	SharedBytes  int          // the group's shared memory
	// GroupWide says that the kernel multiplies with kernel.MatMulAdd or
	// kernel.MatMulAddFrom, a product of the whole group, which the CPU runs
	// through its packed matrix multiply and a GPU as a loop over the tile
	// per thread: correct everywhere, but slower than the other variants on
	// a GPU, where ChooseSgemm does not pick it. OpSgemm64MMA, staging its
	// 64×64 tiles through shared memory, runs at 0.2-0.3× the hand-written
	// GEMM of internal/gemm on the CPU too.
	GroupWide bool
	// CPU says that ChooseSgemm picks the variant on the CPU: OpSgemmFrom,
	// which multiplies with kernel.MatMulAddFrom straight from the buffers
	// (no staging), a packed multiply per group and 256 steps of k.
	CPU bool
}

// Threads is the number of threads in the variant's group.
func (v SgemmVariant) Threads() int { return v.Block.X * v.Block.Y * v.Block.Z }

// Tiles is the number of tiles an m×n C has: the groups that keep every
// tile of the launch busy at once.
func (v SgemmVariant) Tiles(m, n int) int {
	return ceilDiv(max(m, 0), v.TileM) * ceilDiv(max(n, 0), v.TileN)
}

// sgemmVariants are the tiled kernels, largest tile first (the order
// ChooseSgemm prefers them in), then the group-wide one. Their constants are those of the kernels in
// kernels/internal/ops (TestSgemmVariantsMatchKernels checks the shared
// memory against the generated text).
var sgemmVariants = []SgemmVariant{
	{Kernel: OpSgemm, TileM: 128, TileN: 128, Block: backend.Dim3{X: 16, Y: 16, Z: 1}, SharedBytes: 32 << 10},
	{Kernel: OpSgemm128x64, TileM: 128, TileN: 64, Block: backend.Dim3{X: 16, Y: 16, Z: 1}, SharedBytes: 24 << 10},
	{Kernel: OpSgemm64x64, TileM: 64, TileN: 64, Block: backend.Dim3{X: 16, Y: 16, Z: 1}, SharedBytes: 16 << 10},
	{Kernel: OpSgemm32x32, TileM: 32, TileN: 32, Block: backend.Dim3{X: 8, Y: 8, Z: 1}, SharedBytes: 4 << 10},
	{Kernel: OpSgemm64MMA, TileM: 64, TileN: 64, Block: backend.Dim3{X: 16, Y: 16, Z: 1}, SharedBytes: 32 << 10, GroupWide: true},
	{Kernel: OpSgemmFrom, TileM: 64, TileN: 128, Block: backend.Dim3{X: 16, Y: 16, Z: 1}, SharedBytes: 32 << 10, GroupWide: true, CPU: true},
}

// SgemmVariants returns sgemm's tiled kernels, largest tile first: OpSgemm's
// own 128×128 tiles (an entry point of Source), then its variants (entry
// points of SgemmSource).
func SgemmVariants() []SgemmVariant { return slices.Clone(sgemmVariants) }

// SgemmKernels returns the entry points that compute sgemm: OpSgemm and its
// variants, in the order of SgemmVariants.
func SgemmKernels() []string {
	names := make([]string, len(sgemmVariants))
	for i, v := range sgemmVariants {
		names[i] = v.Kernel
	}
	return names
}

// isSgemmVariant reports whether name is one of OpSgemm's variants (an entry
// point of SgemmSource).
func isSgemmVariant(name string) bool {
	return name != OpSgemm && slices.Contains(SgemmKernels(), name)
}

// assumedShared is the shared memory per group taken for a device that does
// not report it: what OpSgemm's 128×128 tiles have always assumed, and what
// lavapipe, llvmpipe and Metal give.
const assumedShared = 32 << 10

// SgemmLaunch is one launch of sgemm: the entry point (OpSgemm or a
// variant) and its geometry. Every entry point takes OpSgemm's arguments.
type SgemmLaunch struct {
	Kernel      string
	Grid, Block backend.Dim3
}

// ChooseSgemm picks the sgemm kernel and geometry for an m×n×k product on a
// device described by info. It is a pure function of its arguments:
//
//   - On the CPU (info.Type TypeCPU) it is OpSgemm of Source, whose Go on
//     the CPU is OpSgemmFrom's generated Go, over OpSgemmFrom's grid: a
//     group per 64×128 tile of C, each multiplying its tile with
//     kernel.MatMulAddFrom (the CPU's packed GEMM straight from the
//     buffers). Naming OpSgemm keeps the CPU's sgemm the built-in module's
//     (what Source returns, and what a caller who replaces its Go runs).
//   - Elsewhere the candidates are the variants that are not group-wide
//     and that the device can run with
//     their tiled path: the group's threads within MaxThreadsPerBlock and
//     MaxBlockDim, a whole number of warps (WarpSize), and their shared
//     memory within SharedMemPerBlock (32 KiB where the device does not
//     say). Of those, the largest tile that still gives at least one group
//     per compute unit (Units) wins: larger tiles do more arithmetic per
//     byte staged, but a compute unit without a group does nothing. When no
//     tile gives every unit a group, the candidate with the most tiles (the
//     smallest tile) wins.
//   - A device that can run none of them (fewer than 64 threads per group,
//     or less than 4 KiB of shared memory) gets OpSgemm's
//     one-element-per-thread path, in the largest square group up to 8×8 it
//     allows.
//
// The grid is one group per tile, each dimension cut to MaxGridDim where the
// device reports one (the kernels stride over the rest). k does not change
// the choice: every kernel streams any depth through its shared slices.
// Sizes below 0 count as 0.
func ChooseSgemm(info backend.DeviceInfo, m, n, k int) SgemmLaunch {
	_ = k
	m, n = max(m, 0), max(n, 0)
	if info.Type == backend.TypeCPU {
		for _, v := range sgemmVariants {
			if v.CPU {
				l := sgemmLaunch(info, v, m, n)
				l.Kernel = OpSgemm
				return l
			}
		}
	}
	var fits []SgemmVariant
	for _, v := range sgemmVariants {
		if !v.GroupWide && variantFits(info, v) {
			fits = append(fits, v)
		}
	}
	if len(fits) == 0 {
		return sgemmSimple(info, m, n)
	}
	units := max(info.Units, 1)
	best := fits[0]
	for _, v := range fits {
		if v.Tiles(m, n) >= units {
			return sgemmLaunch(info, v, m, n)
		}
		if v.Tiles(m, n) > best.Tiles(m, n) {
			best = v
		}
	}
	return sgemmLaunch(info, best, m, n)
}

// variantFits reports whether a device runs v's tiled path: its group
// within the device's limits and a whole number of warps, its shared memory
// within the device's.
func variantFits(info backend.DeviceInfo, v SgemmVariant) bool {
	if mt := info.MaxThreadsPerBlock; mt > 0 && v.Threads() > mt {
		return false
	}
	if d := info.MaxBlockDim; (d.X > 0 && v.Block.X > d.X) || (d.Y > 0 && v.Block.Y > d.Y) {
		return false
	}
	if w := info.WarpSize; w > 0 && v.Threads()%w != 0 {
		return false
	}
	shared := info.SharedMemPerBlock
	if shared <= 0 {
		shared = assumedShared
	}
	return v.SharedBytes <= shared
}

// sgemmLaunch is v over an m×n C: a group per tile, cut to the device's
// grid limits.
func sgemmLaunch(info backend.DeviceInfo, v SgemmVariant, m, n int) SgemmLaunch {
	grid := backend.Dim3{X: max(ceilDiv(n, v.TileN), 1), Y: max(ceilDiv(m, v.TileM), 1), Z: 1}
	return SgemmLaunch{Kernel: v.Kernel, Grid: clampGrid(info, grid), Block: v.Block}
}

// sgemmSimple is OpSgemm's one-element-per-thread path in the largest
// square group (a power of two on a side, at most 8×8: 16×16 would be the
// tiled path's 256 threads, which need its shared memory) that the device
// allows.
func sgemmSimple(info backend.DeviceInfo, m, n int) SgemmLaunch {
	side := 8
	for side > 1 {
		mt, d := info.MaxThreadsPerBlock, info.MaxBlockDim
		if (mt <= 0 || side*side <= mt) && (d.X <= 0 || side <= d.X) && (d.Y <= 0 || side <= d.Y) {
			break
		}
		side /= 2
	}
	grid := backend.Dim3{X: max(ceilDiv(n, side), 1), Y: max(ceilDiv(m, side), 1), Z: 1}
	return SgemmLaunch{Kernel: OpSgemm, Grid: clampGrid(info, grid), Block: backend.Dim3{X: side, Y: side, Z: 1}}
}

// clampGrid cuts grid to the device's MaxGridDim where it reports one.
func clampGrid(info backend.DeviceInfo, grid backend.Dim3) backend.Dim3 {
	if g := info.MaxGridDim; g.X > 0 {
		grid.X = min(grid.X, g.X)
	}
	if g := info.MaxGridDim; g.Y > 0 {
		grid.Y = min(grid.Y, g.Y)
	}
	return grid
}

// ceilDiv is ⌈x/d⌉ for x ≥ 0, d > 0.
func ceilDiv(x, d int) int { return x/d + min(x%d, 1) }
