package tensor

import (
	"fmt"
	"strings"

	"github.com/anygpu/gpu/errors"
)

// shapeHint is the hint of the package's InvalidArgument errors.
const shapeHint = "see package tensor's rules for shapes, views and broadcasting"

// invalid is an InvalidArgument error of op: "tensor: op: msg: hint".
func invalid(op, format string, args ...any) error {
	e := errors.E(errors.InvalidArgument, "tensor", op, format, args...)
	e.Hint = shapeHint
	return e
}

// invalidHint is invalid with a hint of its own.
func invalidHint(op, hint, format string, args ...any) error {
	e := errors.E(errors.InvalidArgument, "tensor", op, format, args...)
	e.Hint = hint
	return e
}

// notSupported is a NotSupported error of op.
func notSupported(op, hint, format string, args ...any) error {
	e := errors.E(errors.NotSupported, "tensor", op, format, args...)
	e.Hint = hint
	return e
}

// wrap adds the tensor op to err (nil stays nil).
func wrap(err error, op string) error { return errors.Wrap(err, "tensor", op) }

// shapeString formats a shape as Go prints a slice: [2 3].
func shapeString(shape []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range shape {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, s)
	}
	b.WriteByte(']')
	return b.String()
}
