package backend

import (
	"fmt"
	"math"

	"github.com/anygpu/gpu/errors"
	"github.com/anygpu/gpu/internal/memview"
)

// ErrNotCompiled is wrapped by a Probe error when the backend was left out of
// this build (a build tag, or cgo disabled). The root package reports the
// backend's state as NotCompiled.
var ErrNotCompiled = errors.New("backend not compiled into this binary")

// Dim3 is a grid or block size. A zero Y or Z counts as 1.
type Dim3 struct {
	X int `json:"x"`
	Y int `json:"y"`
	Z int `json:"z"`
}

// Norm returns d with zero Y and Z replaced by 1.
func (d Dim3) Norm() Dim3 {
	if d.Y == 0 {
		d.Y = 1
	}
	if d.Z == 0 {
		d.Z = 1
	}
	return d
}

// Count is the number of elements (threads or groups) d spans: X*Y*Z, with
// zero Y and Z counted as 1.
func (d Dim3) Count() int64 {
	n := d.Norm()
	return int64(n.X) * int64(n.Y) * int64(n.Z)
}

func (d Dim3) String() string {
	n := d.Norm()
	return fmt.Sprintf("(%d,%d,%d)", n.X, n.Y, n.Z)
}

// ArgKind is the type of a kernel argument.
type ArgKind uint8

// Argument kinds of the portable ABI: a kernel's buffers bind at slots
// 0..n-1 in argument order, and its scalars pack in argument order into one
// parameter block (PackScalars).
const (
	ArgBuffer ArgKind = iota + 1
	ArgF32
	ArgF64
	ArgI32
	ArgU32
	ArgI64
	ArgU64
)

var argKindNames = [...]string{"invalid", "buffer", "f32", "f64", "i32", "u32", "i64", "u64"}

func (k ArgKind) String() string {
	if int(k) < len(argKindNames) {
		return argKindNames[k]
	}
	return fmt.Sprintf("ArgKind(%d)", int(k))
}

// Size is the size of a scalar of this kind in bytes; 0 for a buffer.
func (k ArgKind) Size() int {
	switch k {
	case ArgF32, ArgI32, ArgU32:
		return 4
	case ArgF64, ArgI64, ArgU64:
		return 8
	}
	return 0
}

// Arg is one kernel argument as a backend receives it: a buffer of the
// backend's own, or a scalar held as raw bits.
type Arg struct {
	Kind   ArgKind
	Buffer Buffer // for ArgBuffer
	Bits   uint64 // scalar value: float bits for F32/F64, two's complement for integers
}

// F32 returns a scalar argument's value as float32.
func (a Arg) F32() float32 { return math.Float32frombits(uint32(a.Bits)) }

// F64 returns a scalar argument's value as float64.
func (a Arg) F64() float64 { return math.Float64frombits(a.Bits) }

// I32 returns a scalar argument's value as int32.
func (a Arg) I32() int32 { return int32(uint32(a.Bits)) }

// U32 returns a scalar argument's value as uint32.
func (a Arg) U32() uint32 { return uint32(a.Bits) }

// I64 returns a scalar argument's value as int64.
func (a Arg) I64() int64 { return int64(a.Bits) }

// U64 returns a scalar argument's value as uint64.
func (a Arg) U64() uint64 { return a.Bits }

// Int returns an integer scalar argument (any integer kind) as int.
func (a Arg) Int() int {
	switch a.Kind {
	case ArgI32:
		return int(a.I32())
	case ArgU32:
		return int(a.U32())
	}
	return int(a.Bits)
}

// Bytes returns the host memory of a buffer argument on backends that execute
// on the host (see HostMemory); nil otherwise.
func (a Arg) Bytes() []byte {
	if h, ok := a.Buffer.(HostMemory); ok {
		return h.Bytes()
	}
	return nil
}

// Float32s views a host-memory buffer argument as []float32.
func (a Arg) Float32s() []float32 { return memview.As[float32](a.Bytes()) }

// Float64s views a host-memory buffer argument as []float64.
func (a Arg) Float64s() []float64 { return memview.As[float64](a.Bytes()) }

// Int32s views a host-memory buffer argument as []int32.
func (a Arg) Int32s() []int32 { return memview.As[int32](a.Bytes()) }

// Uint32s views a host-memory buffer argument as []uint32.
func (a Arg) Uint32s() []uint32 { return memview.As[uint32](a.Bytes()) }

// PackScalars lays the scalar arguments out in argument order as the portable
// ABI's params block: 4-byte values 4-byte aligned, 8-byte values 8-byte
// aligned, the total rounded up to a multiple of 8 (16 with align16, as uniform
// buffers need). Buffers are skipped: they bind at 0..n-1.
func PackScalars(args []Arg, align16 bool) []byte {
	var out []byte
	for _, a := range args {
		size := a.Kind.Size()
		if size == 0 {
			continue
		}
		for len(out)%size != 0 {
			out = append(out, 0)
		}
		for i := 0; i < size; i++ {
			out = append(out, byte(a.Bits>>(8*i)))
		}
	}
	round := 8
	if align16 {
		round = 16
	}
	for len(out)%round != 0 {
		out = append(out, 0)
	}
	return out
}

