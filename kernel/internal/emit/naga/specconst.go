package naga

import (
	"encoding/binary"
	"fmt"
)

// SPIR-V opcodes, decorations and modes the rewriter reads or writes.
const (
	spvMagic                = 0x07230203
	spvHeaderWords          = 5
	opSource                = 3
	opName                  = 5
	opMemberName            = 6
	opString                = 7
	opLine                  = 8
	opExtension             = 10
	opExtInstImport         = 11
	opSourceContinued       = 2
	opSourceExtension       = 4
	opMemoryModel           = 14
	opEntryPoint            = 15
	opExecutionMode         = 16
	opCapability            = 17
	opTypeInt               = 21
	opTypeVector            = 23
	opConstant              = 43
	opConstantComposite     = 44
	opSpecConstant          = 50
	opSpecConstantComposite = 51
	opFunction              = 54
	opDecorate              = 71
	opMemberDecorate        = 72
	opDecorationGroup       = 73
	opGroupDecorate         = 74
	opGroupMemberDecorate   = 75
	opNoLine                = 317
	opModuleProcessed       = 330
	opExecutionModeID       = 331
	opDecorateID            = 332
	opDecorateString        = 5632
	opMemberDecorateString  = 5633
	execModeLocalSize       = 17
	execModeLocalSizeID     = 38
	decorationSpecID        = 1
	decorationBuiltIn       = 11
	builtInWorkgroupSize    = 25
)

// preambleOps are the instructions that come before the module's types,
// constants and global variables (capabilities through annotations).
var preambleOps = map[uint32]bool{
	opSource: true, opSourceContinued: true, opSourceExtension: true, opName: true, opMemberName: true, opString: true, opLine: true,
	opExtension: true, opExtInstImport: true, opMemoryModel: true, opEntryPoint: true, opExecutionMode: true,
	opCapability: true, opNoLine: true, opModuleProcessed: true, opExecutionModeID: true,
	opDecorate: true, opMemberDecorate: true, opDecorationGroup: true, opGroupDecorate: true,
	opGroupMemberDecorate: true, opDecorateID: true, opDecorateString: true, opMemberDecorateString: true,
}

// spvInst is one instruction: its words, opcode first.
type spvInst []uint32

func (in spvInst) op() uint32 { return in[0] & 0xffff }

// inst builds an instruction from its opcode and operands.
func inst(op uint32, operands ...uint32) spvInst {
	return append(spvInst{uint32(len(operands)+1)<<16 | op}, operands...)
}

// splitSPIRV checks a module's header and splits its instruction stream.
func splitSPIRV(blob []byte) (header []uint32, insts []spvInst, err error) {
	if len(blob) < 4*spvHeaderWords || len(blob)%4 != 0 {
		return nil, nil, fmt.Errorf("%d bytes is not a SPIR-V module (a header of 20 bytes, then whole 32-bit words)", len(blob))
	}
	words := make([]uint32, len(blob)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(blob[4*i:])
	}
	if words[0] != spvMagic {
		return nil, nil, fmt.Errorf("magic number 0x%08x, want 0x%08x", words[0], spvMagic)
	}
	header = words[:spvHeaderWords]
	for i := spvHeaderWords; i < len(words); {
		n := int(words[i] >> 16)
		if n == 0 || i+n > len(words) {
			return nil, nil, fmt.Errorf("instruction at word %d has a bad word count %d", i, n)
		}
		insts = append(insts, spvInst(words[i:i+n]))
		i += n
	}
	return header, insts, nil
}

// joinSPIRV writes a header and instructions back to bytes.
func joinSPIRV(header []uint32, insts []spvInst) []byte {
	n := len(header)
	for _, in := range insts {
		n += len(in)
	}
	out := make([]byte, 0, 4*n)
	for _, w := range header {
		out = binary.LittleEndian.AppendUint32(out, w)
	}
	for _, in := range insts {
		for _, w := range in {
			out = binary.LittleEndian.AppendUint32(out, w)
		}
	}
	return out
}

