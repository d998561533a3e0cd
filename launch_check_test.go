package gpu

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/anygpu/gpu/backend/cpu"
	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/kernels"
)

// TestLaunchChecksAgree checks Launch's two halves against each other over
// many good and bad launches: launchable (the compact fast path) accepts
// exactly the launches launchError's worded checks find nothing wrong with,
// so a refused launch always gets a real reason, never the Internal error
// that would mean the two disagree.
func TestLaunchChecksAgree(t *testing.T) {
	ctx := context.Background()
	dev, err := OpenDriver(ctx, cpu.Driver{}, 0)
	require.NoError(t, err)
	defer dev.Close()
	other, err := OpenDriver(ctx, cpu.Driver{}, 0)
	require.NoError(t, err)
	defer other.Close()
	mod, err := dev.Compile(ctx, kernels.Source())
	require.NoError(t, err)
	fill, err := mod.Kernel(kernels.OpFill) // (buffer, u32, f32)
	require.NoError(t, err)
	otherMod, err := other.Compile(ctx, kernels.Source())
	require.NoError(t, err)
	otherFill, err := otherMod.Kernel(kernels.OpFill)
	require.NoError(t, err)
	closedMod, err := dev.Compile(ctx, kernels.Source())
	require.NoError(t, err)
	closedFill, err := closedMod.Kernel(kernels.OpFill)
	require.NoError(t, err)
	require.NoError(t, closedMod.Close())
	y, err := dev.Alloc(64)
	require.NoError(t, err)
	otherY, err := other.Alloc(64)
	require.NoError(t, err)
	closedY, err := dev.Alloc(64)
	require.NoError(t, err)
	require.NoError(t, closedY.Close())
	s, err := dev.NewStream()
	require.NoError(t, err)
	defer s.Close()
	closedS, err := dev.NewStream()
	require.NoError(t, err)
	require.NoError(t, closedS.Close())

	maxT := dev.Info().MaxThreadsPerBlock
	streams := map[string]*Stream{"open": s, "closed": closedS, "nil": nil}
	kerns := map[string]*Kernel{"fill": fill, "other device's": otherFill, "closed module's": closedFill, "nil": nil}
	geoms := map[string][2]Dim3{
		"1x1": {D1(1), D1(1)}, "64x64": {D1(64), D1(64)}, "zero grid": {D1(0), D1(1)}, "zero block": {D1(1), D1(0)},
		"negative": {{X: 1, Y: -1}, D1(1)}, "block over the limit": {D1(1), D1(maxT + 1)}, "2-D": {{X: 2, Y: 3}, {X: 4, Y: 4}},
	}
	argLists := map[string][]Arg{
		"right":            {Buf(y), U32(1), F32(2)},
		"too few":          {Buf(y), U32(1)},
		"too many":         {Buf(y), U32(1), F32(2), F32(3)},
		"wrong kind":       {Buf(y), F32(1), F32(2)},
		"unset":            {Buf(y), {}, F32(2)},
		"nil buffer":       {Buf(nil), U32(1), F32(2)},
		"closed buffer":    {Buf(closedY), U32(1), F32(2)},
		"other's buffer":   {Buf(otherY), U32(1), F32(2)},
		"scalar for index": {U32(1), U32(1), F32(2)},
	}
	n := 0
	for sn, st := range streams {
		for kn, k := range kerns {
			for gn, g := range geoms {
				for an, args := range argLists {
					name := fmt.Sprintf("%s stream/%s kernel/%s/%s args", sn, kn, gn, an)
					ok := st.launchable(k, g[0].Norm(), g[1].Norm(), args)
					err := st.Launch(k, g[0], g[1], args...)
					if ok {
						require.NoError(t, err, name)
						n++
						continue
					}
					require.Error(t, err, name)
					require.NotEqual(t, errors.Internal, errors.CategoryOf(err), "%s: %v", name, err)
				}
			}
		}
	}
	require.NotZero(t, n, "some launches are good")
	require.NoError(t, s.Synchronize(ctx))
}
