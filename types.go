package gpu

import (
	"math"

	"github.com/anygpu/gpu/backend"
)

// DeviceInfo describes a device: identity, compute and memory capabilities.
type DeviceInfo = backend.DeviceInfo

// DeviceType tells discrete GPUs, integrated GPUs, software drivers and the CPU apart.
type DeviceType = backend.DeviceType

// Dim3 is a grid or block size; a zero Y or Z counts as 1.
type Dim3 = backend.Dim3

// Source is one kernel program in several dialects (CUDA, SPIR-V, GLSL, WGSL,
// MSL, Go); each backend compiles the one it runs.
type Source = backend.Source

// GoKernel is a kernel written in Go for the CPU backend: it runs one work group.
type GoKernel = backend.GoKernel

// Group is the work group a GoKernel runs.
type Group = backend.Group

// ArgKind is the type of a kernel argument.
type ArgKind = backend.ArgKind

// KernelArg is a kernel argument as a GoKernel receives it.
type KernelArg = backend.Arg

// KernelAttributes are a compiled kernel's resource needs (registers, shared memory, ...).
type KernelAttributes = backend.KernelAttributes

// Argument kinds, re-exported from the SPI for Source.Params.
const (
	KindBuffer = backend.ArgBuffer
	KindF32    = backend.ArgF32
	KindF64    = backend.ArgF64
	KindI32    = backend.ArgI32
	KindU32    = backend.ArgU32
	KindI64    = backend.ArgI64
	KindU64    = backend.ArgU64
)

// D1 is a one-dimensional Dim3.
func D1(x int) Dim3 { return Dim3{X: x, Y: 1, Z: 1} }

// D2 is a two-dimensional Dim3.
func D2(x, y int) Dim3 { return Dim3{X: x, Y: y, Z: 1} }

// Arg is a typed kernel argument: a buffer or a scalar. Build it with Buf,
// F32, F64, I32, U32, I64 or U64. Every backend passes arguments by one
// portable rule: the buffers, in argument order, bind at slots 0..n-1, and
// the scalars, in argument order, pack into one parameter block (each aligned
// to its size).
type Arg struct {
	kind backend.ArgKind
	buf  *Buffer
	bits uint64
}

// Kind is the argument's type.
func (a Arg) Kind() ArgKind { return a.kind }

// Bits is a scalar argument's value as its backend receives it: the IEEE
// bits of a float, two's complement of an integer (zero-extended from 32
// bits for the 32-bit kinds); 0 for a buffer.
func (a Arg) Bits() uint64 { return a.bits }

// Buf passes a buffer.
func Buf(b *Buffer) Arg { return Arg{kind: backend.ArgBuffer, buf: b} }

// F32 passes a float32.
func F32(x float32) Arg { return Arg{kind: backend.ArgF32, bits: uint64(math.Float32bits(x))} }

// F64 passes a float64.
func F64(x float64) Arg { return Arg{kind: backend.ArgF64, bits: math.Float64bits(x)} }

// I32 passes an int32.
func I32(x int32) Arg { return Arg{kind: backend.ArgI32, bits: uint64(uint32(x))} }

// U32 passes a uint32.
func U32(x uint32) Arg { return Arg{kind: backend.ArgU32, bits: uint64(x)} }

// I64 passes an int64.
func I64(x int64) Arg { return Arg{kind: backend.ArgI64, bits: uint64(x)} }

// U64 passes a uint64.
func U64(x uint64) Arg { return Arg{kind: backend.ArgU64, bits: x} }

// Scalar is every element type the typed helpers (Upload, Download,
// AllocSlice, ...) accept.
type Scalar interface {
	~int8 | ~uint8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}
