package interp

import "math"

func mathFloat32bits(x float32) uint32 { return math.Float32bits(x) }