// specializeBlock rewrites a GLCompute module so that its work-group size is
// three specialization constants, SpecId 0, 1 and 2, with the defaults block,
// composed into a constant decorated BuiltIn WorkgroupSize: what glslc emits
// for local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2. The module
// was compiled with the work-group size sentinel, in LocalSize and as u32
// constants (the initialisers of the block variables of withBlock): each such
// constant becomes its dimension's specialization constant, so code reading
// the block size reads the launch's, and constant composites of them become
// specialization constant composites. LocalSize keeps the defaults, as
// glslc's does.
func specializeBlock(blob []byte, sentinel, block [3]uint32) ([]byte, error) {
	header, insts, err := splitSPIRV(blob)
	if err != nil {
		return nil, err
	}
	bound := header[3]
	newID := func() uint32 { bound++; return bound - 1 }
	var uintType, uvec3Type uint32
	spec := [3]uint32{}
	isSpec := map[uint32]bool{}
	localSizes := 0
	for _, in := range insts {
		switch in.op() {
		case opTypeInt:
			if len(in) == 4 && in[2] == 32 && in[3] == 0 && uintType == 0 {
				uintType = in[1]
			}
		case opTypeVector:
			if len(in) == 4 && uintType != 0 && in[2] == uintType && in[3] == 3 && uvec3Type == 0 {
				uvec3Type = in[1]
			}
		case opConstant:
			if len(in) == 4 && in[1] == uintType && uintType != 0 {
				for k, s := range sentinel {
					if in[3] != s {
						continue
					}
					if spec[k] != 0 {
						return nil, fmt.Errorf("two u32 constants hold the block size's sentinel %d", s)
					}
					spec[k] = in[2]
					in[0] = in[0]&0xffff0000 | opSpecConstant
					in[3] = block[k]
					isSpec[in[2]] = true
				}
			}
		case opConstantComposite:
			for _, id := range in[3:] {
				if isSpec[id] {
					in[0] = in[0]&0xffff0000 | opSpecConstantComposite
					isSpec[in[2]] = true
					break
				}
			}
		case opExecutionMode:
			if len(in) >= 3 && in[2] == execModeLocalSizeID {
				return nil, fmt.Errorf("the module already sets LocalSizeId")
			}
			if len(in) == 6 && in[2] == execModeLocalSize {
				if [3]uint32{in[3], in[4], in[5]} != sentinel {
					return nil, fmt.Errorf("LocalSize is %d %d %d, not the block constants", in[3], in[4], in[5])
				}
				in[3], in[4], in[5] = block[0], block[1], block[2]
				localSizes++
			}
		case opDecorate:
			if len(in) >= 4 && in[2] == decorationBuiltIn && in[3] == builtInWorkgroupSize {
				return nil, fmt.Errorf("the module already decorates a WorkgroupSize built-in")
			}
			if len(in) >= 3 && in[2] == decorationSpecID {
				return nil, fmt.Errorf("the module already has specialization constants")
			}
		}
	}
	if localSizes != 1 {
		return nil, fmt.Errorf("the module sets LocalSize %d times, want once (one GLCompute entry point)", localSizes)
	}
	// Declarations to add before the first function.
	var decls []spvInst
	if uintType == 0 {
		uintType = newID()
		decls = append(decls, inst(opTypeInt, uintType, 32, 0))
	}
	if uvec3Type == 0 {
		uvec3Type = newID()
		decls = append(decls, inst(opTypeVector, uvec3Type, uintType, 3))
	}
	for k := range spec {
		if spec[k] == 0 {
			spec[k] = newID()
			decls = append(decls, inst(opSpecConstant, uintType, spec[k], block[k]))
		}
	}
	wgSize := newID()
	decls = append(decls, inst(opSpecConstantComposite, uvec3Type, wgSize, spec[0], spec[1], spec[2]))
	annotations := []spvInst{
		inst(opDecorate, spec[0], decorationSpecID, 0),
		inst(opDecorate, spec[1], decorationSpecID, 1),
		inst(opDecorate, spec[2], decorationSpecID, 2),
		inst(opDecorate, wgSize, decorationBuiltIn, builtInWorkgroupSize),
	}
	annAt, fnAt := -1, -1
	for i, in := range insts {
		if annAt < 0 && !preambleOps[in.op()] {
			annAt = i
		}
		if fnAt < 0 && in.op() == opFunction {
			fnAt = i
		}
	}
	if annAt < 0 || fnAt < 0 {
		return nil, fmt.Errorf("the module has no function")
	}
	out := make([]spvInst, 0, len(insts)+len(annotations)+len(decls))
	out = append(out, insts[:annAt]...)
	out = append(out, annotations...)
	out = append(out, insts[annAt:fnAt]...)
	out = append(out, decls...)
	out = append(out, insts[fnAt:]...)
	header[3] = bound
	return joinSPIRV(header, out), nil
}
