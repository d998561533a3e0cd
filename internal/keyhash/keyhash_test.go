package keyhash

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEncoding pins the byte encoding: existing cache keys depend on it.
func TestEncoding(t *testing.T) {
	k := New()
	k.String("ab")
	k.List([]string{"c"})
	k.Map(map[string]string{"z": "1", "y": "2"})
	want := sha256.Sum256([]byte(
		"\x02\x00\x00\x00\x00\x00\x00\x00ab" +
			"\x01\x00\x00\x00\x00\x00\x00\x001" + "\x01\x00\x00\x00\x00\x00\x00\x00c" +
			"\x01\x00\x00\x00\x00\x00\x00\x002" +
			"\x01\x00\x00\x00\x00\x00\x00\x00y" + "\x01\x00\x00\x00\x00\x00\x00\x002" +
			"\x01\x00\x00\x00\x00\x00\x00\x00z" + "\x01\x00\x00\x00\x00\x00\x00\x001"))
	require.Equal(t, hex.EncodeToString(want[:]), k.Hex())
}

// TestFieldsDoNotRunTogether: moving a boundary between fields changes the key.
func TestFieldsDoNotRunTogether(t *testing.T) {
	a, b := New(), New()
	a.String("ab")
	a.String("c")
	b.String("a")
	b.String("bc")
	assert.NotEqual(t, a.Hex(), b.Hex())
	c, d := New(), New()
	c.List([]string{"x", "y"})
	d.List([]string{"x"})
	d.String("y")
	assert.NotEqual(t, c.Hex(), d.Hex())
}