// Group is one work group of a launch, as a Go kernel sees it. A Go kernel
// computes the threads ID*Size .. ID*Size+Size-1 of every dimension itself,
// usually with plain loops, which the compiler can vectorise.
type Group struct {
	ID   Dim3 // this group's index in the grid
	Size Dim3 // threads per group (the launch's block)
	Grid Dim3 // groups in the grid
}

// Linear is the group's index when the grid is flattened x-fastest.
func (g Group) Linear() int { return (g.ID.Z*g.Grid.Y+g.ID.Y)*g.Grid.X + g.ID.X }

// Span returns the half-open range of global x indices [lo, hi) this group
// covers, clipped to n.
func (g Group) Span(n int) (lo, hi int) {
	lo = g.ID.X * g.Size.X
	hi = lo + g.Size.X
	if hi > n {
		hi = n
	}
	if lo > n {
		lo = n
	}
	return lo, hi
}

// GoKernel runs one work group of a kernel on the host. Backends that execute
// on the CPU run the groups of a launch in parallel.
type GoKernel func(g Group, args []Arg)

// Source is one kernel program in as many dialects as its author wrote; each
// backend compiles the dialect it runs and reports NotSupported, naming the
// dialect, when that one is missing. To write a kernel once for every
// backend, write it in Go with package github.com/anygpu/gpu/kernel: its
// translation fills every dialect (go generate with `gpu kernels`, or
// kernel.Translate at run time). The rules below are for dialects written by
// hand.
//
// A program may hold several kernels (entry points). Their names are the keys
// of Params, and the same in every dialect:
//
//   - CUDA: extern "C" __global__ functions of that name.
//   - WGSL: @compute functions of that name; MSL: kernel functions of that name.
//   - GLSL (and GLSLES, for OpenGL ES) is the OpenGL backend's dialect: one
//     text for all kernels, compiled once per kernel with the line
//     "#define ANYGPU_KERNEL_<name> 1" inserted after #version, so the text
//     picks each kernel's code (and its local_size) with #ifdef; the entry
//     point is main. A kernel that adapts to the launch's block declares
//     "layout(local_size_x = ANYGPU_BLOCK_X, local_size_y = ANYGPU_BLOCK_Y,
//     local_size_z = ANYGPU_BLOCK_Z) in;" with "#ifndef ANYGPU_BLOCK_X /
//     #define ANYGPU_BLOCK_X 64 / #endif" defaults for each macro (the OpenGL
//     backend defines them per launch block); a fixed local_size must equal
//     the launch's block. Vulkan and WebGPU compile GLSL too, as a fallback
//     when the Source has no SPIR-V or WGSL, with their own rules (their
//     package docs): Vulkan binds buffers at set 0 and takes scalars as push
//     constants or a uniform block, WebGPU needs GLSL 4.50 and a fixed
//     local_size.
//   - SPIR-V: SPIRV is one module with an OpEntryPoint per kernel, or
//     SPIRVKernels holds one module per kernel (entry point "main"), as glslc
//     builds them from GLSL.
//   - Go: the Go map's keys.
//
// A Source without Params and with a single-entry dialect (GLSL without
// sections, one SPIR-V entry point) has one kernel, named Source.Name.
type Source struct {
	Name string
	CUDA string // CUDA C++ with extern "C" __global__ entry points (NVRTC)
	// PTX, CUBIN and Fatbin are CUDA device code compiled elsewhere (nvcc,
	// Triton, a PTX emitter): the CUDA backend loads the first of CUBIN,
	// Fatbin, PTX and CUDA that the source has and the device runs. Kernels
	// are looked up by their symbol names (mangled, unless extern "C").
	PTX          string            // PTX assembly (the driver compiles it when the module loads)
	CUBIN        []byte            // a CUBIN (ELF) for the device's architecture
	Fatbin       []byte            // a fat binary (CUBINs and PTX for several architectures)
	SPIRV        []byte            // Vulkan: one module, an entry point per kernel
	SPIRVKernels map[string][]byte // Vulkan: one module per kernel, entry point "main"
	GLSL         string            // OpenGL 4.3 compute, #version 430
	GLSLES       string            // OpenGL ES 3.1 compute, #version 310 es (same sections as GLSL)
	WGSL         string            // WebGPU
	MSL          string            // Metal Shading Language
	Go           map[string]GoKernel
	// Params declares each entry point's parameters in order. Where present,
	// every launch is checked against it before it reaches a backend, so all
	// backends reject a wrong argument list the same way.
	Params map[string][]ArgKind
	// Unsupported says, by kernel, why some dialects leave that kernel out
	// (a float64 kernel has no WGSL, say): a backend whose dialect lacks it
	// then reports NotSupported with this reason instead of not finding it.
	Unsupported map[string]string
	// Subgroups holds, for the kernels that use subgroup operations
	// (kernel.SubgroupAdd and the rest), the dialects that run them on the
	// device's own subgroups: WGSL with "enable subgroups;", SPIRVKernels
	// with SPIR-V's GroupNonUniform capabilities, and GLSL and GLSLES with
	// GL_KHR_shader_subgroup. A backend compiles such a kernel from here
	// where the device has the subgroup operations the kernel needs, else
	// from the fields above, which run it with subgroups of one thread. Only
	// Name and those dialect fields are set; nil when no kernel uses
	// subgroup operations.
	Subgroups *Source
}
