package cuda

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// constant spells a constant exactly, parenthesised when negative so that
// it can stand as any operand.
func constant(c *ir.Const) (string, error) {
	switch c.Type {
	case ir.Bool:
		return strconv.FormatBool(c.Bool), nil
	case ir.I32:
		if c.Int < math.MinInt32 || c.Int > math.MaxInt32 {
			return "", malformed(c.Pos, "int32 constant %d out of range", c.Int)
		}
		return signedLiteral(c.Int, math.MinInt32, ""), nil
	case ir.I64:
		return signedLiteral(c.Int, math.MinInt64, "ll"), nil
	case ir.U32:
		if c.Uint > math.MaxUint32 {
			return "", malformed(c.Pos, "uint32 constant %d out of range", c.Uint)
		}
		return strconv.FormatUint(c.Uint, 10) + "u", nil
	case ir.U64:
		return strconv.FormatUint(c.Uint, 10) + "ull", nil
	case ir.F32:
		return float32Literal(float32(c.Float)), nil
	case ir.F64:
		return float64Literal(c.Float), nil
	case ir.F16:
		return "", errFloat16(c.Pos)
	}
	return "", malformed(c.Pos, "constant of type %v", c.Type)
}

// signedLiteral spells v with suffix; min, the type's most negative value,
// has no literal of its own and is written as (-max - 1).
func signedLiteral(v, min int64, suffix string) string {
	switch {
	case v == min:
		return "(" + strconv.FormatInt(min+1, 10) + suffix + " - 1" + suffix + ")"
	case v < 0:
		return "(" + strconv.FormatInt(v, 10) + suffix + ")"
	}
	return strconv.FormatInt(v, 10) + suffix
}

// float32Literal spells f exactly: the shortest decimal that reads back as
// f, when it does so both read directly as a float and read as a double then
// rounded to float (a compiler may do either); else a hexadecimal literal,
// which is exact either way. Infinities and NaNs are their bit patterns.
func float32Literal(f float32) string {
	if math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
		return fmt.Sprintf("__uint_as_float(0x%08xu)", math.Float32bits(f))
	}
	s := decimal(strconv.FormatFloat(float64(f), 'g', -1, 32))
	if d, err := strconv.ParseFloat(s, 64); err != nil || math.Float32bits(float32(d)) != math.Float32bits(f) {
		s = strconv.FormatFloat(float64(f), 'x', -1, 32)
	}
	return parenNegative(s + "f")
}

// float64Literal spells f exactly: the shortest decimal that reads back as
// f. Infinities and NaNs are their bit patterns.
func float64Literal(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Sprintf("__longlong_as_double((long long)0x%016xull)", math.Float64bits(f))
	}
	return parenNegative(decimal(strconv.FormatFloat(f, 'g', -1, 64)))
}

// decimal makes s, a number as strconv formats it, a floating-point literal:
// "1" becomes "1.0" ("1e+06" already is one).
func decimal(s string) string {
	if strings.ContainsAny(s, ".eEpP") {
		return s
	}
	return s + ".0"
}

// parenNegative parenthesises a negative literal, so that "a - -1.0f" cannot
// become "a--1.0f".
func parenNegative(s string) string {
	if strings.HasPrefix(s, "-") {
		return "(" + s + ")"
	}
	return s
}
