package errors

import (
	"context"
	stderrors "errors"
)

// Category is the kind of a failure, shared by every backend. A Category is
// itself an error, so errors.Is(err, errors.OutOfMemory) reports whether err
// (or anything it wraps) is of that category.
type Category int

// The categories. None is the category of a nil error.
const (
	None            Category = iota // no error
	Unavailable                     // the backend, its library, driver or device is not there
	Initialization                  // the library is there but failed to initialise
	InvalidArgument                 // the caller passed a bad value: size, offset, argument, option
	OutOfMemory                     // device or host memory is exhausted
	Compilation                     // a kernel source failed to compile or link; Error.Log has the compiler output
	Launch                          // a kernel launch was refused: bad grid, too many resources
	Execution                       // a kernel or copy failed while running on the device
	DeviceLost                      // the device or its context is gone; recreate the Device
	NotSupported                    // the backend or device cannot do what was asked
	Timeout                         // a wait ended because its context was cancelled or its deadline passed
	Closed                          // the object was used after Close
	Internal                        // a bug or an unexpected native result
	numCategories
)

var categoryNames = [...]string{
	None:            "none",
	Unavailable:     "unavailable",
	Initialization:  "initialization",
	InvalidArgument: "invalid argument",
	OutOfMemory:     "out of memory",
	Compilation:     "compilation",
	Launch:          "launch",
	Execution:       "execution",
	DeviceLost:      "device lost",
	NotSupported:    "not supported",
	Timeout:         "timeout",
	Closed:          "closed",
	Internal:        "internal",
}

var categoryHints = [...]string{
	None:            "",
	Unavailable:     "run `gpu info` to see why each backend is unavailable",
	Initialization:  "check the driver installation and that no other process holds the device in exclusive mode",
	InvalidArgument: "check sizes, offsets and kernel arguments against the buffer and kernel",
	OutOfMemory:     "free buffers, trim the pools, or process the data in smaller batches",
	Compilation:     "read the compiler log attached to the error (errors.LogOf)",
	Launch:          "check the grid and block sizes against DeviceInfo limits and the kernel's resource use",
	Execution:       "check the kernel for out-of-bounds accesses; run it on the CPU backend to compare",
	DeviceLost:      "close this Device and open a new one; if it repeats, check the driver and hardware",
	NotSupported:    "use another backend or device (ANYGPU_BACKEND), or avoid this feature",
	Timeout:         "give the operation a longer deadline, or check for a kernel that never ends",
	Closed:          "do not use an object after Close",
	Internal:        "this is likely a bug in anygpu or the driver; please report it with `gpu info --json`",
}

// Categories lists every category except None, in declaration order.
func Categories() []Category {
	out := make([]Category, 0, numCategories-1)
	for c := Unavailable; c < numCategories; c++ {
		out = append(out, c)
	}
	return out
}

// String returns the lower-case name of the category ("out of memory").
func (c Category) String() string {
	if c < 0 || c >= numCategories {
		return "unknown category"
	}
	return categoryNames[c]
}

// Error makes a Category usable as an errors.Is target.
func (c Category) Error() string { return c.String() }

// DefaultHint is the generic recovery hint for a category, used when an error
// carries no hint of its own.
func (c Category) DefaultHint() string {
	if c < 0 || c >= numCategories {
		return ""
	}
	return categoryHints[c]
}

// CategoryOf returns the category of err: the Category of the first *Error in
// its tree that has one (not None), else the first Category value in it, else
// Timeout for context cancellation and deadlines; None for nil and Internal
// for anything else. A non-nil error never has category None.
func CategoryOf(err error) Category {
	if err == nil {
		return None
	}
	c := None
	if walk(err, func(e *Error) bool { c = e.Category; return c != None }) {
		return c
	}
	if stderrors.As(err, &c) && c != None {
		return c
	}
	if stderrors.Is(err, context.Canceled) || stderrors.Is(err, context.DeadlineExceeded) {
		return Timeout
	}
	return Internal
}
