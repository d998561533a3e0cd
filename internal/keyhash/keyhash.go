// Package keyhash builds the project's cache keys: a SHA-256 over fields
// written with their lengths first, so that no two different sequences of
// fields hash alike ("ab","c" and "a","bc" differ). The NVRTC disk cache, the
// CUDA backend's module cache and the prebuilt set's program keys all hash
// this way; the encoding must not change, or their existing keys would.
package keyhash

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"maps"
	"slices"
	"strconv"
)

// Hash accumulates fields. The zero value is not usable: call New.
type Hash struct{ h hash.Hash }

// New starts an empty key.
func New() *Hash { return &Hash{h: sha256.New()} }

// String adds s: its length as 8 little-endian bytes, then its bytes.
func (k *Hash) String(s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	k.h.Write(n[:])
	k.h.Write([]byte(s))
}

// List adds the number of strings (in decimal, as a field), then each.
func (k *Hash) List(l []string) {
	k.String(strconv.Itoa(len(l)))
	for _, s := range l {
		k.String(s)
	}
}

// Map adds the number of entries (in decimal, as a field), then each key
// and value in the keys' sorted order.
func (k *Hash) Map(m map[string]string) {
	k.String(strconv.Itoa(len(m)))
	for _, key := range slices.Sorted(maps.Keys(m)) {
		k.String(key)
		k.String(m[key])
	}
}

// Hex is the hex SHA-256 of everything added so far.
func (k *Hash) Hex() string { return hex.EncodeToString(k.h.Sum(nil)) }
