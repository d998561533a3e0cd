package hostmem

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestField(t *testing.T) {
	p := filepath.Join(t.TempDir(), "meminfo")
	require.NoError(t, os.WriteFile(p, []byte("MemTotal:       16384 kB\nMemFree: 1 kB\nMemAvailable:    8192 kB\nHugePages_Total:       3\nBad:\nOdd: x kB\n"), 0o600))
	old := meminfoPath
	meminfoPath = p
	t.Cleanup(func() { meminfoPath = old })
	tests := []struct {
		name string
		want int64
	}{
		{"MemTotal", 16384 << 10},
		{"MemAvailable", 8192 << 10},
		{"HugePages_Total", 3}, // no unit: a count
		{"Bad", 0},
		{"Odd", 0},
		{"Missing", 0},
		{"Mem", 0}, // a prefix of a name is not the name
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Field(tt.name), tt.name)
	}
	assert.Equal(t, int64(16384<<10), Total())
	assert.Equal(t, int64(8192<<10), Available())

	meminfoPath = filepath.Join(t.TempDir(), "missing")
	assert.Zero(t, Total())
}
