package metal

import (
	"context"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend/metal/internal/objc"
	"github.com/anygpu/gpu/errors"
)

// Every code of MTLCommandBuffer.h's MTLCommandBufferError and MTLLibrary.h's
// MTLLibraryError, by value (AccessRevoked is the current name of the value
// that was Blacklisted).
var (
	wantCommandBufferCodes = map[int64]string{
		0: "MTLCommandBufferErrorNone", 1: "MTLCommandBufferErrorInternal", 2: "MTLCommandBufferErrorTimeout",
		3: "MTLCommandBufferErrorPageFault", 4: "MTLCommandBufferErrorAccessRevoked", 7: "MTLCommandBufferErrorNotPermitted",
		8: "MTLCommandBufferErrorOutOfMemory", 9: "MTLCommandBufferErrorInvalidResource", 10: "MTLCommandBufferErrorMemoryless",
		11: "MTLCommandBufferErrorDeviceRemoved", 12: "MTLCommandBufferErrorStackOverflow",
	}
	wantLibraryCodes = map[int64]string{
		1: "MTLLibraryErrorUnsupported", 2: "MTLLibraryErrorInternal", 3: "MTLLibraryErrorCompileFailure",
		4: "MTLLibraryErrorCompileWarning", 5: "MTLLibraryErrorFunctionNotFound", 6: "MTLLibraryErrorFileNotFound",
	}
)

func TestCodeTables(t *testing.T) {
	for _, tc := range []struct {
		name   string
		table  *errors.CodeTable
		domain string
		want   map[int64]string
	}{
		{"MTLCommandBufferError", commandBufferErrors, domainCommandBuffer, wantCommandBufferCodes},
		{"MTLLibraryError", libraryErrors, domainLibrary, wantLibraryCodes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			codes := tc.table.Codes()
			require.Len(t, codes, len(tc.want), "one entry per code of the header")
			for _, c := range codes {
				assert.Equal(t, tc.want[c.Value], c.Name, "name of value %d", c.Value)
				assert.True(t, strings.HasPrefix(c.Name, tc.name), "%s has the enum's prefix", c.Name)
				assert.NotEmpty(t, c.Msg, c.Name)
				assert.NotEmpty(t, c.Hint, c.Name)
				r := []rune(c.Msg)
				assert.False(t, unicode.IsUpper(r[0]), "%s: messages are lower-case: %q", c.Name, c.Msg)
				assert.False(t, c.Retryable && c.Fatal, "%s: a fatal error is not retryable", c.Name)
				if c.IsSuccess() {
					assert.Equal(t, "MTLCommandBufferErrorNone", c.Name, "only None is a success")
					continue
				}

				e := fromNSError(objc.NSError{Domain: tc.domain, Code: c.Value, Description: "Something failed.\nmore detail"}, "launch axpy", errors.Execution)
				require.NotNil(t, e)
				assert.Equal(t, c.Category, e.Category, c.Name)
				assert.Equal(t, c.Name, e.Name)
				assert.Equal(t, c.Value, e.Code)
				assert.Equal(t, c.Fatal, e.Fatal)
				assert.Equal(t, "Something failed.\nmore detail", e.Log, "the description is kept whole")
				msg := e.Error()
				assert.True(t, strings.HasPrefix(msg, "metal: launch axpy: "), msg)
				assert.Contains(t, msg, "("+c.Name+")", "the message names the code")
				assert.Contains(t, msg, c.Hint, "the message ends with the hint")
				assert.Equal(t, c.Hint, errors.Hint(e))
				assert.True(t, errors.Is(e, c.Category))
			}
		})
	}
	// The categories that matter most, explicitly.
	for code, cat := range map[int64]errors.Category{
		1: errors.Internal, 2: errors.Timeout, 3: errors.Execution, 4: errors.DeviceLost, 7: errors.Unavailable,
		8: errors.OutOfMemory, 9: errors.Execution, 11: errors.DeviceLost, 12: errors.Execution,
	} {
		c, ok := commandBufferErrors.Lookup(code)
		require.True(t, ok)
		assert.Equal(t, cat, c.Category, c.Name)
	}
	for _, code := range []int64{4, 7, 11} {
		c, _ := commandBufferErrors.Lookup(code)
		assert.True(t, c.Fatal, "%s leaves the device unusable", c.Name)
	}
	for _, code := range []int64{2, 3, 9, 12} {
		c, _ := commandBufferErrors.Lookup(code)
		assert.False(t, c.Fatal, "%s: Metal has no sticky errors, the device stays usable", c.Name)
	}
	c, _ := libraryErrors.Lookup(3)
	assert.Equal(t, errors.Compilation, c.Category)
	c, _ = libraryErrors.Lookup(5)
	assert.Equal(t, errors.InvalidArgument, c.Category, "a missing kernel function is the caller's mistake")
}

