//go:build darwin

package metal

import (
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

var _ backend.OptionLauncher = (*stream)(nil)

// threadgroupMemoryAlign is the granularity of setThreadgroupMemoryLength:
// Metal requires a multiple of 16 bytes.
const threadgroupMemoryAlign = 16

// LaunchWithOptions is Launch with o.SharedMemBytes of threadgroup memory
// (rounded up to a multiple of 16 bytes) at [[threadgroup(0)]]: the
// kernel declares it as a `threadgroup T* p [[threadgroup(0)]]` parameter.
// More than the device's maxThreadgroupMemoryLength less the pipeline's
// static threadgroup memory is InvalidArgument; cooperative launches are
// NotSupported (Metal has no grid-wide synchronisation).
func (s *stream) LaunchWithOptions(k backend.Kernel, grid, block backend.Dim3, args []backend.Arg, o backend.LaunchOptions) error {
	kern, ok := k.(*kernel)
	if !ok {
		return errorf(errors.InvalidArgument, "launch", "launch kernels compiled by this device", "kernel %T does not belong to the Metal backend", k)
	}
	op := "launch " + kern.name
	if o.Cooperative {
		return errorf(errors.NotSupported, op, "synchronise the grid by splitting the kernel into launches", "Metal has no cooperative (grid-synchronising) launches")
	}
	n := (o.SharedMemBytes + threadgroupMemoryAlign - 1) / threadgroupMemoryAlign * threadgroupMemoryAlign
	if limit := s.dev.info.SharedMemPerBlock; limit > 0 && n+kern.staticMem > limit {
		return errorf(errors.InvalidArgument, op, "use smaller tiles (less threadgroup memory per threadgroup)",
			"%d bytes of threadgroup memory (rounded to 16) plus the pipeline's %d static exceed the device's %d", n, kern.staticMem, limit)
	}
	grid, block = grid.Norm(), block.Norm()
	if err := kern.checkLaunch(grid, block, args); err != nil {
		return err
	}
	return s.enqueue(func() error { return s.encodeLaunch(kern, grid, block, args, n) })
}
