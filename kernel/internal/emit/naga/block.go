package naga

import (
	"bytes"
	"fmt"
)

// sentinels are the two sets of values put in place of the block constants'
// literals: large, odd-looking u32s no kernel writes by chance, different in
// every dimension and between the sets. A module is translated with each set;
// its output, once the sentinels are replaced by the launch-time block size,
// must not depend on the set.
var sentinels = [2][3]uint32{
	{0x7a6b0c01, 0x7a6b0c03, 0x7a6b0c05},
	{0x6c5d1e13, 0x6c5d1e17, 0x6c5d1e1d},
}

// translate runs emit for the module with each set of sentinels and returns
// its output, which must be the same for both. emit gets the module's text
// with the sentinels in place of the block values, and the sentinels.
func translate[T string | []byte](m *kernelModule, emit func(text string, s [3]uint32) (T, error)) (T, error) {
	var outs [2]T
	for i, s := range sentinels {
		out, err := emit(m.withBlock(s), s)
		if err != nil {
			return out, err
		}
		outs[i] = out
	}
	if !bytes.Equal([]byte(outs[0]), []byte(outs[1])) {
		var zero T
		return zero, fmt.Errorf("kernel %q: naga folded a block-size constant (anygpu_block_x, _y or _z) into another constant, an array size or a literal, "+
			"so the launch's block cannot reach it; use the constants only in run-time expressions", m.name)
	}
	return outs[0], nil
}