func TestCompileErrorCarriesLog(t *testing.T) {
	log := "program_source:2:60: error: use of undeclared identifier 'undeclared_identifier'\n" +
		"kernel void broken(device float* x [[buffer(0)]]) { x[0] = undeclared_identifier; }\n" +
		"                                                           ^\n" +
		"program_source:3:1: warning: unused variable 'y'\n" +
		"program_source:4:5: error: expected ';' after expression\n"
	e := fromNSError(objc.NSError{Domain: domainLibrary, Code: 3, Description: "Compilation failed: \n\n" + log}, `compile "broken"`, errors.Compilation)
	assert.Equal(t, errors.Compilation, e.Category)
	assert.Equal(t, "MTLLibraryErrorCompileFailure", e.Name)
	assert.Contains(t, e.Log, "undeclared_identifier", "the compiler log travels with the error")
	assert.Equal(t, e.Log, errors.LogOf(e))
	assert.Contains(t, e.Msg, "2 errors, the first: program_source:2:60: error: use of undeclared identifier")
	assert.False(t, e.Retryable)
	assert.True(t, strings.HasPrefix(e.Error(), `metal: compile "broken": msl compilation failed: 2 errors`), e.Error())
}

func TestCompilerServiceDiedIsRetryable(t *testing.T) {
	e := fromNSError(objc.NSError{Domain: domainLibrary, Code: 3,
		Description: "Compilation failed due to an interrupted connection: XPC_ERROR_CONNECTION_INTERRUPTED"}, "compile", errors.Compilation)
	assert.Equal(t, errors.Compilation, e.Category)
	assert.True(t, e.Retryable, "the compiler service died: the same compile can succeed")
	assert.Contains(t, e.Hint, "retry")
}

func TestUnknownDomainAndCodes(t *testing.T) {
	e := fromNSError(objc.NSError{Domain: "AGXMetalG13X", Code: 3, Description: "Compiler encountered an internal error"}, `kernel "k"`, errors.Compilation)
	assert.Equal(t, errors.Compilation, e.Category, "an unknown domain takes the operation's category")
	assert.Equal(t, "AGXMetalG13X 3", e.Name)
	assert.Contains(t, e.Error(), "compiler encountered an internal error", "the description, first letter lowered")
	assert.NotEmpty(t, errors.Hint(e))

	e = fromNSError(objc.NSError{Domain: domainCommandBuffer, Code: 99, Description: "new"}, "launch k", errors.Execution)
	assert.Equal(t, errors.Internal, e.Category, "a code the table lacks")
	assert.Equal(t, "MTLCommandBufferErrorCode99", e.Name)

	e = fromNSError(objc.NSError{Domain: domainCommandBuffer, Code: 0}, "launch k", errors.Execution)
	assert.Equal(t, errors.Internal, e.Category, "a failed command buffer with code None is still a failure")

	e = fromNSError(objc.NSError{}, "launch k", errors.Execution)
	assert.Equal(t, errors.Execution, e.Category, "no NSError at all")
	assert.Equal(t, "NSError 0", e.Name)
}

func TestLowerFirst(t *testing.T) {
	for in, want := range map[string]string{
		"Execution of the command buffer was aborted": "execution of the command buffer was aborted",
		"GPU address fault":                           "GPU address fault",
		"already lower":                               "already lower",
		"A":                                           "A",
		"":                                            "",
		"Élan":                                        "élan",
	} {
		assert.Equal(t, want, lowerFirst(in), in)
	}
	assert.Equal(t, "ab…", clip("abcdef", 2))
	assert.Equal(t, "é…", clip("éa", 2), "clip cuts at a rune boundary")
	assert.Equal(t, "first", firstLine("\n first \nsecond"))
}

func TestWithOp(t *testing.T) {
	e := errorf(errors.NotSupported, "compile", "h", "m")
	got := withOp(e, `compile "x"`).(*errors.Error)
	assert.Equal(t, `compile "x"`, got.Op)
	assert.Equal(t, "compile", e.Op, "the original is not modified")
	wrapped := withOp(context.Canceled, "synchronize")
	assert.Equal(t, errors.Timeout, errors.CategoryOf(wrapped))
	assert.ErrorIs(t, wrapped, context.Canceled)
}
