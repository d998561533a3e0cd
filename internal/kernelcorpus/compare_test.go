package kernelcorpus

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFlushedSubnormal(t *testing.T) {
	sub := float32(math.SmallestNonzeroFloat32)
	for _, tc := range []struct {
		got, want float32
		ok        bool
	}{
		{0, sub, true},
		{float32(math.Copysign(0, -1)), -sub, true},
		{0, -sub, false},     // the sign stays
		{0, 0x1p-126, false}, // the smallest normal is not flushed
		{0, 1, false},
		{sub, sub, true},
	} {
		assert.Equal(t, tc.ok, FlushedSubnormal(tc.got, tc.want), "%g vs %g", tc.got, tc.want)
	}
}
