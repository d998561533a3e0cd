package units

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", -5: "-5 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 1 << 20: "1.0 MiB",
		1 << 30: "1.0 GiB", 3 << 39: "1.5 TiB", -(1 << 30): "-1.0 GiB", 1<<63 - 1: "8.0 EiB",
	} {
		require.Equal(t, want, ByteSize(n), "ByteSize(%d)", n)
	}
}
