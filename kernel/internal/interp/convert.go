package interp

import (
	"math"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// convert compiles To(X): integers wrap, floats round to the target, and a
// float to an integer truncates toward zero and saturates (NaN → 0).
func (c *compiler) convert(e *ir.Convert) (any, error) {
	x, from, err := c.exprKind(e.X)
	if err != nil {
		return nil, err
	}
	to, err := kindOf(e.To)
	if err != nil {
		return nil, errorf(e.Pos, "%v", err)
	}
	if from == to {
		return x, nil
	}
	var f any
	switch from {
	case kI32:
		f = convertFrom(x.(val[int32]), to)
	case kU32:
		f = convertFrom(x.(val[uint32]), to)
	case kI64:
		f = convertFrom(x.(val[int64]), to)
	case kU64:
		f = convertFrom(x.(val[uint64]), to)
	case kF32:
		f = convertFloat(x.(val[float32]), to)
	case kF64:
		f = convertFloat(x.(val[float64]), to)
	}
	if f == nil {
		return nil, errorf(e.Pos, "conversion of %v to %v is not supported", e.X.ExprType(), e.To)
	}
	return f, nil
}

// convertFrom converts an integer or float to kind to with Go's conversion,
// or returns nil.
func convertFrom[F number](x val[F], to kind) any {
	switch to {
	case kI32:
		return fnVal(conv[F, int32](x))
	case kU32:
		return fnVal(conv[F, uint32](x))
	case kI64:
		return fnVal(conv[F, int64](x))
	case kU64:
		return fnVal(conv[F, uint64](x))
	case kF32:
		return fnVal(conv[F, float32](x))
	case kF64:
		return fnVal(conv[F, float64](x))
	}
	return nil
}

func conv[F, T number](x val[F]) func(*thread) T {
	if x.slot {
		o := x.off
		return func(t *thread) T { return T(ld[F](t, o)) }
	}
	f := x.fn
	return func(t *thread) T { return T(f(t)) }
}

// convertFloat converts a float: to a float with Go's rounding, to an
// integer saturating.
func convertFloat[F float](x val[F], to kind) any {
	switch to {
	case kI32:
		return fnVal(saturate[F, int32](x, -(1 << 31), 1<<31, math.MinInt32, math.MaxInt32))
	case kU32:
		return fnVal(saturate[F, uint32](x, 0, 1<<32, 0, math.MaxUint32))
	case kI64:
		return fnVal(saturate[F, int64](x, -(1 << 63), 1<<63, math.MinInt64, math.MaxInt64))
	case kU64:
		return fnVal(saturate[F, uint64](x, 0, 1<<64, 0, math.MaxUint64))
	}
	return convertFrom(x, to)
}

// saturate converts to an integer type whose range is [lo, hi) as float64s,
// with the values below and above clamped to minT and maxT and NaN to 0.
func saturate[F float, T integer](x val[F], lo, hi float64, minT, maxT T) func(*thread) T {
	f := x.get()
	return func(t *thread) T {
		v := float64(f(t))
		switch {
		case v != v:
			return 0
		case v < lo:
			return minT
		case v >= hi:
			return maxT
		}
		return T(v)
	}
}
