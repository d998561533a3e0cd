package kernel

import "github.com/anygpu/gpu/kernel/internal/kmath"

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
func Sqrt[T Float](x T) T { return kmath.Sqrt(x) }

// Rsqrt is 1/Sqrt(x).
func Rsqrt[T Float](x T) T { return kmath.Rsqrt(x) }

// Exp is e**x.
func Exp[T Float](x T) T { return kmath.Exp(x) }

// Exp2 is 2**x.
func Exp2[T Float](x T) T { return kmath.Exp2(x) }

// Log is the natural logarithm of x.
func Log[T Float](x T) T { return kmath.Log(x) }

// Log2 is the base-2 logarithm of x.
func Log2[T Float](x T) T { return kmath.Log2(x) }

// Sin is the sine of x (radians).
func Sin[T Float](x T) T { return kmath.Sin(x) }

// Cos is the cosine of x (radians).
func Cos[T Float](x T) T { return kmath.Cos(x) }

// Tanh is the hyperbolic tangent of x.
func Tanh[T Float](x T) T { return kmath.Tanh(x) }

// Pow is x**y.
func Pow[T Float](x, y T) T { return kmath.Pow(x, y) }

// Floor is the greatest integer value ≤ x.
func Floor[T Float](x T) T { return kmath.Floor(x) }

// Ceil is the least integer value ≥ x.
func Ceil[T Float](x T) T { return kmath.Ceil(x) }

// Trunc is x with its fraction dropped.
func Trunc[T Float](x T) T { return kmath.Trunc(x) }

// Fma is x*y + z, rounded once.
func Fma[T Float](x, y, z T) T { return kmath.Fma(x, y, z) }

// Abs is the absolute value of x (for the most negative integer, itself).
func Abs[T Number](x T) T { return kmath.Abs(x) }

// Clamp is min(max(x, lo), hi).
func Clamp[T Number](x, lo, hi T) T { return kmath.Clamp(x, lo, hi) }

// Float32bits is the IEEE 754 bits of f.
func Float32bits(f float32) uint32 { return kmath.Float32bits(f) }

// Float32frombits is the float32 whose IEEE 754 bits are b.
func Float32frombits(b uint32) float32 { return kmath.Float32frombits(b) }
