//go:build (darwin || freebsd || linux || netbsd || windows) && (amd64 || arm64)

package vulkan

import (
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/anygpu/gpu/backend"
	"github.com/anygpu/gpu/backend/vulkan/internal/vk"
	"github.com/anygpu/gpu/errors"
)

// kernelCache holds a device's shader modules (by SPIR-V hash, reference
// counted by modules), pipeline layouts (by signature) and compute pipelines
// (by module, entry point and block size), and the VkPipelineCache.
type kernelCache struct {
	d         *device
	mu        sync.Mutex
	shaders   map[[32]byte]*shaderModule
	layouts   map[string]*pipeLayout
	pipes     map[pipeKey]uint64
	cache     uint64 // VkPipelineCache
	cachePath string
	created   int // pipelines created (the cache is saved when > 0)
}

type shaderModule struct {
	h    uint64
	hash [32]byte
	spv  *spvModule
	refs int
}

type pipeLayout struct {
	set, layout uint64
}

type pipeKey struct {
	hash  [32]byte
	entry string
	block backend.Dim3
}

func (kc *kernelCache) init(d *device) {
	kc.d = d
	kc.shaders = map[[32]byte]*shaderModule{}
	kc.layouts = map[string]*pipeLayout{}
	kc.pipes = map[pipeKey]uint64{}
	kc.cachePath = pipelineCachePath(d.pd)
	initial := loadPipelineCache(kc.cachePath, d.pd)
	h, r := d.vd.CreatePipelineCache(initial)
	if r != vk.Success && len(initial) > 0 {
		h, r = d.vd.CreatePipelineCache(nil)
	}
	if r == vk.Success {
		kc.cache = h
	}
}

// destroy saves the pipeline cache and destroys everything. d.mu is held
// for writing.
func (kc *kernelCache) destroy() error {
	kc.mu.Lock()
	defer kc.mu.Unlock()
	vd := kc.d.vd
	var err error
	if kc.cache != 0 {
		if kc.created > 0 {
			if data, r := vd.PipelineCacheData(kc.cache); r == vk.Success && len(data) > 0 {
				err = savePipelineCache(kc.cachePath, data)
			}
		}
		vd.DestroyPipelineCache(kc.cache)
	}
	for _, p := range kc.pipes {
		vd.DestroyPipeline(p)
	}
	for _, l := range kc.layouts {
		vd.DestroyPipelineLayout(l.layout)
		vd.DestroyDescriptorSetLayout(l.set)
	}
	for _, s := range kc.shaders {
		vd.DestroyShaderModule(s.h)
	}
	kc.pipes, kc.layouts, kc.shaders = nil, nil, nil
	_ = err // the cache is an optimization: a failed save is not an error of Close
	return nil
}

// shader returns the shader module of words, creating it. kc.mu is held.
func (kc *kernelCache) shader(hash [32]byte, m *spvModule, op string) (*shaderModule, error) {
	if sm := kc.shaders[hash]; sm != nil {
		sm.refs++
		return sm, nil
	}
	info := vk.ShaderModuleCreateInfo{SType: vk.StructureTypeShaderModuleCreateInfo,
		CodeSize: uintptr(4 * len(m.words)), PCode: unsafe.Pointer(&m.words[0])}
	h, r := kc.d.vd.CreateShaderModule(&info)
	if r != vk.Success {
		err := kc.d.check(r, op)
		return nil, compileError(op, "the driver rejected the SPIR-V module", FromVkResult(int64(r), "vkCreateShaderModule").Error(), err)
	}
	sm := &shaderModule{h: h, hash: hash, spv: m, refs: 1}
	kc.shaders[hash] = sm
	return sm, nil
}

func (kc *kernelCache) unref(sm *shaderModule) {
	kc.mu.Lock()
	defer kc.mu.Unlock()
	sm.refs--
	if sm.refs == 0 && kc.shaders != nil {
		kc.d.vd.DestroyShaderModule(sm.h)
		delete(kc.shaders, sm.hash)
	}
}

