package errors_test

import (
	"context"
	stderrors "errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/errors"
)

const (
	oomHint     = "free buffers, trim the pools, or process the data in smaller batches" // OutOfMemory.DefaultHint()
	timeoutHint = "give the operation a longer deadline, or check for a kernel that never ends"
)

func TestCategory(t *testing.T) {
	cats := errors.Categories()
	require.Len(t, cats, 12)
	assert.NotContains(t, cats, errors.None)
	assert.Equal(t, errors.Unavailable, cats[0])
	assert.Equal(t, errors.Internal, cats[len(cats)-1])

	seen := map[string]bool{}
	for _, c := range cats {
		assert.NotEmpty(t, c.String())
		assert.False(t, seen[c.String()], "unique name %q", c)
		seen[c.String()] = true
		assert.Equal(t, c.String(), c.Error())
		assert.NotEmpty(t, c.DefaultHint(), "default hint of %v", c)
	}
	assert.Equal(t, "out of memory", errors.OutOfMemory.String())
	assert.Equal(t, "none", errors.None.String())
	assert.Empty(t, errors.None.DefaultHint())
	assert.Equal(t, "unknown category", errors.Category(-1).String())
	assert.Equal(t, "unknown category", errors.Category(1000).String())
	assert.Empty(t, errors.Category(1000).DefaultHint())
	assert.Equal(t, oomHint, errors.OutOfMemory.DefaultHint())
}

func TestErrorFormat(t *testing.T) {
	plain := stderrors.New("disk on fire")
	inner := &errors.Error{Backend: "cuda", Op: "alloc 1.0 GiB", Name: "CUDA_ERROR_OUT_OF_MEMORY",
		Category: errors.OutOfMemory, Msg: "out of memory", Hint: "use a smaller batch"}
	tests := []struct {
		name string
		err  *errors.Error
		want string
	}{
		{"all fields",
			&errors.Error{Backend: "cuda", Op: "alloc 1.0 GiB", Name: "CUDA_ERROR_OUT_OF_MEMORY", Category: errors.OutOfMemory,
				Msg: "out of memory", Hint: "free memory or use a smaller batch"},
			"cuda: alloc 1.0 GiB: out of memory (CUDA_ERROR_OUT_OF_MEMORY): free memory or use a smaller batch"},
		{"no backend",
			&errors.Error{Op: "alloc", Name: "N", Category: errors.OutOfMemory, Msg: "m", Hint: "h"},
			"alloc: m (N): h"},
		{"no op",
			&errors.Error{Backend: "cuda", Name: "N", Category: errors.OutOfMemory, Msg: "m", Hint: "h"},
			"cuda: m (N): h"},
		{"no name",
			&errors.Error{Backend: "cuda", Op: "alloc", Category: errors.OutOfMemory, Msg: "m", Hint: "h"},
			"cuda: alloc: m: h"},
		{"no hint: category default",
			&errors.Error{Backend: "cuda", Op: "alloc", Name: "N", Category: errors.OutOfMemory, Msg: "m"},
			"cuda: alloc: m (N): " + oomHint},
		{"no hint, no category",
			&errors.Error{Backend: "cuda", Op: "alloc", Msg: "m"},
			"cuda: alloc: m"},
		{"message only",
			&errors.Error{Msg: "m"},
			"m"},
		{"no message: category name",
			&errors.Error{Category: errors.OutOfMemory},
			"out of memory: " + oomHint},
		{"zero value",
			&errors.Error{},
			"none"},
		{"no message: plain cause",
			&errors.Error{Backend: "cpu", Op: "wait", Category: errors.Timeout, Err: context.Canceled},
			"cpu: wait: context canceled: " + timeoutHint},
		{"message wins over cause",
			&errors.Error{Backend: "cpu", Op: "read", Category: errors.Internal, Msg: "short read", Hint: "h", Err: plain},
			"cpu: read: short read: h"},
		{"no message: *Error cause prints its own hint once",
			&errors.Error{Backend: "gpu", Op: "upload", Category: errors.OutOfMemory, Err: inner},
			"gpu: upload: cuda: alloc 1.0 GiB: out of memory (CUDA_ERROR_OUT_OF_MEMORY): use a smaller batch"},
		{"no message: wrapped *Error cause prints its own hint once",
			&errors.Error{Backend: "gpu", Op: "upload", Category: errors.OutOfMemory, Err: fmt.Errorf("staging: %w", inner)},
			"gpu: upload: staging: cuda: alloc 1.0 GiB: out of memory (CUDA_ERROR_OUT_OF_MEMORY): use a smaller batch"},
		{"no message: *Error cause, own hint kept",
			&errors.Error{Op: "upload", Category: errors.OutOfMemory, Hint: "mine", Err: inner},
			"upload: cuda: alloc 1.0 GiB: out of memory (CUDA_ERROR_OUT_OF_MEMORY): use a smaller batch: mine"},
		{"E formats its message",
			errors.E(errors.InvalidArgument, "cpu", "launch", "grid %d > %d", 70000, 65535),
			"cpu: launch: grid 70000 > 65535: check sizes, offsets and kernel arguments against the buffer and kernel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.err.Error())
			assert.EqualError(t, fmt.Errorf("%w", tt.err), tt.want)
		})
	}
}

