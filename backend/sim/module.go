package sim

import (
	"context"
	"fmt"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

// Compile compiles the Go dialect of src: simulated devices execute on the
// CPU whatever backend they present.
func (d *device) Compile(ctx context.Context, src backend.Source, opts backend.CompileOptions) (backend.Module, error) {
	op := fmt.Sprintf("compile %q", src.Name)
	if err := d.check(op); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, d.backend, op)
	}
	if d.faults.FailCompile {
		return nil, compileError(d.backend, op, src, d.info.Vendor)
	}
	if len(src.Go) == 0 {
		return nil, errors.E(errors.NotSupported, d.backend, op,
			"the source has no Go dialect (Source.Go): a simulated %s device executes kernels written in Go on the CPU", d.backend)
	}
	m, err := d.inner.Compile(ctx, src, opts)
	if err != nil {
		return nil, d.translate(err, op, false)
	}
	return m, nil
}
