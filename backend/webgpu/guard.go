//go:build cgo

package webgpu

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/anygpu/gpu/errors"
)

// protect runs fn and turns a panic (the binding panics where it cannot
// return an error, and on invalid handles) into an Internal error, so that
// nothing escapes the package boundary as a panic.
func protect(op string, fn func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicError(op, v)
		}
	}()
	return fn()
}

// panicError describes a recovered panic.
func panicError(op string, v any) error {
	stack := string(debug.Stack())
	if i := strings.Index(stack, "panic("); i >= 0 {
		stack = stack[i:]
	}
	if len(stack) > 4096 {
		stack = stack[:4096]
	}
	cause, _ := v.(error)
	if cause == nil {
		cause = fmt.Errorf("%v", v)
	}
	return &errors.Error{
		Backend: Name, Op: op, Category: errors.Internal, Err: cause,
		Msg:  "the wgpu binding panicked: " + cause.Error(),
		Hint: "this is a bug in anygpu or the binding: please report it with the error log (errors.LogOf) and `gpu info --json`",
		Log:  stack,
	}
}
