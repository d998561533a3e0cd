package metal

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

func TestRegistered(t *testing.T) {
	d, ok := backend.Lookup(Name)
	require.True(t, ok, "init registers the driver")
	assert.Equal(t, Name, d.Name())
}

// TestUnavailableOffApple: on every OS but darwin the driver is there and
// says why it has no devices.
func TestUnavailableOffApple(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("darwin has the real implementation")
	}
	ctx := context.Background()
	devs, err := Driver{}.Probe(ctx)
	assert.Nil(t, devs)
	require.Error(t, err)
	assert.Equal(t, errors.Unavailable, errors.CategoryOf(err))
	assert.Contains(t, err.Error(), "Metal exists only on Apple platforms")
	assert.Contains(t, err.Error(), "metal: probe: ")
	assert.NotEmpty(t, errors.Hint(err))
	assert.Contains(t, errors.Hint(err), "macOS")

	dev, err := Driver{Storage: StoragePrivate}.Open(ctx, 0)
	assert.Nil(t, dev)
	assert.Equal(t, errors.Unavailable, errors.CategoryOf(err))
}

func TestDriverArguments(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Driver{}.Probe(ctx)
	assert.Equal(t, errors.Timeout, errors.CategoryOf(err), "a cancelled probe")
	_, err = Driver{}.Open(ctx, 0)
	assert.Equal(t, errors.Timeout, errors.CategoryOf(err))
	var nilCtx context.Context
	_, err = Driver{}.Probe(nilCtx) //nolint:staticcheck // a nil context is the point
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
	_, err = Driver{}.Open(context.Background(), -1)
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
}

func TestStorage(t *testing.T) {
	for in, want := range map[string]Storage{"": StorageAuto, "auto": StorageAuto, "shared": StorageShared, " Private ": StoragePrivate} {
		got, err := ParseStorage(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := ParseStorage("managed")
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
	assert.Contains(t, errors.Hint(err), EnvStorage)
	assert.Equal(t, "private", StoragePrivate.String())
	assert.Equal(t, "Storage(9)", Storage(9).String())

	for _, tc := range []struct {
		field   Storage
		env     string
		unified bool
		want    Storage
	}{
		{StorageAuto, "", true, StorageShared},
		{StorageAuto, "", false, StoragePrivate},
		{StorageAuto, "private", true, StoragePrivate},
		{StorageAuto, "shared", false, StorageShared},
		{StoragePrivate, "shared", true, StoragePrivate}, // the driver's field wins over the environment
		{StorageShared, "bogus", false, StorageShared},   // and the environment is not even read
		{StorageAuto, "auto", false, StoragePrivate},
	} {
		got, err := resolveStorage(tc.field, tc.env, tc.unified)
		require.NoError(t, err, "%+v", tc)
		assert.Equal(t, tc.want, got, "%+v", tc)
	}
	_, err = resolveStorage(StorageAuto, "bogus", true)
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
	_, err = resolveStorage(Storage(7), "", true)
	assert.Equal(t, errors.InvalidArgument, errors.CategoryOf(err))
}
