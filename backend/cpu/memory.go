package cpu

import (
	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/internal/memview"
)

// alignment of every buffer, a cache line (and an AVX-512 vector).
const alignment = 64

type buffer struct {
	mem []byte
}

var (
	_ backend.Buffer       = (*buffer)(nil)
	_ backend.HostMemory   = (*buffer)(nil)
	_ backend.NativeHandle = (*buffer)(nil)
)

func (b *buffer) Size() int64           { return int64(len(b.mem)) }
func (b *buffer) Bytes() []byte         { return b.mem }
func (b *buffer) NativeHandle() uintptr { return memview.Addr(b.mem) }

// Close lets the memory go to the garbage collector; the root package makes
// sure a closed buffer is not used again.
func (b *buffer) Close() error {
	b.mem = nil
	return nil
}

type hostBuffer struct{ buffer }

var _ backend.HostBuffer = (*hostBuffer)(nil)
