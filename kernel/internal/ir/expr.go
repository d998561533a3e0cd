package ir

// Expr is an expression. Every one has a concrete type.
type Expr interface {
	ExprType() Type
	ExprPos() Pos
}

// Const is a constant of a scalar type. Exactly one field holds it, by the
// type: Bool; Int for I32 and I64; Uint for U32 and U64; Float for F16, F32
// and F64 (already rounded to the type).
type Const struct {
	Type  Scalar
	Bool  bool
	Int   int64
	Uint  uint64
	Float float64
	Pos   Pos
}

// Ref reads a variable: a scalar or Vec local or parameter, or (as the X of
// an Index, a Lane, an atomic's place, Len or Load4/Store4) an array or a
// buffer.
type Ref struct {
	Var *Var
	Pos Pos
}

// Index is X[Index]: X is a Ref to a buffer or an array, or an Index of a
// multi-dimensional array. Index is any integer type. Indexing out of range
// is the kernel's error: GPUs read garbage or zero and drop the write.
type Index struct {
	X, Index Expr
	Type     Type // the element type
	Pos      Pos
}

// Lane is lane N of a Vec (X, Y, Z, W are 0..3).
type Lane struct {
	X   Expr
	N   int
	Pos Pos
}

// MakeVec builds a Vec from its lanes (kernel.Float4{...}).
type MakeVec struct {
	Type  *Vec
	Elems []Expr
	Pos   Pos
}

// Op is a unary or binary operator.
type Op uint8

// The operators. Their semantics are Go's, except where noted; emitters keep
// them exactly.
const (
	OpInvalid Op = iota
	// Unary.
	Neg    // -x (wraps for the most negative integer)
	Not    // !x
	BitNot // ^x
	// Binary arithmetic; integers wrap.
	Add
	Sub
	Mul
	Div // integers truncate; x/0 == x (Go would panic); most negative / -1 wraps
	Rem // sign of the dividend; x%0 == 0
	// Bitwise.
	And
	Or
	Xor
	AndNot // x &^ y
	Shl    // a count ≥ width gives 0
	Shr    // arithmetic for signed; a count ≥ width gives 0, or -1 for a negative signed x
	// Comparison; the result is Bool. NaN compares unequal to everything.
	Eq
	Ne
	Lt
	Le
	Gt
	Ge
	// Logical, short-circuit.
	LAnd
	LOr
)

var opNames = [...]string{"invalid", "-", "!", "^", "+", "-", "*", "/", "%", "&", "|", "^", "&^", "<<", ">>",
	"==", "!=", "<", "<=", ">", ">=", "&&", "||"}

// String is the operator's Go spelling.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "Op?"
}

// IsCompare reports whether o is a comparison.
func (o Op) IsCompare() bool { return o >= Eq && o <= Ge }

// Unary is Op X.
type Unary struct {
	Op  Op
	X   Expr
	Pos Pos
}

// Binary is X Op Y. Y of a shift is any integer type (a negative count is
// the kernel's error); otherwise X and Y have the same type. Arithmetic on
// Vecs is lane-wise (both operands Vecs of the same type).
type Binary struct {
	Op   Op
	X, Y Expr
	Type Type // the result's type (Bool for comparisons)
	Pos  Pos
}

// Convert is To(X) between scalar types. F16 takes part only as a
// buffer's element (see Slice): Convert to F32 of an Index of such a buffer
// (a load, exact) and Convert from F32 to F16 as the Value stored into one
// (rounded to nearest, ties to even). Float to integer truncates toward
// zero; out of range or NaN saturates to the type's limits (NaN → 0), as
// WGSL and CUDA's conversions do (Go leaves it implementation-defined).
type Convert struct {
	To  Scalar
	X   Expr
	Pos Pos
}

// Call calls a helper function.
type Call struct {
	Func *Func
	Args []Expr
	Pos  Pos
}

// Builtin is one of the language's built-in functions.
type Builtin uint8

