package metal

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/anygpu/gpu/backend/metal/internal/objc"
	"github.com/anygpu/gpu/errors"
)

// NSError domains whose codes the tables below describe.
const (
	domainCommandBuffer = "MTLCommandBufferErrorDomain"
	domainLibrary       = "MTLLibraryErrorDomain"
)

// commandBufferErrors describes every MTLCommandBufferError (the codes of
// MTLCommandBufferErrorDomain, MTLCommandBuffer.h): why a committed command
// buffer ended in MTLCommandBufferStatusError. Metal has no sticky context
// errors: a failed command buffer leaves the device usable, except when the
// device is gone or the process lost access to it (Fatal).
var commandBufferErrors = errors.NewCodeTable(Name, "MTLCommandBufferError", "MTLCommandBufferErrorCode", []errors.Code{
	{Name: "MTLCommandBufferErrorNone", Value: 0, Category: errors.None,
		Msg:  "no error",
		Hint: "nothing to do"},
	{Name: "MTLCommandBufferErrorInternal", Value: 1, Category: errors.Internal, Retryable: true,
		Msg:  "metal internal error",
		Hint: "the Metal driver failed internally (the error's log has its description and code): retry; if it repeats, report it to Apple with Feedback Assistant and to anygpu with `gpu info --json`"},
	{Name: "MTLCommandBufferErrorTimeout", Value: 2, Category: errors.Timeout,
		Msg:  "command buffer ran past the system's time limit",
		Hint: "macOS stopped GPU work that ran too long (the GPU watchdog, strictest on a GPU that drives a display): split the work into shorter launches"},
	{Name: "MTLCommandBufferErrorPageFault", Value: 3, Category: errors.Execution,
		Msg:  "gpu page fault",
		Hint: "a kernel read or wrote outside its buffers: check its indexing against the buffer sizes, and run it on the CPU backend to compare; the device stays usable"},
	{Name: "MTLCommandBufferErrorAccessRevoked", Value: 4, Category: errors.DeviceLost, Fatal: true,
		Msg:  "gpu access revoked",
		Hint: "macOS revoked this process's access to the GPU after too many timeouts or hangs: fix the kernel that hangs, then restart the process"},
	{Name: "MTLCommandBufferErrorNotPermitted", Value: 7, Category: errors.Unavailable, Fatal: true,
		Msg:  "process may not use the gpu",
		Hint: "this process has no access to the GPU (a sandbox, or a session without GPU access such as some SSH and daemon contexts): run it where it can use the GPU"},
	{Name: "MTLCommandBufferErrorOutOfMemory", Value: 8, Category: errors.OutOfMemory, Retryable: true,
		Msg:  "not enough gpu memory to run the command buffer",
		Hint: "free buffers, trim the pools, or process the data in smaller batches; MemInfo shows how much of the working set is left"},
	{Name: "MTLCommandBufferErrorInvalidResource", Value: 9, Category: errors.Execution,
		Msg:  "command buffer used an invalid resource",
		Hint: "a buffer the work used was released before it ran; anygpu keeps every buffer alive for the command buffers that use it, so this is likely a bug: please report it with `gpu info --json`"},
	{Name: "MTLCommandBufferErrorMemoryless", Value: 10, Category: errors.NotSupported,
		Msg:  "out of memoryless attachment memory",
		Hint: "memoryless render targets do not occur in compute work: please report it with `gpu info --json`"},
	{Name: "MTLCommandBufferErrorDeviceRemoved", Value: 11, Category: errors.DeviceLost, Fatal: true,
		Msg:  "gpu removed",
		Hint: "the GPU was unplugged (an external GPU) or reset: close this Device and open one again (gpu info lists what is left)"},
	{Name: "MTLCommandBufferErrorStackOverflow", Value: 12, Category: errors.Execution,
		Msg:  "kernel call stack overflow",
		Hint: "a kernel used more call-stack frames than its pipeline allows (deep or recursive function calls): flatten the calls or inline them"},
})

// libraryErrors describes every MTLLibraryError (the codes of
// MTLLibraryErrorDomain, MTLLibrary.h) that newLibraryWithSource:options:error:
// and pipeline creation return.
var libraryErrors = errors.NewCodeTable(Name, "MTLLibraryError", "MTLLibraryErrorCode", []errors.Code{
	{Name: "MTLLibraryErrorUnsupported", Value: 1, Category: errors.NotSupported,
		Msg:  "msl source not supported",
		Hint: "this device or macOS version does not support the Metal Shading Language version or a feature the source uses: choose an older -std=metalX.Y, or avoid the feature (the log says which)"},
	{Name: "MTLLibraryErrorInternal", Value: 2, Category: errors.Internal, Retryable: true,
		Msg:  "metal compiler internal error",
		Hint: "the Metal compiler failed internally: retry; if it repeats, report it to Apple with the log attached to the error (errors.LogOf)"},
	{Name: "MTLLibraryErrorCompileFailure", Value: 3, Category: errors.Compilation,
		Msg:  "msl compilation failed",
		Hint: "read the compiler log attached to the error (errors.LogOf): program_source:LINE:COLUMN points into Source.MSL"},
	{Name: "MTLLibraryErrorCompileWarning", Value: 4, Category: errors.Compilation,
		Msg:  "msl compilation produced only warnings and no library",
		Hint: "read the compiler log attached to the error (errors.LogOf) and fix what it warns about"},
	{Name: "MTLLibraryErrorFunctionNotFound", Value: 5, Category: errors.InvalidArgument,
		Msg:  "kernel function not found",
		Hint: "Source.MSL has no kernel function of that name: name each kernel function after its kernel (the keys of Source.Params)"},
	{Name: "MTLLibraryErrorFileNotFound", Value: 6, Category: errors.InvalidArgument,
		Msg:  "library file not found",
		Hint: "anygpu compiles MSL source and loads no library file, so this is unexpected: please report it with `gpu info --json`"},
})

