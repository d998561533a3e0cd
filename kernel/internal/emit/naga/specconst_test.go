package naga

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testSentinel and testBlock are the sentinels and defaults of the
// hand-written modules below.
var (
	testSentinel = [3]uint32{1001, 1002, 1003}
	testBlock    = [3]uint32{64, 2, 1}
)

// spvModule assembles a minimal GLCompute module: header, capability, memory
// model, entry point %f "main", LocalSize ls, the declarations decls (ids
// from 1; the bound is bound) and an empty function %f of type %fnType.
func spvModule(ls [3]uint32, bound uint32, decls ...spvInst) []byte {
	const f, void, fnType, label = 100, 101, 102, 103
	insts := []spvInst{
		inst(opCapability, 1),
		inst(opMemoryModel, 0, 1),
		inst(opEntryPoint, 5, f, 0x6e69616d, 0), // GLCompute %f "main"
		inst(opExecutionMode, f, execModeLocalSize, ls[0], ls[1], ls[2]),
		inst(19, void),         // OpTypeVoid
		inst(33, fnType, void), // OpTypeFunction
	}
	insts = append(insts, decls...)
	insts = append(insts,
		inst(opFunction, void, f, 0, fnType),
		inst(248, label), // OpLabel
		inst(253),        // OpReturn
		inst(56),         // OpFunctionEnd
	)
	return joinSPIRV([]uint32{spvMagic, 0x00010300, 0, max(bound, 104), 0}, insts)
}

// find returns the instructions of blob with opcode op.
func find(t *testing.T, blob []byte, op uint32) []spvInst {
	t.Helper()
	_, insts, err := splitSPIRV(blob)
	require.NoError(t, err)
	var out []spvInst
	for _, in := range insts {
		if in.op() == op {
			out = append(out, in)
		}
	}
	return out
}

func TestSpecializeBlock(t *testing.T) {
	const uintT, uvec3T = 1, 2
	tests := []struct {
		name  string
		decls []spvInst
		// spec holds the ids the specialization constants must have (0: a
		// new id above the bound).
		spec      [3]uint32
		composite bool // a constant composite of sentinels becomes a spec composite
	}{
		{
			name: "sentinel constants become the specialization constants",
			decls: []spvInst{
				inst(opTypeInt, uintT, 32, 0), inst(opTypeVector, uvec3T, uintT, 3),
				inst(opConstant, uintT, 10, testSentinel[0]), inst(opConstant, uintT, 11, testSentinel[1]),
				inst(opConstant, uintT, 12, testSentinel[2]),
			},
			spec: [3]uint32{10, 11, 12},
		},
		{
			name: "a dimension without its constant gets a new one",
			decls: []spvInst{
				inst(opTypeInt, uintT, 32, 0), inst(opTypeVector, uvec3T, uintT, 3),
				inst(opConstant, uintT, 10, testSentinel[0]), inst(opConstant, uintT, 11, 7),
			},
			spec: [3]uint32{10, 0, 0},
		},
		{
			name:  "a module without u32 and uvec3 types gets them",
			decls: nil,
		},
		{
			name: "constant composites of sentinels become spec composites",
			decls: []spvInst{
				inst(opTypeInt, uintT, 32, 0), inst(opTypeVector, uvec3T, uintT, 3),
				inst(opConstant, uintT, 10, testSentinel[0]), inst(opConstant, uintT, 11, testSentinel[1]),
				inst(opConstant, uintT, 12, testSentinel[2]),
				inst(opConstantComposite, uvec3T, 13, 10, 11, 12),
			},
			spec:      [3]uint32{10, 11, 12},
			composite: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := spvModule(testSentinel, 104, tc.decls...)
			out, err := specializeBlock(in, testSentinel, testBlock)
			require.NoError(t, err)
			header, _, err := splitSPIRV(out)
			require.NoError(t, err)
			bound := header[3]

			// LocalSize holds the defaults.
			modes := find(t, out, opExecutionMode)
			require.Len(t, modes, 1)
			assert.Equal(t, []uint32{execModeLocalSize, 64, 2, 1}, []uint32(modes[0][2:]))

			// Three OpSpecConstants with the defaults, SpecId 0, 1, 2.
			specs := map[uint32]uint32{} // id -> default
			for _, in := range find(t, out, opSpecConstant) {
				specs[in[2]] = in[3]
			}
			ids := map[uint32]uint32{} // SpecId -> id
			var wgSize uint32
			for _, d := range find(t, out, opDecorate) {
				switch d[2] {
				case decorationSpecID:
					ids[d[3]] = d[1]
				case decorationBuiltIn:
					require.Equal(t, uint32(builtInWorkgroupSize), d[3])
					wgSize = d[1]
				}
			}
			require.Len(t, ids, 3)
			for k := uint32(0); k < 3; k++ {
				id := ids[k]
				assert.Equal(t, testBlock[k], specs[id], "default of SpecId %d", k)
				if tc.spec[k] != 0 {
					assert.Equal(t, tc.spec[k], id, "SpecId %d decorates the sentinel's constant", k)
				} else {
					assert.GreaterOrEqual(t, id, uint32(104), "SpecId %d is a new id", k)
				}
				assert.Less(t, id, bound)
			}
			// The WorkgroupSize composite is made of them.
			var comps []spvInst
			for _, c := range find(t, out, opSpecConstantComposite) {
				if c[2] == wgSize {
					comps = append(comps, c)
				}
			}
			require.Len(t, comps, 1)
			assert.Equal(t, []uint32{ids[0], ids[1], ids[2]}, []uint32(comps[0][3:]))
			for _, c := range find(t, out, opConstant) {
				assert.NotContains(t, testSentinel, c[3], "a sentinel is left as a constant")
			}
			if tc.composite {
				assert.Empty(t, find(t, out, opConstantComposite), "the composite of sentinels stayed constant")
			}
			validate(t, out)
		})
	}
}

