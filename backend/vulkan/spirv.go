package vulkan

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
)

// SPIR-V constants used by the reflection below.
const (
	spvMagic = 0x07230203

	opName                  = 5
	opEntryPoint            = 15
	opExecutionMode         = 16
	opTypeBool              = 20
	opTypeInt               = 21
	opTypeFloat             = 22
	opTypeVector            = 23
	opTypeMatrix            = 24
	opTypeArray             = 28
	opTypeRuntimeArray      = 29
	opTypeStruct            = 30
	opTypePointer           = 32
	opConstant              = 43
	opConstantComposite     = 44
	opSpecConstant          = 50
	opSpecConstantComposite = 51
	opFunction              = 54
	opFunctionEnd           = 56
	opFunctionCall          = 57
	opVariable              = 59
	opDecorate              = 71
	opMemberDecorate        = 72
	opExecutionModeId       = 331
	execModelGLCompute      = 5
	execModeLocalSize       = 17
	execModeLocalSizeId     = 38
	decorationSpecID        = 1
	decorationBlock         = 2
	decorationBufferBlock   = 3
	decorationArrayStride   = 6
	decorationMatrixStride  = 7
	decorationBuiltIn       = 11
	decorationBinding       = 33
	decorationDescriptorSet = 34
	decorationOffset        = 35
	builtInWorkgroupSize    = 25
	storageUniform          = 2
	storageWorkgroup        = 4
	storagePushConstant     = 9
	storageStorageBuffer    = 12
	descriptorStorageBuffer = 7 // VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
	descriptorUniformBuffer = 6 // VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
	maxSPIRVVersion         = 0x00010600
	spvHeaderWords          = 5
)

// spvBinding is a buffer an entry point uses.
type spvBinding struct {
	set, binding uint32
	descType     uint32 // descriptorStorageBuffer or descriptorUniformBuffer
	name         string
}

// spvEntry is what a kernel needs to know about one GLCompute entry point.
type spvEntry struct {
	name      string
	fn        uint32
	localSize [3]uint32 // the work-group size as compiled (defaults of spec constants)
	specIDs   [3]int32  // SpecId of each work-group dimension, -1 where fixed
	bindings  []spvBinding
	pushBytes uint32 // size of the push-constant block it uses (0: none)
	pushKnown bool   // false if the block's size could not be computed
	shared    int    // bytes of Workgroup variables of known size
}

// specializable reports whether every dimension of the launch's block size
// can be set through specialization constants.
func (e *spvEntry) specializable() bool {
	return e.specIDs[0] >= 0 && e.specIDs[1] >= 0 && e.specIDs[2] >= 0
}

// fixed reports whether no dimension of the work-group size can be set.
func (e *spvEntry) fixed() bool {
	return e.specIDs[0] < 0 && e.specIDs[1] < 0 && e.specIDs[2] < 0
}

// spvModule is a parsed SPIR-V module.
type spvModule struct {
	words   []uint32
	version uint32
	entries []*spvEntry
}

func (m *spvModule) entry(name string) *spvEntry {
	for _, e := range m.entries {
		if e.name == name {
			return e
		}
	}
	return nil
}

func (m *spvModule) entryNames() []string {
	var out []string
	for _, e := range m.entries {
		out = append(out, e.name)
	}
	return out
}

// spvWords checks the shape of a SPIR-V binary (size, magic number, header)
// and returns it as words in host order.
func spvWords(blob []byte) ([]uint32, error) {
	if len(blob) < 4*spvHeaderWords {
		return nil, fmt.Errorf("%d bytes is too short for a SPIR-V module (the header alone is 20)", len(blob))
	}
	if len(blob)%4 != 0 {
		return nil, fmt.Errorf("%d bytes is not a whole number of 32-bit words", len(blob))
	}
	words := make([]uint32, len(blob)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(blob[4*i:])
	}
	switch words[0] {
	case spvMagic:
	case 0x03022307:
		for i, w := range words {
			words[i] = w>>24 | w>>8&0xff00 | w<<8&0xff0000 | w<<24
		}
	default:
		return nil, fmt.Errorf("magic number 0x%08x, want 0x%08x: this is not SPIR-V", words[0], spvMagic)
	}
	if v := words[1]; v&0xff0000ff != 0 || v < 0x00010000 || v > maxSPIRVVersion {
		return nil, fmt.Errorf("SPIR-V version 0x%08x is not 1.0 to 1.6", v)
	}
	if words[3] == 0 {
		return nil, fmt.Errorf("id bound 0 in the header")
	}
	return words, nil
}

type spvType struct {
	op   uint32
	args []uint32
}

type spvVar struct {
	id, typ, class uint32
}

