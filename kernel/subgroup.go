package kernel

// Subgroup (warp) operations. A group's threads run in subgroups of
// SubgroupSize threads: subgroup s holds the threads whose ThreadIndex is
// s*SubgroupSize() to (s+1)*SubgroupSize()-1, and SubgroupInvocationID is
// ThreadIndex() % SubgroupSize(). The subgroup operations exchange values
// between the threads of one subgroup without shared memory or a Barrier.
//
// The contract:
//   - every thread of the subgroup calls the operation, in control flow that
//     is the same for the whole group (the rule of Barrier, which the
//     translator checks the same way), and not in a helper;
//   - the kernel works for any subgroup size, 1 included: SubgroupSize is
//     a power of two from 1 to 128 that the kernel reads instead of
//     assuming one (CUDA's is 32);
//   - a group's thread count is a multiple of SubgroupSize() (any multiple
//     of 128 is, on every device);
//   - a lane argument is below SubgroupSize().
//
// CUDA runs them as warp intrinsics (size 32). Vulkan, OpenGL and WebGPU
// run them on the device's subgroups where the device has the operations a
// kernel needs (see the package doc; the size is the device's, 8 to 64 on
// today's GPUs, 8 on lavapipe, and DeviceInfo.WarpSize where the backend
// knows it): there the subgroups are consecutive by ThreadIndex as drivers
// lay them out, which Vulkan and OpenGL do not promise for every device, and
// a group whose thread count is not a multiple of the device's size would
// leave its last subgroup partial, which the contract above rules out
// (Vulkan then runs the kernel's subgroup-of-one form instead). Elsewhere
// (Metal, the CPU, a device without the operations, ANYGPU_SUBGROUPS=off)
// they run with a subgroup of size 1, which the contract makes correct:
// SubgroupSize() is 1, a reduction returns its argument, a shuffle or
// broadcast returns the thread's own value. A plain Go call outside a
// translated kernel behaves the same way.

// Subgroupable is the element types the subgroup operations take.
type Subgroupable interface{ ~int32 | ~uint32 | ~float32 }

// SubgroupSize is the number of threads of a subgroup.
func SubgroupSize() uint32 { return 1 }

// SubgroupInvocationID is the thread's index within its subgroup (its lane):
// ThreadIndex() % SubgroupSize().
func SubgroupInvocationID() uint32 { return 0 }

// SubgroupAdd is the sum of v over the subgroup's threads, the same in every
// one of them (integers wrap; the order of float additions is the device's).
func SubgroupAdd[T Subgroupable](v T) T { return v }

// SubgroupMin is the least v of the subgroup's threads (for floats, NaN if
// any is NaN, as Go's min).
func SubgroupMin[T Subgroupable](v T) T { return v }

// SubgroupMax is the greatest v of the subgroup's threads (for floats, NaN
// if any is NaN, as Go's max).
func SubgroupMax[T Subgroupable](v T) T { return v }

// SubgroupShuffle is v of the subgroup's thread with lane lane
// (lane < SubgroupSize()).
func SubgroupShuffle[T Subgroupable](v T, lane uint32) T { return v }

// SubgroupShuffleXor is v of the subgroup's thread with lane
// SubgroupInvocationID() ^ mask (which must be below SubgroupSize()).
func SubgroupShuffleXor[T Subgroupable](v T, mask uint32) T { return v }

// SubgroupBroadcastFirst is v of the subgroup's lane 0.
func SubgroupBroadcastFirst[T Subgroupable](v T) T { return v }