// layout returns the pipeline layout for descriptor types and a push
// constant range of pushBytes. kc.mu is held.
func (kc *kernelCache) layout(types []uint32, pushBytes uint32) (*pipeLayout, error) {
	key := fmt.Sprint(types, pushBytes)
	if l := kc.layouts[key]; l != nil {
		return l, nil
	}
	d := kc.d
	binds := make([]vk.DescriptorSetLayoutBinding, len(types))
	for i, t := range types {
		binds[i] = vk.DescriptorSetLayoutBinding{Binding: uint32(i), DescriptorType: t, DescriptorCount: 1, StageFlags: vk.ShaderStageComputeBit}
	}
	si := vk.DescriptorSetLayoutCreateInfo{SType: vk.StructureTypeDescriptorSetLayoutCreateInfo, BindingCount: uint32(len(binds))}
	if len(binds) > 0 {
		si.PBindings = unsafe.Pointer(&binds[0])
	}
	if d.push {
		si.Flags = vk.DescriptorSetLayoutCreatePushDescriptorBitKHR
	}
	set, r := d.vd.CreateDescriptorSetLayout(&si)
	if r != vk.Success {
		return nil, d.check(r, "create descriptor set layout")
	}
	pc := vk.PushConstantRange{StageFlags: vk.ShaderStageComputeBit, Size: pushBytes}
	li := vk.PipelineLayoutCreateInfo{SType: vk.StructureTypePipelineLayoutCreateInfo, SetLayoutCount: 1, PSetLayouts: unsafe.Pointer(&set)}
	if pushBytes > 0 {
		li.PushConstantRangeCount, li.PPushConstantRanges = 1, unsafe.Pointer(&pc)
	}
	layout, r := d.vd.CreatePipelineLayout(&li)
	if r != vk.Success {
		d.vd.DestroyDescriptorSetLayout(set)
		return nil, d.check(r, "create pipeline layout")
	}
	l := &pipeLayout{set: set, layout: layout}
	kc.layouts[key] = l
	return l, nil
}

// module is compiled device code: backend.Module.
type module struct {
	d       *device
	name    string
	kernels map[string]*kernel
	shaders []*shaderModule
}

var _ backend.Module = (*module)(nil)

// kernel is one entry point: backend.Kernel.
type kernel struct {
	m      *module
	name   string
	sm     *shaderModule
	entry  *spvEntry
	cEntry *byte // entry point name as a C string
	layout *pipeLayout
	types  []uint32 // descriptor type per binding
	nbuf   int      // buffer arguments (storage/uniform bindings the caller binds)
	ubo    bool     // binding nbuf is a uniform block of the scalars (the OpenGL ABI)
	push   uint32   // push-constant range size (0: none)
	// fullSubgroups: the kernel is a subgroup variant (Source.Subgroups) on a
	// device with computeFullSubgroups, whose pipelines for a block of a
	// whole number of subgroups in x require full subgroups.
	fullSubgroups bool
	// portable is, for a subgroup variant, the kernel's portable form
	// (subgroups of one thread), which a launch whose block is not a whole
	// number of the device's subgroups runs instead (see forBlock).
	portable *kernel
	last     atomic.Pointer[pipeEntry]
}

type pipeEntry struct {
	block backend.Dim3
	h     uint64
}

var (
	_ backend.Kernel           = (*kernel)(nil)
	_ backend.KernelAttributer = (*kernel)(nil)
)

// Name is the kernel's name.
func (k *kernel) Name() string { return k.name }

// Attributes reports the work-group size fixed in the SPIR-V (zero when the
// launch chooses it) and the statically sized shared memory.
func (k *kernel) Attributes() (backend.KernelAttributes, error) {
	a := backend.KernelAttributes{SharedMemBytes: k.entry.shared, MaxThreadsPerBlock: k.m.d.info.MaxThreadsPerBlock,
		MaxDynamicShared: 0, ConstMemBytes: int(k.push)}
	if k.entry.fixed() {
		ls := k.entry.localSize
		a.WorkGroupSize = backend.Dim3{X: int(ls[0]), Y: int(ls[1]), Z: int(ls[2])}
		a.MaxThreadsPerBlock = int(ls[0] * ls[1] * ls[2])
	}
	return a, nil
}

// Kernel returns the entry point called name.
func (m *module) Kernel(name string) (backend.Kernel, error) {
	if k := m.kernels[name]; k != nil {
		return k, nil
	}
	names := slices.Sorted(maps.Keys(m.kernels))
	return nil, &errors.Error{Backend: Name, Op: fmt.Sprintf("kernel %q", name), Category: errors.InvalidArgument,
		Msg:  fmt.Sprintf("module %q has no kernel %q", m.name, name),
		Hint: "use one of its kernels: " + strings.Join(names, ", ")}
}

