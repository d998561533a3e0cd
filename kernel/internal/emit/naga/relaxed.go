package naga

import "fmt"

// SPIR-V opcodes of the atomics and the integer type.
const (
	opAtomicLoad            = 227
	opAtomicStore           = 228
	opAtomicExchange        = 229
	opAtomicCompareExchange = 230
	opAtomicIIncrement      = 232
	opAtomicXor             = 242
	opAtomicFAddEXT         = 6035
	semanticsUniformRelaxed = 0x40 // UniformMemory, no ordering
)

// relaxAtomics gives every atomic of the module relaxed memory semantics
// (UniformMemory, no acquire or release). WGSL's atomics are relaxed, and
// so are Go's kernel atomics (a Barrier orders memory); naga v0.19.0 writes
// AcquireRelease, with which lavapipe's compare-exchange loses updates
// under contention (a compare-exchange loop of 4 threads of one group
// counted 3). Barriers keep their semantics.
func relaxAtomics(blob []byte) ([]byte, error) {
	header, insts, err := splitSPIRV(blob)
	if err != nil {
		return nil, err
	}
	intType, typeAt := uint32(0), -1
	atomics := false
	for i, in := range insts {
		switch op := in.op(); {
		case op == opTypeInt && len(in) == 4 && in[2] == 32 && intType == 0:
			intType, typeAt = in[1], i
		case op >= opAtomicLoad && op <= opAtomicXor || op == opAtomicFAddEXT:
			atomics = true
		}
	}
	if !atomics {
		return blob, nil
	}
	if intType == 0 {
		return nil, fmt.Errorf("the module has atomics but no 32-bit integer type for their memory semantics")
	}
	relaxed := header[3] // the id bound: a fresh id
	header[3]++
	out := make([]spvInst, 0, len(insts)+1)
	for i, in := range insts {
		switch op := in.op(); {
		case op == opAtomicStore:
			in = withOperands(in, relaxed, 3)
		case op == opAtomicCompareExchange:
			in = withOperands(in, relaxed, 5, 6)
		case op >= opAtomicLoad && op <= opAtomicXor || op == opAtomicFAddEXT:
			in = withOperands(in, relaxed, 5)
		}
		out = append(out, in)
		if i == typeAt {
			out = append(out, inst(opConstant, intType, relaxed, semanticsUniformRelaxed))
		}
	}
	return joinSPIRV(header, out), nil
}

// withOperands returns a copy of in with the words at the positions set to id.
func withOperands(in spvInst, id uint32, positions ...int) spvInst {
	c := append(spvInst(nil), in...)
	for _, p := range positions {
		if p < len(c) {
			c[p] = id
		}
	}
	return c
}
