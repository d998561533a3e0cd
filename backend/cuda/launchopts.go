package cuda

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/errors"
)

// Launches with options: dynamic shared memory (the sharedMemBytes of
// cuLaunchKernel, with the opt-in above the default limit) and cooperative
// launches (cuLaunchCooperativeKernel).

var _ backend.OptionLauncher = (*stream)(nil)

// carveoutMaxShared is CU_SHAREDMEM_CARVEOUT_MAX_SHARED: prefer the largest
// shared memory share of the SM's unified L1/shared storage.
const carveoutMaxShared = 100

// LaunchWithOptions is Launch with o.SharedMemBytes of dynamic shared memory
// per block and, with o.Cooperative, cuLaunchCooperativeKernel. A kernel
// asked for more dynamic shared memory than it may use by default (48 KiB
// less its static shared memory) is opted in first: cuFuncSetAttribute(
// MAX_DYNAMIC_SHARED_SIZE_BYTES) and the carveout preference for shared
// memory, once per kernel and size. More than the device has is
// InvalidArgument; a cooperative launch on a device without them is
// NotSupported, and a grid whose blocks cannot all be resident at once is
// InvalidArgument; none of them reaches the driver's launch.
func (s *stream) LaunchWithOptions(k backend.Kernel, grid, block backend.Dim3, args []backend.Arg, o backend.LaunchOptions) error {
	kern := k.(*kernel)
	d := s.dev
	op := "launch " + kern.name
	if d.broken() {
		return lostErr(d.ord, op)
	}
	if err := kern.allowShared(o.SharedMemBytes); err != nil {
		return err
	}
	if o.Cooperative {
		if err := kern.checkCooperative(grid, block, o.SharedMemBytes); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.params.pack(args, kern); err != nil {
		return err
	}
	launch := func() cu.Result {
		g, b, smem, p := grid, block, uint32(o.SharedMemBytes), unsafe.Pointer(&s.params.ptrs[0])
		if o.Cooperative {
			return d.lib.LaunchCooperativeKernel(&s.fr, kern.fn, uint32(g.X), uint32(g.Y), uint32(g.Z), uint32(b.X), uint32(b.Y), uint32(b.Z), smem, s.h, p)
		}
		return d.lib.LaunchKernel(&s.fr, kern.fn, uint32(g.X), uint32(g.Y), uint32(g.Z), uint32(b.X), uint32(b.Y), uint32(b.Z), smem, s.h, p)
	}
	r := launch()
	if r != cu.Success && rebind(r) {
		if err := d.enter(&s.fr, op); err != nil {
			return err
		}
		r = launch()
		d.leave()
	}
	return d.check(r, op)
}

// allowShared makes sure the kernel may use n bytes of dynamic shared
// memory per block, opting it in when n is above what it may use now.
func (k *kernel) allowShared(n int) error {
	if n == 0 {
		return nil
	}
	d := k.mod.dev
	op := "launch " + k.name
	attrs, err := k.Attributes()
	if err != nil {
		return err
	}
	if limit := d.info.SharedMemPerBlockOptin; limit > 0 && n+attrs.SharedMemBytes > limit {
		e := errors.E(errors.InvalidArgument, Name, op, "%d bytes of dynamic shared memory plus the kernel's %d static exceed the device's %d per block",
			n, attrs.SharedMemBytes, limit)
		e.Hint = "use smaller tiles (less shared memory per block)"
		return e
	}
	k.sharedMu.Lock()
	defer k.sharedMu.Unlock()
	allowed := k.dynShared
	if allowed == 0 {
		allowed = attrs.MaxDynamicShared
	}
	if n <= allowed {
		return nil
	}
	err = d.do(op+": opt in to dynamic shared memory", func(*cu.Frame) cu.Result {
		if r := d.lib.FuncSetAttribute(k.fn, cu.FuncMaxDynamicSharedSize, n); r != cu.Success {
			return r
		}
		// Only a preference: the driver takes what the launch needs anyway.
		_ = d.lib.FuncSetAttribute(k.fn, cu.FuncPreferredSharedCarveout, carveoutMaxShared)
		return cu.Success
	})
	if err != nil {
		return err
	}
	k.dynShared = n
	return nil
}

// checkCooperative refuses a cooperative launch the device cannot make: no
// support, or more blocks than can be resident at once.
func (k *kernel) checkCooperative(grid, block backend.Dim3, smem int) error {
	d := k.mod.dev
	op := "launch " + k.name + " (cooperative)"
	if !slices.Contains(d.info.Features, "cooperative_launch") || !d.lib.Has(cu.SymLaunchCooperativeKernel) {
		return &errors.Error{Backend: Name, Op: op, Category: errors.NotSupported,
			Msg:  fmt.Sprintf("%s cannot launch cooperatively (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0, or the driver lacks cuLaunchCooperativeKernel)", d.info.Name),
			Hint: "synchronise the grid by splitting the kernel into launches"}
	}
	var perSM int
	var r cu.Result
	if err := d.bound(op, func(*cu.Frame) {
		perSM, r = d.lib.OccupancyMaxActiveBlocksPerMultiprocessor(k.fn, int(block.Count()), smem)
	}); err != nil {
		return err
	}
	if r != cu.Success {
		return nil // unknown: the driver decides
	}
	resident := int64(perSM) * int64(d.info.Units)
	if blocks := grid.Count(); blocks > resident {
		e := errors.E(errors.InvalidArgument, Name, op, "grid %v has %d blocks, but only %d (%d per SM × %d SMs) of %d threads fit on the device at once",
			grid, blocks, resident, perSM, d.info.Units, block.Count())
		e.Hint = "launch at most that many blocks and loop over the work in the kernel (a grid-stride loop)"
		return e
	}
	return nil
}