// Close releases the module's shader modules; pipelines stay cached by the
// device for a later compile of the same code.
func (m *module) Close() error {
	d := m.d
	d.whileOpen(func() {
		for _, sm := range m.shaders {
			d.kern.unref(sm)
		}
	})
	return nil
}

func compileError(op, msg, log string, cause error) error {
	return &errors.Error{Backend: Name, Op: op, Category: errors.Compilation, Msg: msg, Log: log, Err: cause,
		Hint: "read the log (errors.LogOf); check the module with spirv-val --target-env vulkan1.1"}
}

// unit is one kernel to build: name, entry point and SPIR-V.
type unit struct {
	kernel, entry string
	blob          []byte
	subgroups     bool   // the blob is the kernel's subgroup variant
	portable      []byte // then the kernel's portable SPIR-V
}

// Compile builds a module from src's SPIR-V (SPIRVKernels, else SPIRV), or
// from its GLSL through libshaderc when that is installed.
func (d *device) Compile(ctx context.Context, src backend.Source, opts backend.CompileOptions) (backend.Module, error) {
	op := fmt.Sprintf("compile %q", src.Name)
	if err := ctx.Err(); err != nil {
		return nil, errors.Wrap(err, Name, op)
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	if err := d.usable(op); err != nil {
		return nil, err
	}
	return d.compile(src, opts, op)
}

// compile is Compile with d.mu held (or the device not yet shared).
func (d *device) compile(src backend.Source, opts backend.CompileOptions, op string) (*module, error) {
	var units []unit
	switch {
	case len(src.SPIRVKernels) > 0:
		for _, name := range slices.Sorted(maps.Keys(src.SPIRVKernels)) {
			units = append(units, unit{kernel: name, entry: "main", blob: src.SPIRVKernels[name]})
		}
		var err error
		if units, err = d.subgroupUnits(src, units); err != nil {
			return nil, compileError(op, "invalid SPIR-V", err.Error(), nil)
		}
	case len(src.SPIRV) > 0:
		m, err := parseSPIRV(src.SPIRV)
		if err != nil {
			return nil, compileError(op, "invalid SPIR-V", err.Error(), nil)
		}
		for _, e := range m.entries {
			units = append(units, unit{kernel: e.name, entry: e.name, blob: src.SPIRV})
		}
		if len(m.entries) == 1 && len(src.Params) == 0 && m.entries[0].name != src.Name && src.Name != "" {
			units = append(units, unit{kernel: src.Name, entry: m.entries[0].name, blob: src.SPIRV})
		}
	case src.GLSL != "":
		var err error
		units, err = compileGLSL(src, opts, d.pd.apiVersion)
		if err != nil {
			return nil, errors.Wrap(err, Name, op)
		}
	default:
		return nil, &errors.Error{Backend: Name, Op: op, Category: errors.NotSupported,
			Msg:  "the source has no SPIR-V (Source.SPIRV or SPIRVKernels) and no GLSL",
			Hint: "add SPIR-V compiled with glslc (or GLSL, compiled at run time when libshaderc is installed)"}
	}
	mod := &module{d: d, name: src.Name, kernels: map[string]*kernel{}}
	parsed := map[[32]byte]*shaderModule{}
	fail := func(err error) (*module, error) {
		for _, sm := range mod.shaders {
			d.kern.unref(sm)
		}
		return nil, err
	}
	// shaderFor is the shader module of blob (kernel's), parsed, validated
	// and created once per device.
	shaderFor := func(kernel string, blob []byte) (*shaderModule, error) {
		hash := sha256.Sum256(blob)
		if sm := parsed[hash]; sm != nil {
			return sm, nil
		}
		d.kern.mu.Lock()
		sm := d.kern.shaders[hash]
		if sm != nil {
			sm.refs++
		}
		d.kern.mu.Unlock()
		if sm == nil {
			m, err := parseSPIRV(blob)
			if err != nil {
				return nil, compileError(op, fmt.Sprintf("invalid SPIR-V for kernel %q", kernel), err.Error(), nil)
			}
			if err := validateSPIRV(hash, m.words, d.pd.apiVersion); err != nil {
				return nil, compileError(op, fmt.Sprintf("SPIR-V of kernel %q does not validate", kernel), err.Error(), nil)
			}
			d.kern.mu.Lock()
			sm, err = d.kern.shader(hash, m, op)
			d.kern.mu.Unlock()
			if err != nil {
				return nil, err
			}
		}
		parsed[hash] = sm
		mod.shaders = append(mod.shaders, sm)
		return sm, nil
	}
	for _, u := range units {
		sm, err := shaderFor(u.kernel, u.blob)
		if err != nil {
			return fail(err)
		}
		k, err := d.newKernel(mod, sm, u, src.Params[u.kernel], op)
		if err != nil {
			return fail(err)
		}
		if u.portable != nil {
			// The kernel's portable form, for the launches whose block is
			// not a whole number of the device's subgroups.
			pu := unit{kernel: u.kernel, entry: u.entry, blob: u.portable}
			psm, err := shaderFor(u.kernel, pu.blob)
			if err != nil {
				return fail(err)
			}
			if k.portable, err = d.newKernel(mod, psm, pu, src.Params[u.kernel], op); err != nil {
				return fail(err)
			}
		}
		mod.kernels[u.kernel] = k
	}
	return mod, nil
}

// newKernel checks the entry point and builds its pipeline layout; a kernel
// with a fixed work-group size gets its pipeline now.
func (d *device) newKernel(mod *module, sm *shaderModule, u unit, params []backend.ArgKind, op string) (*kernel, error) {
	e := sm.spv.entry(u.entry)
	if e == nil {
		return nil, compileError(op, fmt.Sprintf("kernel %q: the SPIR-V has no GLCompute entry point %q", u.kernel, u.entry),
			"entry points: "+strings.Join(sm.spv.entryNames(), ", "), nil)
	}
	k := &kernel{m: mod, name: u.kernel, sm: sm, entry: e, cEntry: vk.CString(u.entry), fullSubgroups: u.subgroups && d.pd.fullSubgroups}
	declared := -1
	if params != nil {
		declared = 0
		for _, p := range params {
			if p == backend.ArgBuffer {
				declared++
			}
		}
	}
	// Bindings: set 0 only, 0..n-1.
	maxBinding := -1
	byBinding := map[uint32]uint32{}
	for _, b := range e.bindings {
		if b.set != 0 {
			return nil, compileError(op, fmt.Sprintf("kernel %q uses descriptor set %d", u.kernel, b.set),
				"anygpu binds buffers at set 0, bindings 0..n-1", nil)
		}
		byBinding[b.binding] = b.descType
		maxBinding = max(maxBinding, int(b.binding))
	}
	nbind := maxBinding + 1
	if declared >= 0 {
		nbind = max(nbind, declared)
	}
	if nbind > maxBindings {
		return nil, compileError(op, fmt.Sprintf("kernel %q has %d bindings, anygpu binds at most %d", u.kernel, nbind, maxBindings), "", nil)
	}
	k.types = make([]uint32, nbind)
	for i := range k.types {
		k.types[i] = vk.DescriptorTypeStorageBuffer
		if t, ok := byBinding[uint32(i)]; ok {
			k.types[i] = t
		}
	}
	k.nbuf = nbind
	// Scalars: push constants (the Vulkan ABI), or a uniform block at binding
	// n as OpenGL sources declare them.
	last := nbind - 1
	if e.pushBytes == 0 && last >= 0 && k.types[last] == vk.DescriptorTypeUniformBuffer && (declared < 0 || declared == last) {
		k.ubo, k.nbuf = true, last
	}
	if declared >= 0 && k.nbuf != declared {
		return nil, compileError(op, fmt.Sprintf("kernel %q uses bindings 0..%d but Params declares %d buffers", u.kernel, nbind-1, declared), "", nil)
	}
	if e.pushBytes > 0 {
		if !e.pushKnown {
			k.push = d.maxPush
		} else {
			k.push = uint32(alignUp(uint64(e.pushBytes), 4))
		}
		if k.push > d.maxPush || k.push > maxPushBytes {
			return nil, &errors.Error{Backend: Name, Op: op, Category: errors.NotSupported,
				Msg:  fmt.Sprintf("kernel %q has a %d-byte push-constant block; the device allows %d", u.kernel, e.pushBytes, d.maxPush),
				Hint: "pass fewer scalars, or pass them in a buffer"}
		}
	}
	d.kern.mu.Lock()
	l, err := d.kern.layout(k.types, k.push)
	d.kern.mu.Unlock()
	if err != nil {
		return nil, err
	}
	k.layout = l
	if e.fixed() {
		ls := e.localSize
		if _, err := k.pipeline(backend.Dim3{X: int(ls[0]), Y: int(ls[1]), Z: int(ls[2])}); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// pipeline returns the compute pipeline for block, creating and caching it.
func (k *kernel) pipeline(block backend.Dim3) (uint64, error) {
	if p := k.last.Load(); p != nil && p.block == block {
		return p.h, nil
	}
	e := k.entry
	dims := [3]int{block.X, block.Y, block.Z}
	for i, id := range e.specIDs {
		if id < 0 && dims[i] != int(e.localSize[i]) {
			ls := e.localSize
			return 0, &errors.Error{Backend: Name, Op: "launch " + k.name, Category: errors.Launch,
				Msg: fmt.Sprintf("block %v differs from the work-group size (%d,%d,%d) fixed in the kernel's SPIR-V",
					block, ls[0], ls[1], ls[2]),
				Hint: "launch with that block, or declare local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2 so any block works"}
		}
	}
	d := k.m.d
	kc := &d.kern
	key := pipeKey{hash: k.sm.hash, entry: e.name, block: block}
	kc.mu.Lock()
	defer kc.mu.Unlock()
	if h, ok := kc.pipes[key]; ok {
		k.last.Store(&pipeEntry{block, h})
		return h, nil
	}
	var spec *vk.SpecializationInfo
	var entries [3]vk.SpecializationMapEntry
	var values [3]uint32
	n := 0
	for i, id := range e.specIDs {
		if id >= 0 {
			entries[n] = vk.SpecializationMapEntry{ConstantID: uint32(id), Offset: uint32(4 * n), Size: 4}
			values[n] = uint32(dims[i])
			n++
		}
	}
	if n > 0 {
		spec = &vk.SpecializationInfo{MapEntryCount: uint32(n), PMapEntries: unsafe.Pointer(&entries[0]),
			DataSize: uintptr(4 * n), PData: unsafe.Pointer(&values[0])}
	}
	var flags uint32
	if size := int(d.pd.subgroupSize); k.fullSubgroups && size > 0 && block.X%size == 0 {
		// Every subgroup full, as package kernel's subgroups are: without
		// the flag Vulkan does not promise it (a block not a whole number of
		// subgroups in x cannot ask for it, and breaks the contract anyway).
		flags = vk.PipelineShaderStageCreateRequireFullSubgroupsBit
	}
	info := vk.ComputePipelineCreateInfo{
		SType: vk.StructureTypeComputePipelineCreateInfo,
		Stage: vk.PipelineShaderStageCreateInfo{SType: vk.StructureTypePipelineShaderStageCreateInfo, Stage: vk.ShaderStageComputeBit, Flags: flags,
			Module: k.sm.h, PName: unsafe.Pointer(k.cEntry), PSpecializationInfo: unsafe.Pointer(spec)},
		Layout: k.layout.layout,
	}
	h, r := d.vd.CreateComputePipeline(kc.cache, &info)
	if r != vk.Success {
		err := d.check(r, "create pipeline "+k.name)
		return 0, compileError("create pipeline "+k.name, fmt.Sprintf("the driver could not build kernel %q for block %v", k.name, block),
			FromVkResult(int64(r), "vkCreateComputePipelines").Error(), err)
	}
	kc.pipes[key] = h
	kc.created++
	k.last.Store(&pipeEntry{block, h})
	return h, nil
}

// packScalars lays the scalar arguments out like backend.PackScalars, into
// dst, and returns the size (a multiple of 8, or 16 with align16); false if
// they do not fit.
func packScalars(dst []byte, args []backend.Arg, align16 bool) (int, bool) {
	n := 0
	for _, a := range args {
		size := a.Kind.Size()
		if size == 0 {
			continue
		}
		for n%size != 0 {
			if n >= len(dst) {
				return 0, false
			}
			dst[n] = 0
			n++
		}
		if n+size > len(dst) {
			return 0, false
		}
		for i := 0; i < size; i++ {
			dst[n+i] = byte(a.Bits >> (8 * i))
		}
		n += size
	}
	round := 8
	if align16 {
		round = 16
	}
	for n%round != 0 {
		if n >= len(dst) {
			return 0, false
		}
		dst[n] = 0
		n++
	}
	return n, true
}

// Launch enqueues k over grid work groups of block threads.
func (s *stream) Launch(kb backend.Kernel, grid, block backend.Dim3, args []backend.Arg) error {
	k := kb.(*kernel) // the root passes only kernels of this device's open modules
	grid, block = grid.Norm(), block.Norm()
	k = k.forBlock(block, s.d.pd.subgroupSize)
	nbuf := 0
	for _, a := range args {
		if a.Kind == backend.ArgBuffer {
			nbuf++
		}
	}
	if nbuf != k.nbuf {
		return &errors.Error{Backend: Name, Op: "launch " + k.name, Category: errors.InvalidArgument,
			Msg:  fmt.Sprintf("%d buffer arguments, the kernel binds %d (set 0, bindings 0..%d)", nbuf, k.nbuf, k.nbuf-1),
			Hint: "pass one buffer per binding, in binding order"}
	}
	if err := s.enter("launch"); err != nil {
		return err
	}
	defer s.leave()
	return s.launchLocked(k, grid, block, args)
}

// launchLocked records a dispatch of k; the arguments' count is checked.
func (s *stream) launchLocked(k *kernel, grid, block backend.Dim3, args []backend.Arg) error {
	d := s.d
	op := k.name // names the kernel on error paths (Op gets "launch " in front)
	// Scalars.
	pcLen, fits := packScalars(s.pc[:], args, k.ubo)
	if !fits {
		return &errors.Error{Backend: Name, Op: "launch " + op, Category: errors.InvalidArgument,
			Msg: fmt.Sprintf("the scalar arguments take more than %d bytes", len(s.pc)), Hint: "pass large parameter sets in a buffer"}
	}
	if !k.ubo {
		if pcLen < int(k.push) && k.entry.pushKnown || pcLen > int(alignUp(uint64(k.push), 8)) && k.entry.pushKnown {
			return &errors.Error{Backend: Name, Op: "launch " + op, Category: errors.InvalidArgument,
				Msg:  fmt.Sprintf("the scalar arguments pack into %d bytes, the kernel's push-constant block has %d", pcLen, k.entry.pushBytes),
				Hint: "pass the scalars the kernel declares, in order (4-byte values 4-aligned, 8-byte values 8-aligned)"}
		}
		pcLen = min(pcLen, int(k.push))
	}
	pipe, err := k.pipeline(block)
	if err != nil {
		return err
	}
	b, err := s.recordLocked(laneCompute)
	if err != nil {
		return err
	}
	// Descriptors and hazards.
	s.accs = s.accs[:0]
	bi := 0
	for i, a := range args {
		if a.Kind != backend.ArgBuffer {
			continue
		}
		buf := asBuffer(a.Buffer)
		limit := d.maxStorageRange
		if k.types[bi] == vk.DescriptorTypeUniformBuffer {
			limit = d.maxUniformRange
		}
		if buf.vb.size > limit {
			return &errors.Error{Backend: Name, Op: "launch " + op, Category: errors.Launch,
				Msg:  fmt.Sprintf("argument %d is a buffer of %s; the device binds at most %s (maxStorageBufferRange)", i, byteSize(buf.vb.size), byteSize(limit)),
				Hint: "split the data over several buffers and launches"}
		}
		s.infos[bi] = vk.DescriptorBufferInfo{Buffer: buf.vb.h, Range: buf.vb.size}
		s.writes[bi].DescriptorType = k.types[bi]
		s.accs = append(s.accs, access{buf.vb.h, 0, buf.vb.size, true})
		bi++
	}
	nwrites := bi
	if k.ubo {
		sl, off, err := s.stageAlignedLocked(uint64(pcLen), d.uniformAlign)
		if err != nil {
			return err
		}
		copy(sl.vb.bytes[off:], s.pc[:pcLen])
		s.useSlab(b, sl)
		s.infos[bi] = vk.DescriptorBufferInfo{Buffer: sl.vb.h, Offset: off, Range: uint64(pcLen)}
		s.writes[bi].DescriptorType = vk.DescriptorTypeUniformBuffer
		nwrites++
	}
	s.hazardLocked(b, s.accs)
	if b.pipeline != pipe {
		d.vd.CmdBindComputePipeline(&s.args, b.cb, pipe)
		b.pipeline = pipe
	}
	if nwrites > 0 {
		if d.push {
			d.vd.CmdPushDescriptorSet(&s.args, b.cb, k.layout.layout, uint32(nwrites), unsafe.Pointer(&s.writes[0]))
		} else {
			if err := s.bindSetLocked(b, k.layout, nwrites); err != nil {
				return err
			}
		}
	}
	if !k.ubo && k.push > 0 {
		d.vd.CmdPushConstants(&s.args, b.cb, k.layout.layout, 0, k.push, unsafe.Pointer(&s.pc[0]))
	}
	d.vd.CmdDispatch(&s.args, b.cb, uint32(grid.X), uint32(grid.Y), uint32(grid.Z))
	return s.doneLocked(b, 0)
}

// stageAlignedLocked is stageLocked with a larger alignment.
func (s *stream) stageAlignedLocked(n, align uint64) (*slab, uint64, error) {
	if sl := s.slab; sl != nil {
		if off := alignUp(sl.head, align); off+n <= slabSize {
			sl.head = off + n
			return sl, off, nil
		}
		// No room at this alignment: the next slab starts at offset 0, which
		// every alignment divides. stageLocked would find room in this one
		// at 16-byte alignment only, and a uniform block at an offset the
		// device does not allow (64 on NVIDIA) reads the wrong scalars.
		s.slab = nil
		s.d.slabs.unref(sl)
	}
	return s.stageLocked(n)
}

// descPools are the descriptor pools of a batch (used without push
// descriptors): sets are allocated as the batch records and the pools reset
// when it retires.
type descPools struct {
	pools []uint64
	cur   int
}

const setsPerPool = 128

func (p *descPools) reset(d *device) {
	for i := 0; i <= p.cur && i < len(p.pools); i++ {
		d.vd.ResetDescriptorPool(p.pools[i])
	}
	p.cur = 0
}

func (p *descPools) destroy(d *device) {
	for _, h := range p.pools {
		d.vd.DestroyDescriptorPool(h)
	}
	p.pools, p.cur = nil, 0
}

// bindSetLocked allocates a descriptor set for the writes and binds it.
func (s *stream) bindSetLocked(b *batch, l *pipeLayout, nwrites int) error {
	d := s.d
	p := &b.desc
	for {
		if p.cur >= len(p.pools) {
			sizes := []vk.DescriptorPoolSize{
				{Type: vk.DescriptorTypeStorageBuffer, DescriptorCount: setsPerPool * maxBindings},
				{Type: vk.DescriptorTypeUniformBuffer, DescriptorCount: setsPerPool * 2},
			}
			info := vk.DescriptorPoolCreateInfo{SType: vk.StructureTypeDescriptorPoolCreateInfo, MaxSets: setsPerPool,
				PoolSizeCount: uint32(len(sizes)), PPoolSizes: unsafe.Pointer(&sizes[0])}
			h, r := d.vd.CreateDescriptorPool(&info)
			if r != vk.Success {
				return d.check(r, "create descriptor pool")
			}
			p.pools = append(p.pools, h)
		}
		s.setLayout = l.set
		s.setAlloc = vk.DescriptorSetAllocateInfo{SType: vk.StructureTypeDescriptorSetAllocateInfo, DescriptorPool: p.pools[p.cur],
			DescriptorSetCount: 1, PSetLayouts: unsafe.Pointer(&s.setLayout)}
		r := d.vd.AllocateDescriptorSet(&s.args, &s.setAlloc, &s.set)
		if r == vk.Success {
			break
		}
		if r != vk.Result(-1000069000) && r != vk.Result(-12) { // OUT_OF_POOL_MEMORY, FRAGMENTED_POOL
			return d.check(r, "allocate descriptor set")
		}
		p.cur++
	}
	for i := 0; i < nwrites; i++ {
		s.writes[i].DstSet = s.set
	}
	d.vd.UpdateDescriptorSets(&s.args, uint32(nwrites), unsafe.Pointer(&s.writes[0]))
	for i := 0; i < nwrites; i++ {
		s.writes[i].DstSet = 0
	}
	d.vd.CmdBindDescriptorSet(&s.args, b.cb, l.layout, &s.set)
	return nil
}