func TestE(t *testing.T) {
	e := errors.E(errors.Closed, "vulkan", "buffer", "buffer %q is closed", "x")
	assert.Equal(t, &errors.Error{Backend: "vulkan", Op: "buffer", Category: errors.Closed, Msg: `buffer "x" is closed`}, e)
	assert.ErrorIs(t, e, errors.Closed)
}

func TestIsByCategory(t *testing.T) {
	oom := errors.FromCUDA(2, "alloc")
	fatal := errors.FromCUDA(700, "synchronize")
	tests := []struct {
		name string
		err  error
		cat  errors.Category
		want bool
	}{
		{"direct", oom, errors.OutOfMemory, true},
		{"direct, other category", oom, errors.Execution, false},
		{"fmt %w", fmt.Errorf("upload: %w", oom), errors.OutOfMemory, true},
		{"fmt %w twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", oom)), errors.OutOfMemory, true},
		{"fmt %v hides it", fmt.Errorf("upload: %v", oom), errors.OutOfMemory, false},
		{"join first", errors.Join(oom, io.EOF), errors.OutOfMemory, true},
		{"join second", errors.Join(io.EOF, fatal), errors.Execution, true},
		{"join both", errors.Join(oom, fatal), errors.Execution, true},
		{"join other", errors.Join(io.EOF, oom), errors.Timeout, false},
		{"wrapped join", fmt.Errorf("batch: %w", errors.Join(io.EOF, fatal)), errors.Execution, true},
		{"Wrap", errors.Wrap(fmt.Errorf("x: %w", oom), "gpu", "upload"), errors.OutOfMemory, true},
		{"category value itself", errors.OutOfMemory, errors.OutOfMemory, true},
		{"wrapped category value", fmt.Errorf("x: %w", errors.NotSupported), errors.NotSupported, true},
		{"plain", io.EOF, errors.Internal, false},
		{"nil", nil, errors.None, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, errors.Is(tt.err, tt.cat))
		})
	}
}

func TestReexports(t *testing.T) {
	base := errors.New("base")
	wrapped := fmt.Errorf("w: %w", base)
	assert.True(t, errors.Is(wrapped, base))
	assert.Equal(t, base, errors.Unwrap(wrapped))
	var e *errors.Error
	assert.True(t, errors.As(fmt.Errorf("w: %w", errors.FromCUDA(1, "x")), &e))
	assert.Equal(t, int64(1), e.Code)
	assert.True(t, errors.Is(errors.Join(io.EOF, base), base))
	assert.Same(t, stderrors.ErrUnsupported, errors.ErrUnsupported)
}

func TestCategoryOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want errors.Category
	}{
		{"nil", nil, errors.None},
		{"context.Canceled", context.Canceled, errors.Timeout},
		{"context.DeadlineExceeded", context.DeadlineExceeded, errors.Timeout},
		{"wrapped deadline", fmt.Errorf("wait: %w", context.DeadlineExceeded), errors.Timeout},
		{"plain error", io.EOF, errors.Internal},
		{"Category value", errors.DeviceLost, errors.DeviceLost},
		{"wrapped Category value", fmt.Errorf("x: %w", errors.Closed), errors.Closed},
		{"*Error", errors.FromCUDA(2, "alloc"), errors.OutOfMemory},
		{"wrapped *Error", fmt.Errorf("x: %w", errors.FromNVRTC(6, "compile")), errors.Compilation},
		{"*Error wins over its context cause", &errors.Error{Category: errors.Execution, Err: context.Canceled}, errors.Execution},
		{"join: first *Error", errors.Join(io.EOF, errors.FromCUDA(700, "x"), errors.FromCUDA(2, "y")), errors.Execution},
		{"join: context error", errors.Join(io.EOF, context.Canceled), errors.Timeout},
		{"*Error without category: cause decides", &errors.Error{Op: "wait", Err: context.Canceled}, errors.Timeout},
		{"*Error without category: inner *Error", &errors.Error{Op: "x", Err: errors.FromCUDA(2, "alloc")}, errors.OutOfMemory},
		{"*Error without category or cause", &errors.Error{Msg: "oops"}, errors.Internal},
		{"wrapped None is not None", fmt.Errorf("x: %w", errors.None), errors.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, errors.CategoryOf(tt.err))
		})
	}
}

func TestHint(t *testing.T) {
	withHint := &errors.Error{Category: errors.OutOfMemory, Hint: "own hint"}
	noHint := &errors.Error{Category: errors.OutOfMemory}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"own hint", withHint, "own hint"},
		{"wrapped hint", fmt.Errorf("x: %w", withHint), "own hint"},
		{"*Error without hint wrapping one with", &errors.Error{Category: errors.Launch, Err: withHint}, "own hint"},
		{"outer hint wins", &errors.Error{Category: errors.Launch, Hint: "outer", Err: withHint}, "outer"},
		{"joined: first with a hint", errors.Join(io.EOF, noHint, withHint), "own hint"},
		{"joined: none has a hint", errors.Join(io.EOF, noHint), oomHint},
		{"default category hint", noHint, oomHint},
		{"table hint", errors.FromCUDA(2, "alloc"), "free memory or use a smaller batch"},
		{"context error", context.DeadlineExceeded, timeoutHint},
		{"plain error", io.EOF, errors.Internal.DefaultHint()},
		{"category value", errors.NotSupported, errors.NotSupported.DefaultHint()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, errors.Hint(tt.err))
		})
	}
}

func TestLogOf(t *testing.T) {
	withLog := &errors.Error{Category: errors.Compilation, Log: "k.cu(3): error: expected a \";\""}
	noLog := &errors.Error{Category: errors.Compilation}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"plain", io.EOF, ""},
		{"no log", noLog, ""},
		{"own log", withLog, withLog.Log},
		{"wrapped", fmt.Errorf("build: %w", withLog), withLog.Log},
		{"outer *Error without log", &errors.Error{Category: errors.Compilation, Err: withLog}, withLog.Log},
		{"outer log wins", &errors.Error{Log: "outer", Err: withLog}, "outer"},
		{"joined: second has it", errors.Join(noLog, withLog), withLog.Log},
		{"joined: none", errors.Join(noLog, io.EOF), ""},
		{"Wrap keeps it", errors.Wrap(withLog, "nvrtc", "compile"), withLog.Log},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, errors.LogOf(tt.err))
		})
	}
}