// validate runs spirv-val on a module, where it is installed.
func validate(t *testing.T, blob []byte) {
	t.Helper()
	const spirvVal = "/usr/bin/spirv-val"
	if _, err := os.Stat(spirvVal); err != nil {
		return
	}
	path := filepath.Join(t.TempDir(), "m.spv")
	require.NoError(t, os.WriteFile(path, blob, 0o644))
	out, err := exec.Command(spirvVal, "--target-env", "vulkan1.1", path).CombinedOutput()
	require.NoError(t, err, "spirv-val: %s", out)
}

func TestSpecializeBlockRefuses(t *testing.T) {
	const uintT = 1
	good := spvModule(testSentinel, 104)
	tests := []struct {
		name string
		blob []byte
		want string
	}{
		{"too short", good[:12], "not a SPIR-V module"},
		{"not whole words", good[:len(good)-2], "not a SPIR-V module"},
		{"bad magic", append([]byte{1, 2, 3, 4}, good[4:]...), "magic number"},
		{"truncated instruction", append(append([]byte{}, good...), 0, 0, 3, 0), "word count"}, // OpNop of 3 words, 1 there
		{"LocalSize is not the sentinel", spvModule([3]uint32{64, 1, 1}, 104), "not the block constants"},
		{"already specialized", spvModule(testSentinel, 104, inst(opDecorate, 7, decorationSpecID, 0)), "already has specialization constants"},
		{"already a WorkgroupSize", spvModule(testSentinel, 104, inst(opDecorate, 7, decorationBuiltIn, builtInWorkgroupSize)), "already decorates"},
		{"two constants of one sentinel", spvModule(testSentinel, 104, inst(opTypeInt, uintT, 32, 0),
			inst(opConstant, uintT, 10, testSentinel[0]), inst(opConstant, uintT, 11, testSentinel[0])), "two u32 constants"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := specializeBlock(tc.blob, testSentinel, testBlock)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
