//go:build !cgo

package webgpu

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/errors"
)

func TestNotCompiled(t *testing.T) {
	devs, err := Driver{}.Probe(context.Background())
	require.Empty(t, devs)
	require.ErrorIs(t, err, backend.ErrNotCompiled)
	require.Contains(t, err.Error(), "built without cgo")
	require.NotEmpty(t, errors.Hint(err))
	_, err = Driver{}.Open(context.Background(), 0)
	require.ErrorIs(t, err, backend.ErrNotCompiled)
}
