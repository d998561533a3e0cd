package tensor

import (
	"context"
	"testing"

	"github.com/anygpu/gpu"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestViewLayouts(t *testing.T) {
	dev := cpuDevice(t)
	ctx := context.Background()
	x, err := Zeros(ctx, dev, Float32, 2, 3, 4)
	require.NoError(t, err)
	defer x.Close()
	tests := []struct {
		name           string
		view           func(*Tensor) (*Tensor, error)
		shape, strides []int
		offset         int
		contiguous     bool
	}{
		{"base", (*Tensor).View, []int{2, 3, 4}, []int{12, 4, 1}, 0, true},
		{"transpose", transpose(0, 2), []int{4, 3, 2}, []int{1, 4, 12}, 0, false},
		{"transpose negative", transpose(-1, -2), []int{2, 4, 3}, []int{12, 1, 4}, 0, false},
		{"permute", permute(1, 2, 0), []int{3, 4, 2}, []int{4, 1, 12}, 0, false},
		{"slice", slice(1, 1, 3), []int{2, 2, 4}, []int{12, 4, 1}, 4, false},
		{"slice last", slice(-1, 3, 4), []int{2, 3, 1}, []int{12, 4, 1}, 3, false},
		{"slice outer", slice(0, 1, 2), []int{1, 3, 4}, []int{12, 4, 1}, 12, true},
		{"slice empty", slice(2, 2, 2), []int{2, 3, 0}, []int{12, 4, 1}, 0, true},
		{"reshape", reshape(6, 4), []int{6, 4}, []int{4, 1}, 0, true},
		{"reshape infer", reshape(2, -1), []int{2, 12}, []int{12, 1}, 0, true},
		{"expand", func(t *Tensor) (*Tensor, error) {
			s, err := t.Slice(2, 0, 1)
			if err != nil {
				return nil, err
			}
			defer s.Close()
			return s.Expand(5, -1, 3, 4)
		}, []int{5, 2, 3, 4}, []int{0, 12, 4, 0}, 0, false},
		{"reshape of a transposed outer pair", func(t *Tensor) (*Tensor, error) {
			// [2 3 4] permuted to [3 2 4] (strides 4 12 1): its last two
			// dimensions do not merge, but the last one splits.
			p, err := t.Permute(1, 0, 2)
			if err != nil {
				return nil, err
			}
			defer p.Close()
			return p.Reshape(3, 2, 2, 2)
		}, []int{3, 2, 2, 2}, []int{4, 12, 2, 1}, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tc.view(x)
			require.NoError(t, err)
			defer v.Close()
			assert.Equal(t, tc.shape, v.Shape())
			assert.Equal(t, tc.strides, v.Strides())
			assert.Equal(t, tc.offset, v.Offset())
			assert.Equal(t, tc.contiguous, v.IsContiguous())
			assert.Same(t, x.Buffer(), v.Buffer(), "a view shares the buffer")
		})
	}
}

// TestViewContents reads views of every element size back on every backend:
// the gather kernel moves 1-, 2- and 4-byte elements, at odd offsets.
func TestViewContents(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		for _, d := range DTypes() {
			t.Run(d.String(), func(t *testing.T) {
				h := build([]int{3, 5, 7}, func(idx []int) float64 { return float64(idx[0]*35 + idx[1]*7 + idx[2] - 50) })
				x, err := FromFloat32(ctx, dev, d, h.float32s(), 3, 5, 7)
				require.NoError(t, err)
				defer x.Close()
				// Values as the dtype stores them (uint8 saturates the negatives).
				stored, err := x.Peek(ctx)
				require.NoError(t, err)
				for i, v := range stored {
					h.data[i] = float64(v)
				}
				views := []struct {
					name string
					v    []func(*Tensor) (*Tensor, error)
					h    func(hostND) hostND
				}{
					{"transposed", []func(*Tensor) (*Tensor, error){transpose(0, 2)}, func(h hostND) hostND { return h.permute(2, 1, 0) }},
					{"odd slice", []func(*Tensor) (*Tensor, error){slice(2, 1, 6), slice(1, 1, 4)}, func(h hostND) hostND { return h.slice(2, 1, 6).slice(1, 1, 4) }},
					{"contiguous at an odd offset", []func(*Tensor) (*Tensor, error){slice(0, 1, 3), reshape(-1), slice(0, 3, 64)},
						func(h hostND) hostND {
							s := h.slice(0, 1, 3)
							return hostND{shape: []int{61}, data: s.data[3:64]}
						}},
					{"expanded", []func(*Tensor) (*Tensor, error){slice(1, 2, 3), expand(2, 3, 5, 7)}, func(h hostND) hostND { return h.slice(1, 2, 3).expand(2, 3, 5, 7) }},
				}
				for _, vc := range views {
					t.Run(vc.name, func(t *testing.T) {
						v := x
						for _, f := range vc.v {
							w, err := f(v)
							require.NoError(t, err)
							defer w.Close()
							v = w
						}
						want := vc.h(h)
						requireClose(t, want, read2(t, v), tolerance{}, "view")
						c, err := v.Contiguous()
						require.NoError(t, err)
						defer c.Close()
						require.True(t, c.IsContiguous())
						if v.IsContiguous() {
							assert.Same(t, v.Buffer(), c.Buffer(), "Contiguous of a contiguous view copies nothing")
						} else {
							assert.NotSame(t, v.Buffer(), c.Buffer())
						}
						requireClose(t, want, read2(t, c), tolerance{}, "contiguous")
						cp, err := v.CopyTo(ctx, dev)
						require.NoError(t, err)
						requireClose(t, want, read(t, cp), tolerance{}, "copy")
					})
				}
			})
		}
	})
}

