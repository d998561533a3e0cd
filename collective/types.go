package collective

import (
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
)

// DataType is the element type of a collective's buffers; the values are
// NCCL's ncclDataType_t.
type DataType int

// The element types. Float8E4M3 and Float8E5M2 need NCCL 2.24 or newer and a
// GPU with FP8 (compute capability 9.0).
const (
	Int8       DataType = 0
	Uint8      DataType = 1
	Int32      DataType = 2
	Uint32     DataType = 3
	Int64      DataType = 4
	Uint64     DataType = 5
	Float16    DataType = 6
	Float32    DataType = 7
	Float64    DataType = 8
	BFloat16   DataType = 9
	Float8E4M3 DataType = 10
	Float8E5M2 DataType = 11
	numTypes            = 12
)

var typeNames = [numTypes]string{"int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64", "bfloat16", "float8e4m3", "float8e5m2"}
var typeSizes = [numTypes]int{1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1}

// minTypeVersion is the NCCL version that brought each type (0: all loadable ones).
func minTypeVersion(t DataType) int {
	if t == Float8E4M3 || t == Float8E5M2 {
		return 22400
	}
	return 0
}

func (t DataType) valid() bool { return t >= 0 && t < numTypes }

// Size is the size of one element in bytes (0 for an unknown type).
func (t DataType) Size() int {
	if !t.valid() {
		return 0
	}
	return typeSizes[t]
}

// String is the type's name ("float32").
func (t DataType) String() string {
	if !t.valid() {
		return fmt.Sprintf("DataType(%d)", int(t))
	}
	return typeNames[t]
}

// Elem is every Go element type with an NCCL data type.
type Elem interface {
	~int8 | ~uint8 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// TypeOf returns the DataType of T: TypeOf[float32]() is Float32 (named
// types by their underlying type).
func TypeOf[T Elem]() DataType {
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Int8:
		return Int8
	case reflect.Uint8:
		return Uint8
	case reflect.Int32:
		return Int32
	case reflect.Uint32:
		return Uint32
	case reflect.Int64:
		return Int64
	case reflect.Uint64:
		return Uint64
	case reflect.Float32:
		return Float32
	default:
		return Float64
	}
}

// Op is a reduction; the values are NCCL's ncclRedOp_t.
type Op int

// The reductions. Avg is the sum divided by the number of ranks (integers
// round toward zero).
const (
	Sum    Op = 0
	Prod   Op = 1
	Max    Op = 2
	Min    Op = 3
	Avg    Op = 4
	numOps Op = 5
)

var opNames = [numOps]string{"sum", "prod", "max", "min", "avg"}

func (o Op) valid() bool { return o >= 0 && o < numOps }

// String is the reduction's name ("sum").
func (o Op) String() string {
	if !o.valid() {
		return fmt.Sprintf("Op(%d)", int(o))
	}
	return opNames[o]
}

// UniqueID identifies one communicator while its ranks join it: rank 0 makes
// it (NewUniqueID) and every other rank must receive it, through a Bootstrap
// or any channel the program has (MPI, a job scheduler, a key-value store).
// It holds rank 0's bootstrap address: treat it as a secret of the job.
type UniqueID [128]byte

// String is the id in hexadecimal (256 characters).
func (id UniqueID) String() string { return hex.EncodeToString(id[:]) }

// ParseUniqueID reads an id written by UniqueID.String.
func ParseUniqueID(s string) (UniqueID, error) {
	var id UniqueID
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != len(id) {
		return id, fmt.Errorf("collective: not a unique id: want %d hexadecimal digits, got %d characters", 2*len(id), len(strings.TrimSpace(s)))
	}
	copy(id[:], b)
	return id, nil
}
