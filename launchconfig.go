package gpu

import (
	"fmt"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// LaunchConfig is a launch's geometry with the options Launch does not
// take. Launch's arguments are variadic, so options cannot follow them;
// grouping geometry and options in one value keeps room for more.
type LaunchConfig struct {
	Grid, Block Dim3
	// SharedMemBytes is the dynamic shared memory of each block, in bytes:
	// CUDA's extern __shared__ array (the third <<<>>> argument), Metal's
	// threadgroup memory at [[threadgroup(0)]]. It is checked against the
	// device's limit (DeviceInfo.SharedMemPerBlockOptin, else
	// SharedMemPerBlock) less the kernel's static shared memory before the
	// launch: more is InvalidArgument. On CUDA, more than 48 KiB opts the
	// kernel in (cuFuncSetAttribute) first. Backends that cannot size shared
	// memory at launch (Vulkan, OpenGL, WebGPU, CPU) refuse it with
	// NotSupported.
	SharedMemBytes int
	// Cooperative launches the grid so that all its blocks are resident at
	// once and may synchronise with each other (CUDA's
	// cooperative_groups::this_grid().sync(), cuLaunchCooperativeKernel).
	// The grid must then fit on the device at once (InvalidArgument
	// otherwise); a device or backend without cooperative launch refuses it
	// with NotSupported.
	Cooperative bool
}

// LaunchWith is Launch with the options of cfg. With none set it is Launch.
func (s *Stream) LaunchWith(k *Kernel, cfg LaunchConfig, args ...Arg) error {
	if cfg.SharedMemBytes == 0 && !cfg.Cooperative {
		return s.Launch(k, cfg.Grid, cfg.Block, args...)
	}
	grid, block := cfg.Grid.Norm(), cfg.Block.Norm()
	if s == nil {
		return s.launchError(k, grid, block, args)
	}
	s.gate.enter()
	defer s.gate.leave()
	if !s.launchable(k, grid, block, args) {
		return s.launchError(k, grid, block, args)
	}
	op := "launch " + k.name
	if err := s.checkLaunchOptions(k, cfg); err != nil {
		return s.dev.wrap(err, op)
	}
	ol, ok := s.impl.(backend.OptionLauncher)
	if !ok {
		what := "dynamic shared memory"
		if cfg.SharedMemBytes == 0 {
			what = "cooperative launches"
		}
		e := errors.E(errors.NotSupported, s.dev.backend, op, "the %s backend does not support %s", s.dev.backend, what)
		e.Hint = "size shared memory in the kernel (a fixed-size shared array), or use a backend that has it (CUDA, Metal)"
		if cfg.SharedMemBytes == 0 {
			e.Hint = "synchronise the grid by splitting the kernel into launches, or use CUDA"
		}
		return s.dev.record(e)
	}
	out, err := s.convertArgs(k, args, make([]backend.Arg, len(args)))
	if err != nil {
		return s.dev.wrap(err, op)
	}
	opts := backend.LaunchOptions{SharedMemBytes: cfg.SharedMemBytes, Cooperative: cfg.Cooperative}
	if s.capture.Load() != nil {
		return s.captureLaunch(k, grid, block, args, &opts)
	}
	launch := func() error { return ol.LaunchWithOptions(k.impl, grid, block, out, opts) }
	if s.dev.prof == nil {
		err = launch()
	} else {
		err = s.profiledKernel(k, grid, block, launch)
	}
	if err != nil {
		return s.dev.wrap(err, op)
	}
	s.dev.launches.Add(1)
	return nil
}

// checkLaunchOptions checks cfg's shared memory against the device's limit
// less the kernel's static shared memory, where they are known.
func (s *Stream) checkLaunchOptions(k *Kernel, cfg LaunchConfig) error {
	n := cfg.SharedMemBytes
	if n < 0 {
		e := errors.E(errors.InvalidArgument, s.dev.backend, "", "SharedMemBytes %d is negative", n)
		e.Hint = "give the bytes of dynamic shared memory each block needs, or 0"
		return e
	}
	if n == 0 {
		return nil
	}
	info := &s.dev.info
	limit := info.SharedMemPerBlockOptin
	if limit <= 0 {
		limit = info.SharedMemPerBlock
	}
	if limit <= 0 {
		return nil // unknown: the backend checks
	}
	static := 0
	if a, ok := k.impl.(backend.KernelAttributer); ok {
		if attrs, err := a.Attributes(); err == nil {
			static = attrs.SharedMemBytes
		}
	}
	if n+static > limit {
		msg := fmt.Sprintf("SharedMemBytes %d", n)
		if static > 0 {
			msg += fmt.Sprintf(" plus the kernel's %d bytes of static shared memory", static)
		}
		e := errors.E(errors.InvalidArgument, s.dev.backend, "", "%s exceeds the device's %d bytes of shared memory per block", msg, limit)
		e.Hint = "use smaller tiles (less shared memory per block), or more blocks"
		return e
	}
	return nil
}
