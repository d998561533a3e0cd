package cpu

import (
	"runtime/debug"
	"strings"

	"github.com/anygpu/gpu/errors"
)

// The CPU backend has no native codes: its errors are made where they
// happen (out of memory in memory.go, compile errors in module.go) with the
// errors package's categories. What a failure in running Go code becomes is
// here.

// panicError turns a recovered panic into an Execution error: a Go kernel
// that indexes out of range fails like a GPU kernel that faults, at the next
// Synchronize, and the process goes on.
func panicError(op string, v any) error {
	stack := string(debug.Stack())
	e := errors.E(errors.Execution, Name, op, "kernel panicked: %v", v)
	e.Hint = "check the kernel for out-of-bounds accesses and its arguments; the stack is in the error log (errors.LogOf)"
	e.Log = trimStack(stack)
	return e
}

// trimStack keeps the frames that matter: from the panic onwards.
func trimStack(s string) string {
	if i := strings.Index(s, "panic("); i >= 0 {
		s = s[i:]
	}
	if len(s) > 4096 {
		s = s[:4096]
	}
	return s
}