// fromNSError converts an NSError returned by operation op to an error. The
// Metal domains map through their tables; another domain gets category
// fallback (what the operation's failures usually are: Compilation for
// compiles, Execution for command buffers). The localizedDescription is kept
// whole as the Log, and its first line ends the message.
func fromNSError(ne objc.NSError, op string, fallback errors.Category) *errors.Error {
	var e *errors.Error
	switch ne.Domain {
	case domainCommandBuffer:
		e = tableError(commandBufferErrors, ne.Code, op)
		if e == nil { // status Error with code None: still a failure
			e = &errors.Error{Backend: Name, Op: op, Code: ne.Code, Name: "MTLCommandBufferErrorNone",
				Category: errors.Internal, Msg: "command buffer failed without an error code",
				Hint: "the driver reported a failure without saying why: retry, and report it if it repeats"}
		}
	case domainLibrary:
		e = tableError(libraryErrors, ne.Code, op)
		if e == nil {
			e = &errors.Error{Backend: Name, Op: op, Code: ne.Code, Category: fallback}
		}
	default:
		name := ne.Domain
		if name == "" {
			name = "NSError"
		}
		e = &errors.Error{
			Backend: Name, Op: op, Code: ne.Code, Name: fmt.Sprintf("%s %d", name, ne.Code),
			Category: fallback, Msg: "metal reported an error",
			Hint: fallback.DefaultHint(),
		}
	}
	e.Log = strings.TrimSpace(ne.Description)
	compile := e.Category == errors.Compilation || (ne.Domain == domainLibrary && e.Category == errors.Internal)
	if n := countDiagnostics(e.Log, "error:"); compile && n > 0 {
		e.Msg = fmt.Sprintf("%s: %d error%s, the first: %s", e.Msg, n, plural(n), firstDiagnostic(e.Log))
	} else if line := firstLine(e.Log); line != "" {
		e.Msg = e.Msg + ": " + lowerFirst(line)
	}
	if compile && compilerServiceDied(e.Log) {
		e.Retryable = true
		e.Hint = "the Metal compiler service stopped while compiling (its connection was interrupted): retry the compile; if it repeats, restart the process"
	}
	return e
}

// tableError looks code up in t; nil for a success code.
func tableError(t *errors.CodeTable, code int64, op string) *errors.Error {
	err := t.Err(code, op)
	if err == nil {
		return nil
	}
	e, ok := err.(*errors.Error)
	if !ok {
		return &errors.Error{Backend: Name, Op: op, Code: code, Category: errors.Internal, Err: err}
	}
	return e
}

// compilerServiceDied reports whether a compile failed because the Metal
// compiler's XPC service went away, not because of the source: the same
// compile can then succeed when retried.
func compilerServiceDied(log string) bool {
	return strings.Contains(log, "XPC_ERROR_CONNECTION_INTERRUPTED") || strings.Contains(log, "XPC_ERROR_CONNECTION_INVALID")
}

// countDiagnostics counts the compiler diagnostics of one kind ("error:") in a
// log of clang-style lines ("program_source:3:5: error: ...").
func countDiagnostics(log, kind string) int {
	n := 0
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, ": "+kind) {
			n++
		}
	}
	return n
}

// firstDiagnostic returns the first "error:" line of a compiler log, cut to a
// readable length.
func firstDiagnostic(log string) string {
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, ": error:") {
			return clip(strings.TrimSpace(line), 200)
		}
	}
	return ""
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip(strings.TrimSpace(s), 200)
}

// clip cuts s to at most n bytes at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// lowerFirst lower-cases the first letter of a sentence ("Execution of the
// command buffer ..."), but not of an acronym ("GPU ...").
func lowerFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if !unicode.IsUpper(r) || len(s) <= size {
		return s
	}
	next, _ := utf8.DecodeRuneInString(s[size:])
	if unicode.IsUpper(next) {
		return s
	}
	return string(unicode.ToLower(r)) + s[size:]
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// withOp sets the operation of an *errors.Error of this backend (others are
// wrapped).
func withOp(err error, op string) error {
	if e, ok := err.(*errors.Error); ok {
		c := *e
		c.Op = op
		return &c
	}
	return errors.Wrap(err, Name, op)
}

// errorf builds an error of this backend that has no NSError behind it.
func errorf(cat errors.Category, op, hint, format string, args ...any) *errors.Error {
	return &errors.Error{Backend: Name, Op: op, Category: cat, Msg: fmt.Sprintf(format, args...), Hint: hint}
}
