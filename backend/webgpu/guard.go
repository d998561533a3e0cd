//go:build cgo

package webgpu

import (
	"context"
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

// runCtx runs fn on its own goroutine and returns its result, or ctx's error
// (category Timeout) if ctx ends first; cleanup then receives fn's result
// when it comes.
func runCtx[T any](ctx context.Context, op string, fn func() (T, error), cleanup func(T)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, errors.Wrap(err, Name, op)
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var r result
		r.err = protect(op, func() error {
			var err error
			r.v, err = fn()
			return err
		})
		ch <- r
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.err == nil && cleanup != nil {
				cleanup(r.v)
			}
		}()
		return zero, errors.Wrap(ctx.Err(), Name, op)
	}
}
