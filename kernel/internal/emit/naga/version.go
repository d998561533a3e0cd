package naga

import "fmt"

// SPIR-V opcodes and storage classes the version fix-up reads.
const (
	opVariable    = 59
	opLoad        = 61
	opCopyLogical = 400
	storageInput  = 1
	storageOutput = 3
	spirv13       = 0x00010300
	spirv14       = 0x00010400
)

// keepSPIRV13 undoes naga's switch to SPIR-V 1.4 where it was needless: naga
// v0.19.0 moves to 1.4 whenever it emits OpCopyLogical, which it does after
// loading an array element of a workgroup array of arrays (tile[y][x]) even
// where nothing reads the copy. The copies nothing reads go, with the loads
// only they read; if no OpCopyLogical is left, the module is made 1.3 again
// (the entry point's interface back to its Input and Output variables, as
// 1.3 requires). A module that still copies stays 1.4, which Vulkan 1.2
// (or VK_KHR_spirv_1_4) takes.
func keepSPIRV13(blob []byte) ([]byte, error) {
	header, insts, err := splitSPIRV(blob)
	if err != nil {
		return nil, err
	}
	if header[1] != spirv14 {
		return blob, nil
	}
	// Drop unread copies, then loads that only they read, until none is left.
	for {
		uses := map[uint32]int{}
		for _, in := range insts {
			for _, w := range in[1:] {
				uses[w]++
			}
		}
		var kept []spvInst
		dropped := false
		for _, in := range insts {
			// A result is unread when its id appears only where it is defined.
			// (Loads have no side effects: naga writes no volatile OpLoad.)
			if (in.op() == opCopyLogical || in.op() == opLoad) && len(in) >= 4 && uses[in[2]] == 1 {
				dropped = true
				continue
			}
			kept = append(kept, in)
		}
		insts = kept
		if !dropped {
			break
		}
	}
	storage := map[uint32]uint32{}
	for _, in := range insts {
		if in.op() == opCopyLogical {
			return joinSPIRV(header, insts), nil // still needs 1.4
		}
		if in.op() == opVariable && len(in) >= 4 {
			storage[in[2]] = in[3]
		}
	}
	for i, in := range insts {
		if in.op() != opEntryPoint {
			continue
		}
		// Execution model, function, the name (NUL-terminated), interface ids.
		at := 0
		for k := 3; k < len(in) && at == 0; k++ {
			if in[k]>>24 == 0 { // the word holding the NUL (padding is NULs too)
				at = k + 1
			}
		}
		if at == 0 {
			return nil, fmt.Errorf("an OpEntryPoint name is not terminated")
		}
		ep := inst(opEntryPoint, in[1:at]...)
		for _, id := range in[at:] {
			if sc := storage[id]; sc == storageInput || sc == storageOutput {
				ep = append(ep, id)
			}
		}
		ep[0] = uint32(len(ep))<<16 | opEntryPoint
		insts[i] = ep
	}
	header[1] = spirv13
	return joinSPIRV(header, insts), nil
}
