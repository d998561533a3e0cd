package naga

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeepSPIRV13(t *testing.T) {
	const (
		uintT, ptrIn, ptrWG, arr, in, wg = 1, 2, 3, 4, 5, 6
		load, copied, f, void, fnType    = 7, 8, 100, 101, 102
	)
	// module assembles a GLCompute module of version v whose entry point
	// lists the Input variable %in and the Workgroup variable %wg (as 1.4
	// requires), and whose function runs body.
	module := func(v uint32, body ...spvInst) []byte {
		insts := []spvInst{
			inst(opCapability, 1),
			inst(opMemoryModel, 0, 1),
			inst(opEntryPoint, 5, f, 0x6e69616d, 0, in, wg),
			inst(opExecutionMode, f, execModeLocalSize, 1, 1, 1),
			inst(19, void), inst(33, fnType, void),
			inst(opTypeInt, uintT, 32, 0),
			inst(32, ptrIn, storageInput, uintT),
			inst(28, arr, uintT, 9), // OpTypeArray (length %9, defined below)
			inst(32, ptrWG, 4, uintT),
			inst(opConstant, uintT, 9, 4),
			inst(opVariable, ptrIn, in, storageInput),
			inst(opVariable, ptrWG, wg, 4),
			inst(opFunction, void, f, 0, fnType),
			inst(248, 103),
		}
		insts = append(insts, body...)
		insts = append(insts, inst(253), inst(56))
		return joinSPIRV([]uint32{spvMagic, v, 0, 104, 0}, insts)
	}
	unread := []spvInst{inst(opLoad, uintT, load, wg), inst(opCopyLogical, uintT, copied, load)}
	read := append(append([]spvInst{}, unread...), inst(62, wg, copied)) // OpStore
	tests := []struct {
		name        string
		in          []byte
		wantVersion uint32
		wantIface   []uint32
		wantCopies  int
	}{
		{"an unread copy goes, and 1.4 with it", module(spirv14, unread...), spirv13, []uint32{in}, 0},
		{"a copy that is read keeps 1.4", module(spirv14, read...), spirv14, []uint32{in, wg}, 1},
		{"a 1.3 module is left alone", module(spirv13, unread...), spirv13, []uint32{in, wg}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := keepSPIRV13(tc.in)
			require.NoError(t, err)
			header, insts, err := splitSPIRV(out)
			require.NoError(t, err)
			assert.Equal(t, tc.wantVersion, header[1])
			copies := 0
			for _, in := range insts {
				switch in.op() {
				case opCopyLogical:
					copies++
				case opEntryPoint:
					assert.Equal(t, tc.wantIface, []uint32(in[5:]), "interface")
				}
			}
			assert.Equal(t, tc.wantCopies, copies)
		})
	}
}
