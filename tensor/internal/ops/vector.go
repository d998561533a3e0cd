package ops

import "github.com/anygpu/gpu/kernel"

// The element-wise kernels' fast path moves 16 bytes (a kernel.Float4: four
// float32s, or four words of 16-bit pairs taken as their bits) per load and
// store, vectorSteps independent vectors per thread and step, so that a
// thread has several loads in flight. The op and dtype branches are taken
// once per vector (unary4, binary4), not per element.

// vectorSteps is how many vectors a thread of the fast path moves per step:
// four keep 64 bytes of each operand in flight per thread, which 16-bit
// dtypes (eight elements a vector) need to reach the memory's bandwidth.
const vectorSteps = 4

// How an operand of an element-wise kernel is laid out (flatMode).
const (
	flatNone  = 0 // another view: the general path
	flatWhole = 1 // contiguous, element i at off + i
	flatRow   = 2 // a row of s5 elements repeated: element i at off + i%s5
)

// flatMode is how an operand of rank r (rank6), innermost sizes s5 and
// strides t4, t5, from element offset off, of a dtype of per elements per
// word, lays out its elements, as the vector path needs it: its start on a
// 16-byte boundary and, for a repeated row, the row a whole number of
// vectors.
func flatMode(r, s5, t4, t5, off, per uint32) uint32 {
	if off%(4*per) != 0 || t5 != 1 {
		return flatNone
	}
	if r <= 1 || (r == 2 && t4 == s5) {
		return flatWhole
	}
	if r == 2 && t4 == 0 && s5%(4*per) == 0 {
		return flatRow
	}
	return flatNone
}

// flatVector is the vector of an operand of flatMode mode that output
// vector v reads, from the operand's first; rowVecs is a row's vectors.
func flatVector(mode, v, rowVecs uint32) uint32 {
	if mode == flatRow {
		return v % rowVecs
	}
	return v
}

// lowHalf is the float32 value of the low (first) 16-bit element of word w,
// of dtype code dt; highHalf that of the high one.
func lowHalf(w, dt uint32) float32 {
	if dt == DTBFloat16 {
		return kernel.Float32frombits(w << 16)
	}
	return smallDecode(w&0xffff, 5, 10, true)
}

// highHalf is lowHalf's twin for the high element.
func highHalf(w, dt uint32) float32 {
	if dt == DTBFloat16 {
		return kernel.Float32frombits(w & 0xffff0000)
	}
	return smallDecode(w>>16, 5, 10, true)
}

// pair16 is the word of lo and hi rounded to dtype code dt (16-bit), lo in
// the low half: kernel.PackHalves, one conversion instruction for the pair
// on CUDA (encode16's rounding, in integer operations, elsewhere).
func pair16(lo, hi float32, dt uint32) float32 {
	if dt == DTBFloat16 {
		return kernel.Float32frombits(kernel.PackHalves(lo, hi, kernel.PrecisionBFloat16))
	}
	return kernel.Float32frombits(kernel.PackHalves(lo, hi, kernel.PrecisionFloat16))
}

// lows is the four low elements of the four 16-bit words in u (their bits);
// highs the four high ones.
func lows(u kernel.Float4, dt uint32) kernel.Float4 {
	return kernel.Float4{X: lowHalf(kernel.Float32bits(u.X), dt), Y: lowHalf(kernel.Float32bits(u.Y), dt),
		Z: lowHalf(kernel.Float32bits(u.Z), dt), W: lowHalf(kernel.Float32bits(u.W), dt)}
}

// highs is lows' twin for the high elements.
func highs(u kernel.Float4, dt uint32) kernel.Float4 {
	return kernel.Float4{X: highHalf(kernel.Float32bits(u.X), dt), Y: highHalf(kernel.Float32bits(u.Y), dt),
		Z: highHalf(kernel.Float32bits(u.Z), dt), W: highHalf(kernel.Float32bits(u.W), dt)}
}

// pairs16 is the four words of lo's and hi's elements rounded to dtype code
// dt, lo's in the low halves.
func pairs16(lo, hi kernel.Float4, dt uint32) kernel.Float4 {
	return kernel.Float4{X: pair16(lo.X, hi.X, dt), Y: pair16(lo.Y, hi.Y, dt), Z: pair16(lo.Z, hi.Z, dt), W: pair16(lo.W, hi.W, dt)}
}

// unary4 applies unary op code op to the elements of vector u of dtype code
// dt: four float32s or four words of 16-bit pairs.
func unary4(op, dt uint32, u kernel.Float4, a float32) kernel.Float4 {
	if dt == DTFloat32 {
		return unaryLanes(op, u, a)
	}
	return pairs16(unaryLanes(op, lows(u, dt), a), unaryLanes(op, highs(u, dt), a), dt)
}

// unaryLanes applies unary op code op to the four float32s of u.
func unaryLanes(op uint32, u kernel.Float4, a float32) kernel.Float4 {
	if op == UnaryScale {
		return kernel.Float4{X: a * u.X, Y: a * u.Y, Z: a * u.Z, W: a * u.W}
	} else if op == UnaryReLU {
		return kernel.Float4{X: max(u.X, 0), Y: max(u.Y, 0), Z: max(u.Z, 0), W: max(u.W, 0)}
	} else if op == UnaryGELUTanh {
		return kernel.Float4{X: geluTanh(u.X), Y: geluTanh(u.Y), Z: geluTanh(u.Z), W: geluTanh(u.W)}
	} else if op == UnaryGELUErf {
		return kernel.Float4{X: geluErf(u.X), Y: geluErf(u.Y), Z: geluErf(u.Z), W: geluErf(u.W)}
	} else if op == UnarySiLU {
		return kernel.Float4{X: silu(u.X), Y: silu(u.Y), Z: silu(u.Z), W: silu(u.W)}
	} else if op == UnaryExp {
		return kernel.Float4{X: kernel.Exp(u.X), Y: kernel.Exp(u.Y), Z: kernel.Exp(u.Z), W: kernel.Exp(u.W)}
	}
	return kernel.Float4{X: kernel.Tanh(u.X), Y: kernel.Tanh(u.Y), Z: kernel.Tanh(u.Z), W: kernel.Tanh(u.W)}
}

// binary4 applies binary op code op to the elements of vectors u and v of
// dtype code dt, as unary4.
func binary4(op, dt uint32, u, v kernel.Float4) kernel.Float4 {
	if dt == DTFloat32 {
		return binaryLanes(op, u, v)
	}
	return pairs16(binaryLanes(op, lows(u, dt), lows(v, dt)), binaryLanes(op, highs(u, dt), highs(v, dt)), dt)
}

// binaryLanes applies binary op code op to the four float32s of u and v.
func binaryLanes(op uint32, u, v kernel.Float4) kernel.Float4 {
	if op == BinaryAdd {
		return kernel.Float4{X: u.X + v.X, Y: u.Y + v.Y, Z: u.Z + v.Z, W: u.W + v.W}
	} else if op == BinarySub {
		return kernel.Float4{X: u.X - v.X, Y: u.Y - v.Y, Z: u.Z - v.Z, W: u.W - v.W}
	} else if op == BinaryMul {
		return kernel.Float4{X: u.X * v.X, Y: u.Y * v.Y, Z: u.Z * v.Z, W: u.W * v.W}
	}
	return kernel.Float4{X: u.X / v.X, Y: u.Y / v.Y, Z: u.Z / v.Z, W: u.W / v.W}
}
