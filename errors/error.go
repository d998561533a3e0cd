package errors

import (
	stderrors "errors"
	"fmt"
	"strings"
)

// New, Is, As, Join and Unwrap are the standard library's, re-exported so this
// package can replace "errors" in imports.
var (
	New    = stderrors.New
	Is     = stderrors.Is
	As     = stderrors.As
	Join   = stderrors.Join
	Unwrap = stderrors.Unwrap
)

// ErrUnsupported is the standard library's errors.ErrUnsupported.
var ErrUnsupported = stderrors.ErrUnsupported

// Error is the error type of anygpu: a failure with its category, the native
// code that caused it, and what to do about it.
type Error struct {
	Backend   string   // "cuda", "vulkan", "cpu", ... ("" for the root package)
	Op        string   // what was being done: "alloc 1.0 GiB", "launch saxpy"
	Code      int64    // native code (CUresult, VkResult, ...); 0 when there is none
	Name      string   // symbolic name of Code: "CUDA_ERROR_OUT_OF_MEMORY"
	Category  Category // the kind of failure
	Retryable bool     // the same call may succeed later (after freeing memory, waiting, ...)
	Fatal     bool     // the device or context is unusable: close it and open a new one
	Msg       string   // what went wrong, lower-case: "out of memory"
	Hint      string   // what to do about it; Category.DefaultHint() when empty
	Log       string   // compiler output, for Compilation
	Err       error    // the underlying cause, if any
}

// Error formats as "backend: op: msg (NAME): hint", leaving out empty parts.
// An empty Msg is replaced by the cause's text, else the category name; an
// empty Hint by the category's default hint, except when the text came from a
// cause holding an *Error, which already ends with its own hint.
func (e *Error) Error() string {
	if e == nil {
		return "<nil>"
	}
	var b strings.Builder
	if e.Backend != "" {
		b.WriteString(e.Backend)
		b.WriteString(": ")
	}
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	msg, fromCause := e.Msg, false
	if msg == "" && e.Err != nil {
		msg, fromCause = e.Err.Error(), true
	}
	if msg == "" {
		msg = e.Category.String()
	}
	b.WriteString(msg)
	if e.Name != "" {
		b.WriteString(" (")
		b.WriteString(e.Name)
		b.WriteString(")")
	}
	h := e.Hint
	if h == "" && !(fromCause && walk(e.Err, func(*Error) bool { return true })) {
		// The default hint, unless the message came from a cause that is or
		// wraps an *Error: that one already printed its own hint.
		h = e.Category.DefaultHint()
	}
	if h != "" {
		b.WriteString(": ")
		b.WriteString(h)
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// Is reports whether target is e's Category, so errors.Is(err, errors.OutOfMemory)
// works through any wrapping.
func (e *Error) Is(target error) bool {
	c, ok := target.(Category)
	return ok && e != nil && c == e.Category
}

// E builds an *Error of category cat with a formatted message.
func E(cat Category, backend, op, format string, args ...any) *Error {
	return &Error{Backend: backend, Op: op, Category: cat, Msg: fmt.Sprintf(format, args...)}
}

// Wrap adds backend and operation context to err. An *Error at the top of the
// chain is copied with the missing fields filled in (op is prefixed to an
// existing Op); any other error becomes the cause of a new *Error whose
// Category, Retryable and Fatal are CategoryOf(err), IsRetryable(err) and
// IsFatal(err), so an *Error deeper in the chain keeps its meaning. Wrap(nil)
// is nil.
func Wrap(err error, backend, op string) error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*Error); ok {
		c := *e
		if c.Backend == "" {
			c.Backend = backend
		}
		if c.Op == "" {
			c.Op = op
		} else if op != "" && !strings.HasPrefix(c.Op, op) {
			c.Op = op + ": " + c.Op
		}
		return &c
	}
	return &Error{
		Backend:   backend,
		Op:        op,
		Category:  CategoryOf(err),
		Retryable: IsRetryable(err),
		Fatal:     IsFatal(err),
		Err:       err,
	}
}

// Hint returns the recovery hint of the first *Error in err's tree (depth
// first, as errors.As searches) that has one, else the default hint of err's
// category ("" for nil).
func Hint(err error) string {
	var h string
	if walk(err, func(e *Error) bool { h = e.Hint; return h != "" }) {
		return h
	}
	return CategoryOf(err).DefaultHint()
}

// LogOf returns the compiler log carried by the first *Error in err's tree
// that has one ("" if none).
func LogOf(err error) string {
	var log string
	walk(err, func(e *Error) bool { log = e.Log; return log != "" })
	return log
}

// IsFatal reports whether err says its device is unusable and must be
// reopened: whether any *Error in err's tree is Fatal.
func IsFatal(err error) bool {
	return walk(err, func(e *Error) bool { return e.Fatal })
}

// IsRetryable reports whether the failed call may succeed if tried again: the
// Retryable flag of the first *Error in err's tree. A fatal error is never
// retryable.
func IsRetryable(err error) bool {
	retryable := false
	walk(err, func(e *Error) bool { retryable = e.Retryable; return true })
	return retryable && !IsFatal(err)
}

// walk visits every *Error in err's tree in the order errors.As uses (depth
// first, following Unwrap() error and Unwrap() []error) until visit returns
// true, and reports whether it did.
func walk(err error, visit func(*Error) bool) bool {
	for err != nil {
		if e, ok := err.(*Error); ok {
			if e == nil {
				return false
			}
			if visit(e) {
				return true
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				if walk(inner, visit) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}
