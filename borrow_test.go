package gpu_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu"
	"github.com/anygpu/gpu/errors"
)

// TestBorrowChecks: the root refuses a zero handle or a size that is not
// positive on every backend, and a backend that cannot borrow memory says
// so with NotSupported. (CUDA's borrowing is tested over the fake driver in
// backend/cuda.)
func TestBorrowChecks(t *testing.T) {
	dev, err := gpu.Open(context.Background(), gpu.WithBackends("cpu"))
	require.NoError(t, err)
	defer dev.Close()
	for _, tc := range []struct {
		name   string
		handle uintptr
		size   int64
		cat    errors.Category
	}{
		{"zero handle", 0, 64, errors.InvalidArgument},
		{"negative size", 0x1000, -1, errors.InvalidArgument},
		{"a backend that cannot borrow", 0x1000, 64, errors.NotSupported},
	} {
		_, err := dev.Borrow(tc.handle, tc.size)
		require.Equal(t, tc.cat, errors.CategoryOf(err), "%s: %v", tc.name, err)
		if tc.cat == errors.NotSupported {
			require.NotEmpty(t, errors.Hint(err))
		}
	}
	var nilBuf *gpu.Buffer
	require.False(t, nilBuf.Borrowed())
}
