package gpu

import (
	"context"
	"unsafe"

	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/memview"
)

func sizeOf[T Scalar]() int64 {
	var zero T
	return int64(unsafe.Sizeof(zero))
}

// AllocSlice allocates a device buffer for n elements of T.
func AllocSlice[T Scalar](d *Device, n int) (*Buffer, error) {
	if d == nil {
		return nil, errorf(errors.InvalidArgument, "alloc slice", "nil device")
	}
	if n <= 0 {
		return nil, d.errorf(errors.InvalidArgument, "alloc slice", "element count must be positive, got %d", n)
	}
	return d.Alloc(int64(n) * sizeOf[T]())
}

// Upload enqueues a copy of src to the start of dst on stream s (see
// Stream.Write: src may be reused when Upload returns).
func Upload[T Scalar](s *Stream, dst *Buffer, src []T) error {
	if s == nil {
		return errorf(errors.InvalidArgument, "upload", "nil stream")
	}
	return s.Write(dst, 0, memview.Bytes(src))
}

// Download enqueues a copy of the start of src into dst on stream s; dst is
// filled once the stream is synchronized (see Stream.Read).
func Download[T Scalar](s *Stream, dst []T, src *Buffer) error {
	if s == nil {
		return errorf(errors.InvalidArgument, "download", "nil stream")
	}
	return s.Read(memview.Bytes(dst), src, 0)
}

// FromSlice allocates a buffer holding a copy of src, synchronously.
func FromSlice[T Scalar](ctx context.Context, d *Device, src []T) (*Buffer, error) {
	b, err := AllocSlice[T](d, len(src))
	if err != nil {
		return nil, err
	}
	s := d.DefaultStream()
	if err := Upload(s, b, src); err != nil {
		_ = b.Close()
		return nil, err
	}
	if err := s.Synchronize(ctx); err != nil {
		_ = b.Close()
		return nil, err
	}
	return b, nil
}

// ToSlice copies a whole buffer into a new []T, synchronously. The buffer's
// size must be a multiple of T's size.
func ToSlice[T Scalar](ctx context.Context, b *Buffer) ([]T, error) {
	if err := b.usable("to slice"); err != nil {
		return nil, err
	}
	size := sizeOf[T]()
	if b.size%size != 0 {
		return nil, b.dev.errorf(errors.InvalidArgument, "to slice", "buffer of %d bytes is not a whole number of %d-byte elements", b.size, size)
	}
	out := make([]T, b.size/size)
	s := b.dev.DefaultStream()
	if err := Download(s, out, b); err != nil {
		return nil, err
	}
	if err := s.Synchronize(ctx); err != nil {
		return nil, err
	}
	return out, nil
}
