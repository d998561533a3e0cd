// Code written with the help of a script: one function per operator, each
// with a variant per operand shape (frame slot or closure), so that reading a
// local, parameter or constant operand costs no call.

package interp

// opAdd is x + y.
func opAdd[T number](x, y val[T]) func(*thread) T {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) T { return ld[T](t, xo) + ld[T](t, yo) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) T { return ld[T](t, xo) + yf(t) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) T { return xf(t) + ld[T](t, yo) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) T { return xf(t) + yf(t) }
	}
}

// opSub is x - y.
func opSub[T number](x, y val[T]) func(*thread) T {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) T { return ld[T](t, xo) - ld[T](t, yo) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) T { return ld[T](t, xo) - yf(t) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) T { return xf(t) - ld[T](t, yo) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) T { return xf(t) - yf(t) }
	}
}

// opMul is x * y.
func opMul[T number](x, y val[T]) func(*thread) T {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) T { return ld[T](t, xo) * ld[T](t, yo) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) T { return ld[T](t, xo) * yf(t) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) T { return xf(t) * ld[T](t, yo) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) T { return xf(t) * yf(t) }
	}
}

// opDivFloat is x / y of floats.
func opDivFloat[T float](x, y val[T]) func(*thread) T {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) T { return ld[T](t, xo) / ld[T](t, yo) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) T { return ld[T](t, xo) / yf(t) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) T { return xf(t) / ld[T](t, yo) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) T { return xf(t) / yf(t) }
	}
}

// opAnd is x & y.
func opAnd[T integer](x, y val[T]) func(*thread) T {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) T { return ld[T](t, xo) & ld[T](t, yo) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) T { return ld[T](t, xo) & yf(t) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) T { return xf(t) & ld[T](t, yo) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) T { return xf(t) & yf(t) }
	}
}

// opOr is x | y.
func opOr[T integer](x, y val[T]) func(*thread) T {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) T { return ld[T](t, xo) | ld[T](t, yo) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) T { return ld[T](t, xo) | yf(t) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) T { return xf(t) | ld[T](t, yo) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) T { return xf(t) | yf(t) }
	}
}

// opXor is x ^ y.
func opXor[T integer](x, y val[T]) func(*thread) T {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) T { return ld[T](t, xo) ^ ld[T](t, yo) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) T { return ld[T](t, xo) ^ yf(t) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) T { return xf(t) ^ ld[T](t, yo) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) T { return xf(t) ^ yf(t) }
	}
}

// opAndNot is x &^ y.
func opAndNot[T integer](x, y val[T]) func(*thread) T {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) T { return ld[T](t, xo) &^ ld[T](t, yo) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) T { return ld[T](t, xo) &^ yf(t) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) T { return xf(t) &^ ld[T](t, yo) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) T { return xf(t) &^ yf(t) }
	}
}

// opDivInt is x / y of integers, with x/0 == x (the most negative / -1 wraps, as in Go).
func opDivInt[T integer](x, y val[T]) func(*thread) T {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) T { return divInt(ld[T](t, xo), ld[T](t, yo)) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) T { return divInt(ld[T](t, xo), yf(t)) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) T { return divInt(xf(t), ld[T](t, yo)) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) T { return divInt(xf(t), yf(t)) }
	}
}

// opRemInt is x % y of integers, with x%0 == 0.
func opRemInt[T integer](x, y val[T]) func(*thread) T {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) T { return remInt(ld[T](t, xo), ld[T](t, yo)) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) T { return remInt(ld[T](t, xo), yf(t)) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) T { return remInt(xf(t), ld[T](t, yo)) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) T { return remInt(xf(t), yf(t)) }
	}
}

// opEq is x == y.
func opEq[T number](x, y val[T]) func(*thread) bool {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) bool { return ld[T](t, xo) == ld[T](t, yo) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) bool { return ld[T](t, xo) == yf(t) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) bool { return xf(t) == ld[T](t, yo) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) bool { return xf(t) == yf(t) }
	}
}

// opNe is x != y.
func opNe[T number](x, y val[T]) func(*thread) bool {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) bool { return ld[T](t, xo) != ld[T](t, yo) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) bool { return ld[T](t, xo) != yf(t) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) bool { return xf(t) != ld[T](t, yo) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) bool { return xf(t) != yf(t) }
	}
}

// opLt is x < y.
func opLt[T number](x, y val[T]) func(*thread) bool {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) bool { return ld[T](t, xo) < ld[T](t, yo) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) bool { return ld[T](t, xo) < yf(t) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) bool { return xf(t) < ld[T](t, yo) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) bool { return xf(t) < yf(t) }
	}
}

// opLe is x <= y.
func opLe[T number](x, y val[T]) func(*thread) bool {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) bool { return ld[T](t, xo) <= ld[T](t, yo) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) bool { return ld[T](t, xo) <= yf(t) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) bool { return xf(t) <= ld[T](t, yo) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) bool { return xf(t) <= yf(t) }
	}
}

// opGt is x > y.
func opGt[T number](x, y val[T]) func(*thread) bool {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) bool { return ld[T](t, xo) > ld[T](t, yo) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) bool { return ld[T](t, xo) > yf(t) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) bool { return xf(t) > ld[T](t, yo) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) bool { return xf(t) > yf(t) }
	}
}

// opGe is x >= y.
func opGe[T number](x, y val[T]) func(*thread) bool {
	switch {
	case x.slot && y.slot:
		xo, yo := x.off, y.off
		return func(t *thread) bool { return ld[T](t, xo) >= ld[T](t, yo) }
	case x.slot:
		xo, yf := x.off, y.fn
		return func(t *thread) bool { return ld[T](t, xo) >= yf(t) }
	case y.slot:
		xf, yo := x.fn, y.off
		return func(t *thread) bool { return xf(t) >= ld[T](t, yo) }
	default:
		xf, yf := x.fn, y.fn
		return func(t *thread) bool { return xf(t) >= yf(t) }
	}
}
