//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStageAlignedNearSlabEnd: a scalar block staged where the current slab
// has room at 16-byte alignment but not at the device's uniform alignment
// starts a new slab instead of landing misaligned (on NVIDIA, uniform
// offsets must be multiples of 64: GPT-2's decode on Vulkan read wrong
// scalars once a slab filled up).
func TestStageAlignedNearSlabEnd(t *testing.T) {
	d := openTestDevice(t)
	for _, align := range []uint64{16, 64, 256} {
		for _, room := range []uint64{44, 60, 100, 300} {
			bs, err := d.NewStream()
			require.NoError(t, err)
			s := bs.(*stream)
			s.mu.Lock()
			_, _, err = s.stageLocked(16) // a current slab
			require.NoError(t, err)
			s.slab.head = slabSize - room
			sl, off, err := s.stageAlignedLocked(44, align)
			s.mu.Unlock()
			require.NoError(t, err)
			require.Zero(t, off%align, "align %d, %d bytes left: offset %d", align, room, off)
			require.LessOrEqual(t, off+44, uint64(slabSize))
			require.Same(t, sl, s.slab)
			require.NoError(t, bs.Close())
		}
	}
}
