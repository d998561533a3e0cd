package cuda

import (
	"fmt"

	"github.com/anygpu/gpu/backend/cuda/internal/cu"
	"github.com/anygpu/gpu/errors"
)

// What the backend does with the driver's results. The table of CUresult
// codes (name, category, flags, hint) is the errors package's
// (errors.FromCUDA, through cu.Result.Err); here a result becomes the error of
// an operation, a sticky result marks the GPU lost, and a few results get a
// wording of their own.

// check converts a driver result of operation op. A sticky error is
// remembered for the GPU: the driver keeps returning it for the rest of the
// process, so later calls fail fast without reaching the driver.
func (d *device) check(r cu.Result, op string) error {
	if r == cu.Success {
		return nil
	}
	if r.Fatal() {
		d.ord.sticky.CompareAndSwap(0, int32(r))
	}
	return r.Err(op)
}

// lostErr is the error of every call on a GPU whose context a sticky error
// broke.
func lostErr(o *ordinalState, op string) error {
	r := cu.Result(o.sticky.Load())
	return &errors.Error{Backend: Name, Op: op, Category: errors.DeviceLost, Fatal: true, Code: int64(r), Name: r.String(),
		Msg: "an earlier fatal error on this GPU made CUDA unusable in this process",
		Hint: "CUDA cannot recover from a sticky error inside a process: close every Device, restart the program, " +
			"and fix the kernel that failed (compute-sanitizer finds bad memory accesses)"}
}

// unavailable makes a driver initialisation error a Probe error: category
// Unavailable, keeping the CUDA code, its message and its hint.
func unavailable(err error, lib string) error {
	e, ok := err.(*errors.Error)
	if !ok {
		return &errors.Error{Backend: Name, Op: "init", Category: errors.Unavailable, Err: err}
	}
	c := *e
	if c.Category != errors.Unavailable {
		c.Msg = fmt.Sprintf("%s (%s category)", c.Msg, c.Category)
		c.Category = errors.Unavailable
	}
	c.Retryable, c.Fatal = false, false
	c.Op = "init " + lib + ": " + c.Op
	return &c
}

// rebind reports whether a call failed because the calling thread had no
// context current, or a context other than the one of the call's handles.
func rebind(r cu.Result) bool {
	return r == cu.ErrorInvalidContext || r == cu.ErrorInvalidHandle || r == cu.ErrorContextIsDestroyed
}

// foreign is the error for an object of another backend where the root
// package checks only the backend's name: the peer operations, between
// devices of one backend, which a simulated CUDA device shares.
func foreign(op string, v any) error {
	return errors.E(errors.InvalidArgument, Name, op, "%T does not belong to the CUDA backend", v)
}
