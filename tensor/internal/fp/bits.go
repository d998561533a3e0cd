package fp

import "math"

func toBits(x float32) uint32   { return math.Float32bits(x) }
func fromBits(b uint32) float32 { return math.Float32frombits(b) }
