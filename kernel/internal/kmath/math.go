// Package kmath holds the implementations of package kernel's math and
// atomic functions, shared by package kernel (and so by generated Go) and by
// the closure compiler, so that the CPU computes the same bits either way.
package kmath

import "math"

// Float is the floating-point types the math functions take.
type Float interface{ ~float32 | ~float64 }

// Number is the types Abs and Clamp take.
type Number interface {
	~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// Math functions, as accurate as the device's own (a few units in the last
// place on GPUs; Go's math package on the CPU). Use Go's built-in min and max
// for the minimum and maximum.

// Sqrt is the square root of x.
func Sqrt[T Float](x T) T { return T(math.Sqrt(float64(x))) }

// Rsqrt is 1/Sqrt(x).
func Rsqrt[T Float](x T) T { return T(1 / math.Sqrt(float64(x))) }

// Exp is e**x.
func Exp[T Float](x T) T { return T(math.Exp(float64(x))) }

// Exp2 is 2**x.
func Exp2[T Float](x T) T { return T(math.Exp2(float64(x))) }

// Log is the natural logarithm of x.
func Log[T Float](x T) T { return T(math.Log(float64(x))) }

// Log2 is the base-2 logarithm of x.
func Log2[T Float](x T) T { return T(math.Log2(float64(x))) }

// Sin is the sine of x (radians).
func Sin[T Float](x T) T { return T(math.Sin(float64(x))) }

// Cos is the cosine of x (radians).
func Cos[T Float](x T) T { return T(math.Cos(float64(x))) }

// Tanh is the hyperbolic tangent of x.
func Tanh[T Float](x T) T { return T(math.Tanh(float64(x))) }

// Pow is x**y.
func Pow[T Float](x, y T) T { return T(math.Pow(float64(x), float64(y))) }

// Floor is the greatest integer value ≤ x.
func Floor[T Float](x T) T { return T(math.Floor(float64(x))) }

// Ceil is the least integer value ≥ x.
func Ceil[T Float](x T) T { return T(math.Ceil(float64(x))) }

// Trunc is x with its fraction dropped.
func Trunc[T Float](x T) T { return T(math.Trunc(float64(x))) }

// Fma is x*y + z, rounded once.
func Fma[T Float](x, y, z T) T { return T(math.FMA(float64(x), float64(y), float64(z))) }

// Abs is the absolute value of x (for the most negative integer, itself).
func Abs[T Number](x T) T {
	if x < 0 || (x == 0 && 1/float64(x) < 0) { // negative, or -0
		return -x
	}
	return x
}

// Clamp is min(max(x, lo), hi).
func Clamp[T Number](x, lo, hi T) T { return min(max(x, lo), hi) }

// Float32bits is the IEEE 754 bits of f.
func Float32bits(f float32) uint32 { return math.Float32bits(f) }

// Float32frombits is the float32 whose IEEE 754 bits are b.
func Float32frombits(b uint32) float32 { return math.Float32frombits(b) }
