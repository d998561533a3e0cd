package objc

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestABILayouts(t *testing.T) {
	a := dispatchArgsAMD64(0x1000, 0x2000, Size{1, 2, 3}, Size{4, 5, 6})
	assert.Equal(t, [12]uintptr{0x1000, 0x2000, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6}, a,
		"self and _cmd in registers, four unused registers, then both MTLSize on the stack")
	f := fillArgs(1, 2, 3, 64, 4096, 0xab)
	assert.Equal(t, [6]uintptr{1, 2, 3, 64, 4096, 0xab}, f)
}