// The built-ins. The ids and sizes take no arguments and are U32.
const (
	BuiltinInvalid Builtin = iota
	ThreadX
	ThreadY
	ThreadZ
	ThreadIndex
	GroupX
	GroupY
	GroupZ
	GroupSizeX
	GroupSizeY
	GroupSizeZ
	GridX
	GridY
	GridZ
	GlobalX
	GlobalY
	GlobalZ
	// Math, on F32 or F64 (the type of the call and its arguments).
	Sqrt
	Rsqrt
	Exp
	Exp2
	Log
	Log2
	Sin
	Cos
	Tanh
	Pow // 2 args
	Floor
	Ceil
	Trunc
	Fma // 3 args: x*y + z rounded once
	// On every numeric scalar type.
	Abs
	Min   // 2 args (Go's min: for floats, NaN if either is NaN)
	Max   // 2 args
	Clamp // 3 args: min(max(x, lo), hi)
	// Bit casts.
	Float32Bits     // F32 → U32
	Float32FromBits // U32 → F32
	// Len is the length of an array (a constant; of arrays only).
	Len
	// Load4 is a 4-wide load: Args are a buffer Ref and an index in Vec units.
	Load4
	// Subgroup operations (kernel.Subgroup*), only in kernels, under control
	// flow uniform for the group (the front end checks it as for Barrier).
	// A subgroup is SubgroupSize consecutive threads by ThreadIndex. The
	// size and lane take no arguments and are U32; the others are of the
	// type of their first argument (I32, U32 or F32).
	SubgroupSize
	SubgroupInvocationID
	SubgroupAdd            // the sum over the subgroup (integers wrap)
	SubgroupMin            // as Min, over the subgroup
	SubgroupMax            // as Max, over the subgroup
	SubgroupShuffle        // 2 args: the value of lane Args[1] (U32)
	SubgroupShuffleXor     // 2 args: the value of lane SubgroupInvocationID ^ Args[1] (U32)
	SubgroupBroadcastFirst // the value of lane 0
	// PackHalvesBFloat16 and PackHalvesFloat16 are kernel.PackHalves(lo,
	// hi, p): 2 F32 args, a U32 result holding lo and hi rounded to
	// bfloat16 or float16 (nearest even; a NaN stays a NaN), lo in the low
	// 16 bits. opt.Portable rewrites them into helper calls.
	PackHalvesBFloat16
	PackHalvesFloat16
)

var builtinNames = [...]string{"invalid", "ThreadX", "ThreadY", "ThreadZ", "ThreadIndex", "GroupX", "GroupY",
	"GroupZ", "GroupSizeX", "GroupSizeY", "GroupSizeZ", "GridX", "GridY", "GridZ", "GlobalX", "GlobalY",
	"GlobalZ", "Sqrt", "Rsqrt", "Exp", "Exp2", "Log", "Log2", "Sin", "Cos", "Tanh", "Pow", "Floor", "Ceil",
	"Trunc", "Fma", "Abs", "Min", "Max", "Clamp", "Float32bits", "Float32frombits", "len", "Load4",
	"SubgroupSize", "SubgroupInvocationID", "SubgroupAdd", "SubgroupMin", "SubgroupMax", "SubgroupShuffle",
	"SubgroupShuffleXor", "SubgroupBroadcastFirst", "PackHalves", "PackHalves"}

// String is the built-in's name in package kernel (or Go's, for min, max and len).
func (b Builtin) String() string {
	if int(b) < len(builtinNames) {
		return builtinNames[b]
	}
	return "Builtin?"
}

// IsSubgroup reports whether b is a subgroup operation.
func (b Builtin) IsSubgroup() bool { return b >= SubgroupSize && b <= SubgroupBroadcastFirst }

// IsID reports whether b is a thread or group index or size.
func (b Builtin) IsID() bool { return b >= ThreadX && b <= GlobalZ }

// CallBuiltin calls a built-in.
type CallBuiltin struct {
	Builtin Builtin
	Args    []Expr
	Type    Type // the result's type
	Pos     Pos
}

// AtomicOp is an atomic read-modify-write.
type AtomicOp uint8

// The atomic operations. Each yields the old value.
const (
	AtomicInvalid AtomicOp = iota
	AtomicAdd
	AtomicMin
	AtomicMax
	AtomicAnd
	AtomicOr
	AtomicXor
	AtomicExchange
	AtomicCompareExchange // Args: compare, value
)

// Atomic applies Op to Place, an Index of a buffer or a shared array whose
// element is I32 or U32 (or F32 for AtomicAdd), and yields the old value.
type Atomic struct {
	Op    AtomicOp
	Place *Index
	Args  []Expr // the operand; for AtomicCompareExchange, the compare value then the new value
	Pos   Pos
}

func (e *Const) ExprType() Type       { return e.Type }
func (e *Ref) ExprType() Type         { return e.Var.Type }
func (e *Index) ExprType() Type       { return e.Type }
func (e *Lane) ExprType() Type        { return e.X.ExprType().(*Vec).Elem }
func (e *MakeVec) ExprType() Type     { return e.Type }
func (e *Unary) ExprType() Type       { return e.X.ExprType() }
func (e *Binary) ExprType() Type      { return e.Type }
func (e *Convert) ExprType() Type     { return e.To }
func (e *Call) ExprType() Type        { return e.Func.Result }
func (e *CallBuiltin) ExprType() Type { return e.Type }
func (e *Atomic) ExprType() Type      { return e.Place.Type }

func (e *Const) ExprPos() Pos       { return e.Pos }
func (e *Ref) ExprPos() Pos         { return e.Pos }
func (e *Index) ExprPos() Pos       { return e.Pos }
func (e *Lane) ExprPos() Pos        { return e.Pos }
func (e *MakeVec) ExprPos() Pos     { return e.Pos }
func (e *Unary) ExprPos() Pos       { return e.Pos }
func (e *Binary) ExprPos() Pos      { return e.Pos }
func (e *Convert) ExprPos() Pos     { return e.Pos }
func (e *Call) ExprPos() Pos        { return e.Pos }
func (e *CallBuiltin) ExprPos() Pos { return e.Pos }
func (e *Atomic) ExprPos() Pos      { return e.Pos }