// parseSPIRV walks the module's instructions and reflects its GLCompute
// entry points. Malformed instruction streams are errors.
func parseSPIRV(blob []byte) (*spvModule, error) {
	words, err := spvWords(blob)
	if err != nil {
		return nil, err
	}
	m := &spvModule{words: words, version: words[1]}
	bound := words[3]
	types := map[uint32]*spvType{}
	consts := map[uint32]uint32{}       // constant id -> value (32-bit)
	specConst := map[uint32]bool{}      // ids of OpSpecConstant
	composites := map[uint32][]uint32{} // (spec) constant composites
	decos := map[uint32]map[uint32][]uint32{}
	memberOffsets := map[[2]uint32]uint32{}
	names := map[uint32]string{}
	var vars []spvVar
	varIDs := map[uint32]bool{}
	type fnInfo struct {
		uses  map[uint32]bool
		calls []uint32
	}
	fns := map[uint32]*fnInfo{}
	var cur *fnInfo
	type entryDecl struct {
		model, fn uint32
		name      string
	}
	var decls []entryDecl
	localSize := map[uint32][3]uint32{}
	localSizeID := map[uint32][3]uint32{}

	for i := spvHeaderWords; i < len(words); {
		count := int(words[i] >> 16)
		op := words[i] & 0xffff
		if count == 0 || i+count > len(words) {
			return nil, fmt.Errorf("instruction at word %d (opcode %d) has word count %d, past the end of the module", i, op, count)
		}
		ins := words[i : i+count]
		i += count
		arg := func(k int) uint32 {
			if k < len(ins) {
				return ins[k]
			}
			return 0
		}
		if cur != nil {
			for _, w := range ins[1:] {
				if varIDs[w] {
					cur.uses[w] = true
				}
			}
		}
		switch op {
		case opName:
			names[arg(1)] = spvString(ins[2:])
		case opEntryPoint:
			if len(ins) < 4 {
				return nil, fmt.Errorf("short OpEntryPoint")
			}
			decls = append(decls, entryDecl{model: ins[1], fn: ins[2], name: spvString(ins[3:])})
		case opExecutionMode, opExecutionModeId:
			if len(ins) >= 6 && ins[2] == execModeLocalSize {
				localSize[ins[1]] = [3]uint32{ins[3], ins[4], ins[5]}
			}
			if len(ins) >= 6 && ins[2] == execModeLocalSizeId {
				localSizeID[ins[1]] = [3]uint32{ins[3], ins[4], ins[5]}
			}
		case opDecorate:
			if len(ins) >= 3 {
				if decos[ins[1]] == nil {
					decos[ins[1]] = map[uint32][]uint32{}
				}
				decos[ins[1]][ins[2]] = append([]uint32(nil), ins[3:]...)
			}
		case opMemberDecorate:
			if len(ins) >= 5 && ins[3] == decorationOffset {
				memberOffsets[[2]uint32{ins[1], ins[2]}] = ins[4]
			}
		case opTypeBool, opTypeInt, opTypeFloat, opTypeVector, opTypeMatrix, opTypeArray, opTypeRuntimeArray, opTypeStruct, opTypePointer:
			if len(ins) >= 2 {
				types[ins[1]] = &spvType{op: op, args: append([]uint32(nil), ins[2:]...)}
			}
		case opConstant:
			if len(ins) >= 4 {
				consts[ins[2]] = ins[3]
			}
		case opSpecConstant:
			if len(ins) >= 4 {
				consts[ins[2]] = ins[3]
				specConst[ins[2]] = true
			}
		case opConstantComposite, opSpecConstantComposite:
			if len(ins) >= 3 {
				composites[ins[2]] = append([]uint32(nil), ins[3:]...)
			}
		case opVariable:
			if len(ins) >= 4 && cur == nil {
				vars = append(vars, spvVar{id: ins[2], typ: ins[1], class: ins[3]})
				varIDs[ins[2]] = true
			}
		case opFunction:
			if len(ins) >= 3 {
				cur = &fnInfo{uses: map[uint32]bool{}}
				fns[ins[2]] = cur
			}
		case opFunctionCall:
			if cur != nil && len(ins) >= 4 {
				cur.calls = append(cur.calls, ins[3])
			}
		case opFunctionEnd:
			cur = nil
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("a function has no OpFunctionEnd")
	}
	for id := range varIDs {
		if id >= bound {
			return nil, fmt.Errorf("id %d is beyond the header's bound %d", id, bound)
		}
	}

	// The work-group size: a WorkgroupSize built-in constant overrides the
	// execution modes.
	var wgBuiltin uint32
	for id, d := range decos {
		if b, ok := d[decorationBuiltIn]; ok && len(b) > 0 && b[0] == builtInWorkgroupSize {
			wgBuiltin = id
		}
	}
	specID := func(id uint32) int32 {
		if !specConst[id] {
			return -1
		}
		if s, ok := decos[id][decorationSpecID]; ok && len(s) > 0 {
			return int32(s[0])
		}
		return -1
	}

	var sizeOf func(id uint32, depth int) (uint32, bool)
	sizeOf = func(id uint32, depth int) (uint32, bool) {
		t := types[id]
		if t == nil || depth > 16 {
			return 0, false
		}
		switch t.op {
		case opTypeBool:
			return 4, true
		case opTypeInt, opTypeFloat:
			if len(t.args) < 1 {
				return 0, false
			}
			return t.args[0] / 8, true
		case opTypeVector, opTypeMatrix:
			if len(t.args) < 2 {
				return 0, false
			}
			e, ok := sizeOf(t.args[0], depth+1)
			return e * t.args[1], ok
		case opTypeArray:
			if len(t.args) < 2 {
				return 0, false
			}
			n, ok := consts[t.args[1]]
			if !ok || specConst[t.args[1]] {
				return 0, false
			}
			if s, ok := decos[id][decorationArrayStride]; ok && len(s) > 0 {
				return s[0] * n, true
			}
			e, ok := sizeOf(t.args[0], depth+1)
			return e * n, ok
		case opTypeStruct:
			var size uint32
			for k, mt := range t.args {
				ms, ok := sizeOf(mt, depth+1)
				if !ok {
					return 0, false
				}
				off, has := memberOffsets[[2]uint32{id, uint32(k)}]
				if !has {
					off = size
				}
				size = max(size, off+ms)
			}
			return size, true
		}
		return 0, false
	}
	pointee := func(ptr uint32) uint32 {
		if t := types[ptr]; t != nil && t.op == opTypePointer && len(t.args) >= 2 {
			return t.args[1]
		}
		return 0
	}

	for _, dcl := range decls {
		if dcl.model != execModelGLCompute {
			continue
		}
		e := &spvEntry{name: dcl.name, fn: dcl.fn, specIDs: [3]int32{-1, -1, -1}}
		if ls, ok := localSize[dcl.fn]; ok {
			e.localSize = ls
		}
		if ids, ok := localSizeID[dcl.fn]; ok {
			for k, id := range ids {
				e.localSize[k] = consts[id]
				e.specIDs[k] = specID(id)
			}
		}
		if wgBuiltin != 0 {
			if parts, ok := composites[wgBuiltin]; ok && len(parts) == 3 {
				for k, id := range parts {
					e.localSize[k] = consts[id]
					e.specIDs[k] = specID(id)
				}
			}
		}
		// Global variables the entry point (and what it calls) mentions.
		used := map[uint32]bool{}
		seen := map[uint32]bool{}
		stack := []uint32{dcl.fn}
		for len(stack) > 0 {
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[f] {
				continue
			}
			seen[f] = true
			if fi := fns[f]; fi != nil {
				for v := range fi.uses {
					used[v] = true
				}
				stack = append(stack, fi.calls...)
			}
		}
		for _, v := range vars {
			if !used[v.id] {
				continue
			}
			pt := pointee(v.typ)
			switch v.class {
			case storageStorageBuffer, storageUniform:
				b := spvBinding{descType: descriptorStorageBuffer, name: names[v.id]}
				if v.class == storageUniform {
					if _, ok := decos[pt][decorationBufferBlock]; !ok {
						b.descType = descriptorUniformBuffer
					}
				}
				if b.name == "" {
					b.name = names[pt]
				}
				if s, ok := decos[v.id][decorationDescriptorSet]; ok && len(s) > 0 {
					b.set = s[0]
				}
				if s, ok := decos[v.id][decorationBinding]; ok && len(s) > 0 {
					b.binding = s[0]
				}
				e.bindings = append(e.bindings, b)
			case storagePushConstant:
				e.pushBytes, e.pushKnown = sizeOf(pt, 0)
			case storageWorkgroup:
				if n, ok := sizeOf(pt, 0); ok {
					e.shared += int(n)
				}
			}
		}
		sort.SliceStable(e.bindings, func(i, j int) bool {
			bi, bj := e.bindings[i], e.bindings[j]
			return bi.set < bj.set || bi.set == bj.set && bi.binding < bj.binding
		})
		// Variables aliasing one binding (float[] and vec4[] views of a
		// buffer) are one descriptor.
		dedup := e.bindings[:0]
		for _, b := range e.bindings {
			if n := len(dedup); n > 0 && dedup[n-1].set == b.set && dedup[n-1].binding == b.binding {
				continue
			}
			dedup = append(dedup, b)
		}
		e.bindings = dedup
		m.entries = append(m.entries, e)
	}
	if len(m.entries) == 0 {
		var models []string
		for _, dcl := range decls {
			models = append(models, fmt.Sprintf("%s (execution model %d)", dcl.name, dcl.model))
		}
		if len(models) == 0 {
			return nil, fmt.Errorf("the module has no entry point")
		}
		return nil, fmt.Errorf("the module has no GLCompute entry point, only %s", strings.Join(models, ", "))
	}
	return m, nil
}

// spvString decodes a literal string operand.
func spvString(ws []uint32) string {
	var b []byte
	for _, w := range ws {
		for k := 0; k < 4; k++ {
			c := byte(w >> (8 * k))
			if c == 0 {
				return string(b)
			}
			b = append(b, c)
		}
	}
	return string(b)
}
