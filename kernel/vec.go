package kernel

// Float4 is four float32s moved as one: a 4-wide load or store moves 16
// bytes in one instruction where the device has one, which bandwidth-bound
// kernels need.
type Float4 struct{ X, Y, Z, W float32 }

// Load4 returns s[4i], s[4i+1], s[4i+2] and s[4i+3]. The buffer's offset
// must be a multiple of 16 bytes (every buffer's start is).
func Load4(s []float32, i uint32) Float4 {
	j := 4 * int(i)
	return Float4{s[j], s[j+1], s[j+2], s[j+3]}
}

// Store4 stores v in s[4i], s[4i+1], s[4i+2] and s[4i+3].
func Store4(s []float32, i uint32, v Float4) {
	j := 4 * int(i)
	s[j], s[j+1], s[j+2], s[j+3] = v.X, v.Y, v.Z, v.W
}