// read2 is x's elements on the host, leaving x open.
func read2(t *testing.T, x *Tensor) []float32 {
	t.Helper()
	got, err := x.ToFloat32(context.Background())
	require.NoError(t, err)
	return got
}

func TestTypedRoundTrip(t *testing.T) {
	forEachDevice(t, func(t *testing.T, dev *gpu.Device) {
		ctx := context.Background()
		f, err := FromSlice(ctx, dev, []float32{1.5, -2, 3})
		require.NoError(t, err)
		defer f.Close()
		require.Equal(t, Float32, f.DType())
		gotF, err := ToHost[float32](ctx, f)
		require.NoError(t, err)
		require.Equal(t, []float32{1.5, -2, 3}, gotF)

		i8, err := FromSlice(ctx, dev, []int8{-128, 5, 127}, 3, 1)
		require.NoError(t, err)
		defer i8.Close()
		require.Equal(t, Int8, i8.DType())
		gotI8, err := ToHost[int8](ctx, i8)
		require.NoError(t, err)
		require.Equal(t, []int8{-128, 5, 127}, gotI8)

		u8, err := FromSlice(ctx, dev, []uint8{0, 200, 255, 7, 9})
		require.NoError(t, err)
		defer u8.Close()
		require.Equal(t, Uint8, u8.DType())
		tail, err := u8.Slice(0, 1, 4)
		require.NoError(t, err)
		defer tail.Close()
		gotU8, err := ToHost[uint8](ctx, tail)
		require.NoError(t, err)
		require.Equal(t, []uint8{200, 255, 7}, gotU8)

		type logit float32
		l, err := FromSlice(ctx, dev, []logit{0.25})
		require.NoError(t, err)
		defer l.Close()
		require.Equal(t, Float32, l.DType(), "a named float32 type")

		i32, err := FromSlice(ctx, dev, []int32{-7, 1 << 30})
		require.NoError(t, err)
		defer i32.Close()
		require.Equal(t, Int32, i32.DType())
		gotI32, err := ToHost[int32](ctx, i32)
		require.NoError(t, err)
		require.Equal(t, []int32{-7, 1 << 30}, gotI32)

		_, err = ToHost[float32](ctx, i32)
		require.Error(t, err, "reading int32 as float32")

		h, err := FromFloat32(ctx, dev, Float16, []float32{1, 65519, 1e-8})
		require.NoError(t, err)
		defer h.Close()
		raw, err := h.Bytes(ctx)
		require.NoError(t, err)
		require.Equal(t, []byte{0x00, 0x3c, 0xff, 0x7b, 0x00, 0x00}, raw)
		raw[0], raw[1] = 0x00, 0xc0 // -2
		h2, err := FromBytes(ctx, dev, Float16, raw, 3)
		require.NoError(t, err)
		defer h2.Close()
		got, err := h2.ToFloat32(ctx)
		require.NoError(t, err)
		require.Equal(t, []float32{-2, 65504, 0}, got)
	})
}

// TestCloseKeepsViews: a view outlives the tensor it came from, and the
// buffer is freed with the last of them.
func TestCloseKeepsViews(t *testing.T) {
	dev := cpuDevice(t)
	ctx := context.Background()
	before := dev.Stats().Frees
	x, err := FromSlice(ctx, dev, []float32{1, 2, 3, 4}, 2, 2)
	require.NoError(t, err)
	v, err := x.Transpose(0, 1)
	require.NoError(t, err)
	require.NoError(t, x.Close())
	require.NoError(t, x.Close(), "closing twice")
	require.NoError(t, Synchronize(ctx, dev))
	require.Equal(t, before, dev.Stats().Frees, "the buffer lives while a view does")
	_, err = x.ToFloat32(ctx)
	require.Error(t, err, "a closed tensor")
	got, err := v.ToFloat32(ctx) // gathers into a temporary, freed at once
	require.NoError(t, err)
	require.Equal(t, []float32{1, 3, 2, 4}, got)
	afterRead := dev.Stats().Frees
	require.NoError(t, v.Close())
	require.NoError(t, Synchronize(ctx, dev))
	require.Equal(t, afterRead+1, dev.Stats().Frees, "the last close frees it")
}
