package dl

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolve(t *testing.T) {
	h := openLibc(t)
	names := []string{"strlen", "anygpu_required", "strcmp", "anygpu_optional"}
	fn := make([]uintptr, len(names))
	err := Resolve(h, "libc.so.6", fn, names, 2)
	require.Error(t, err)
	assert.Equal(t, "libc.so.6 lacks anygpu_required", err.Error(), "only the required ones count")
	assert.NotZero(t, fn[0])
	assert.Zero(t, fn[1])
	assert.NotZero(t, fn[2])
	assert.Zero(t, fn[3])

	require.NoError(t, Resolve(h, "libc.so.6", fn, names[:1], 1))
}