func TestWrap(t *testing.T) {
	t.Run("nil", func(t *testing.T) {
		assert.NoError(t, errors.Wrap(nil, "cuda", "alloc"))
		assert.Nil(t, errors.Wrap(nil, "cuda", "alloc"))
	})

	t.Run("*Error: fills missing fields", func(t *testing.T) {
		orig := &errors.Error{Category: errors.OutOfMemory, Msg: "out of memory", Code: 2, Retryable: true}
		err := errors.Wrap(orig, "cuda", "alloc")
		var e *errors.Error
		require.True(t, errors.As(err, &e))
		assert.NotSame(t, orig, e, "a copy")
		assert.Equal(t, "cuda", e.Backend)
		assert.Equal(t, "alloc", e.Op)
		assert.Equal(t, int64(2), e.Code)
		assert.True(t, e.Retryable)
		assert.Empty(t, orig.Backend, "original unchanged")
		assert.Empty(t, orig.Op, "original unchanged")
	})

	t.Run("*Error: keeps backend, prefixes op", func(t *testing.T) {
		orig := errors.FromCUDA(2, "cuMemAlloc")
		err := errors.Wrap(orig, "gpu", "upload")
		assert.EqualError(t, err, "cuda: upload: cuMemAlloc: out of memory (CUDA_ERROR_OUT_OF_MEMORY): free memory or use a smaller batch")
		assert.Equal(t, "cuda: cuMemAlloc: out of memory (CUDA_ERROR_OUT_OF_MEMORY): free memory or use a smaller batch", orig.Error())
	})

	t.Run("*Error: op already there or empty", func(t *testing.T) {
		orig := errors.FromCUDA(2, "alloc 1.0 GiB")
		assert.Equal(t, "alloc 1.0 GiB", asError(t, errors.Wrap(orig, "cuda", "alloc")).Op)
		assert.Equal(t, "alloc 1.0 GiB", asError(t, errors.Wrap(orig, "cuda", "")).Op)
	})

	t.Run("plain error becomes the cause", func(t *testing.T) {
		err := errors.Wrap(io.EOF, "cpu", "read")
		e := asError(t, err)
		assert.Equal(t, "cpu", e.Backend)
		assert.Equal(t, "read", e.Op)
		assert.Equal(t, errors.Internal, e.Category)
		assert.ErrorIs(t, err, io.EOF)
		assert.Same(t, io.EOF, errors.Unwrap(err))
		assert.EqualError(t, err, "cpu: read: EOF: "+errors.Internal.DefaultHint())
	})

	t.Run("context error becomes Timeout", func(t *testing.T) {
		err := errors.Wrap(context.DeadlineExceeded, "cpu", "synchronize")
		assert.ErrorIs(t, err, errors.Timeout)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Equal(t, errors.Timeout, errors.CategoryOf(err))
	})

	t.Run("wrapped *Error keeps category, flags and hint", func(t *testing.T) {
		fatal := fmt.Errorf("kernel saxpy: %w", errors.FromCUDA(700, "synchronize"))
		err := errors.Wrap(fatal, "gpu", "run")
		e := asError(t, err)
		assert.Equal(t, errors.Execution, e.Category)
		assert.True(t, e.Fatal)
		assert.False(t, e.Retryable)
		assert.True(t, errors.IsFatal(err))
		c, _ := errors.CUDACode(700)
		assert.Equal(t, c.Hint, errors.Hint(err))
		assert.Equal(t, "gpu: run: "+fatal.Error(), err.Error(), "the cause's hint is printed once")

		retry := errors.Wrap(fmt.Errorf("x: %w", errors.FromCUDA(2, "alloc")), "gpu", "upload")
		assert.True(t, asError(t, retry).Retryable)
		assert.True(t, errors.IsRetryable(retry))
	})
}

func asError(t *testing.T, err error) *errors.Error {
	t.Helper()
	var e *errors.Error
	require.True(t, errors.As(err, &e), "%v is an *Error", err)
	return e
}

func TestIsFatalIsRetryable(t *testing.T) {
	oom := errors.FromCUDA(2, "alloc")             // retryable
	illegal := errors.FromCUDA(700, "synchronize") // fatal
	invalid := errors.FromCUDA(1, "launch")        // neither
	tests := []struct {
		name             string
		err              error
		fatal, retryable bool
	}{
		{"nil", nil, false, false},
		{"plain", io.EOF, false, false},
		{"context", context.Canceled, false, false},
		{"category value", errors.OutOfMemory, false, false},
		{"neither", invalid, false, false},
		{"retryable", oom, false, true},
		{"fatal", illegal, true, false},
		{"wrapped retryable", fmt.Errorf("x: %w", oom), false, true},
		{"wrapped fatal", fmt.Errorf("x: %w", illegal), true, false},
		{"joined fatal second", errors.Join(invalid, illegal), true, false},
		{"joined retryable first", errors.Join(oom, invalid), false, true},
		{"joined retryable and fatal: not retryable", errors.Join(oom, illegal), true, false},
		{"outer *Error over fatal cause", &errors.Error{Category: errors.Execution, Err: illegal}, true, false},
		{"nil *Error in chain", fmt.Errorf("x: %w", (*errors.Error)(nil)), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.fatal, errors.IsFatal(tt.err), "IsFatal")
			assert.Equal(t, tt.retryable, errors.IsRetryable(tt.err), "IsRetryable")
		})
	}
}
