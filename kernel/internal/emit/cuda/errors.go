package cuda

import (
	"fmt"

	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernel/internal/ir"
)

// backendName is the Backend of the errors Emit returns.
const backendName = "cuda"

// notSupported is the error for a construct the CUDA dialect cannot express:
// where (pos), what is not allowed, and what to write instead (hint).
func notSupported(pos ir.Pos, hint, format string, args ...any) error {
	return &errors.Error{Backend: backendName, Op: "emit", Category: errors.NotSupported,
		Msg: pos.String() + ": " + fmt.Sprintf(format, args...), Hint: hint}
}

// malformed is the error for IR that breaks the invariants the front end
// guarantees (a bug in the front end, not in the kernel).
func malformed(pos ir.Pos, format string, args ...any) error {
	return &errors.Error{Backend: backendName, Op: "emit", Category: errors.Internal,
		Msg: pos.String() + ": malformed IR: " + fmt.Sprintf(format, args...)}
}
