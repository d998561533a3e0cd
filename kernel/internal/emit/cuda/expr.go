package cuda

import (
	"strconv"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// Every expression is spelled either as a postfix expression (a name, an
// index, a call, a member) or fully parenthesised, so that it can stand as
// any operand without precedence questions.

// expr spells x.
func (fe *funcEmitter) expr(x ir.Expr) (string, error) {
	switch x := x.(type) {
	case *ir.Const:
		return constant(x)
	case *ir.Ref:
		return fe.ref(x)
	case *ir.Index:
		return fe.index(x)
	case *ir.Lane:
		return fe.lane(x)
	case *ir.MakeVec:
		return fe.makeVec(x)
	case *ir.Unary:
		return fe.unary(x)
	case *ir.Binary:
		return fe.binary(x)
	case *ir.Convert:
		return fe.convert(x)
	case *ir.Call:
		return fe.call(x)
	case *ir.CallBuiltin:
		return fe.builtin(x)
	case *ir.Atomic:
		return fe.atomic(x)
	case nil:
		return "", malformed(fe.f.Pos, "missing expression in %s", fe.f.Name)
	}
	return "", malformed(x.ExprPos(), "expression %T", x)
}

// exprs spells xs.
func (fe *funcEmitter) exprs(xs []ir.Expr) ([]string, error) {
	out := make([]string, len(xs))
	for i, x := range xs {
		s, err := fe.expr(x)
		if err != nil {
			return nil, err
		}
		out[i] = bare(s)
	}
	return out, nil
}

// scalarOf is x's type, which must be a scalar.
func scalarOf(x ir.Expr) (ir.Scalar, error) {
	if s, ok := x.ExprType().(ir.Scalar); ok {
		return s, nil
	}
	return ir.Invalid, malformed(x.ExprPos(), "%T operand where a scalar belongs", x.ExprType())
}

func (fe *funcEmitter) ref(x *ir.Ref) (string, error) {
	if x.Var == nil {
		return "", malformed(x.Pos, "reference to no variable")
	}
	name, ok := fe.names[x.Var]
	if !ok {
		return "", malformed(x.Pos, "%s is used before its declaration", x.Var.Name)
	}
	if _, err := checkType(x.Var.Type, x.Pos); err != nil {
		return "", err
	}
	return name, nil
}

// checkType rejects float16 anywhere in t but a buffer's element.
func checkType(t ir.Type, pos ir.Pos) (ir.Type, error) {
	if _, ok := t.(*ir.Slice); !ok && ir.ElemScalar(t) == ir.F16 {
		return t, errFloat16(pos)
	}
	return t, nil
}

func (fe *funcEmitter) index(x *ir.Index) (string, error) {
	switch x.X.ExprType().(type) {
	case *ir.Slice, *ir.Array:
	default:
		return "", malformed(x.Pos, "index of a %T", x.X.ExprType())
	}
	if _, isBuffer := x.X.ExprType().(*ir.Slice); !isBuffer {
		if _, err := checkType(x.Type, x.Pos); err != nil {
			return "", err
		}
	}
	base, err := fe.expr(x.X)
	if err != nil {
		return "", err
	}
	if t, err := scalarOf(x.Index); err != nil || !t.IsInt() {
		return "", malformed(x.Pos, "index of type %v", x.Index.ExprType())
	}
	i, err := fe.expr(x.Index)
	if err != nil {
		return "", err
	}
	return base + "[" + bare(i) + "]", nil
}

// laneNames are the members of a float4.
var laneNames = [...]string{"x", "y", "z", "w"}

func (fe *funcEmitter) lane(x *ir.Lane) (string, error) {
	if !isFloat4(x.X.ExprType()) {
		return "", malformed(x.Pos, "lane of a %T", x.X.ExprType())
	}
	if x.N < 0 || x.N >= len(laneNames) {
		return "", malformed(x.Pos, "lane %d of a Float4", x.N)
	}
	v, err := fe.expr(x.X)
	if err != nil {
		return "", err
	}
	return v + "." + laneNames[x.N], nil
}

func (fe *funcEmitter) makeVec(x *ir.MakeVec) (string, error) {
	if !isFloat4(x.Type) || len(x.Elems) != 4 {
		_, err := typeName(x.Type, x.Pos)
		if err == nil {
			err = malformed(x.Pos, "Float4 of %d lanes", len(x.Elems))
		}
		return "", err
	}
	lanes, err := fe.exprs(x.Elems)
	if err != nil {
		return "", err
	}
	return "make_float4(" + strings.Join(lanes, ", ") + ")", nil
}

func (fe *funcEmitter) unary(x *ir.Unary) (string, error) {
	v, err := fe.expr(x.X)
	if err != nil {
		return "", err
	}
	if isFloat4(x.X.ExprType()) && x.Op == ir.Neg {
		h, err := fe.helper("neg_f4", x.Pos)
		return h + "(" + v + ")", err
	}
	t, err := scalarOf(x.X)
	if err != nil {
		return "", err
	}
	switch {
	case x.Op == ir.Neg && t.IsSigned():
		u := scalarNames[unsignedOf[t]]
		return "((" + scalarNames[t] + ")((" + u + ")0 - (" + u + ")" + v + "))", nil
	case x.Op == ir.Neg && (t.IsFloat() || t.IsInt()):
		return "(-" + v + ")", nil // unsigned negation wraps in C++ too
	case x.Op == ir.Not && t == ir.Bool:
		return "(!" + v + ")", nil
	case x.Op == ir.BitNot && t.IsInt():
		return "(~" + v + ")", nil
	}
	return "", malformed(x.Pos, "unary %v on %v", x.Op, t)
}

// infix are the binary operators C++ spells as Go does, with Go's meaning
// on the types binary lets them through.
var infix = map[ir.Op]string{
	ir.Add: "+", ir.Sub: "-", ir.Mul: "*", ir.Div: "/",
	ir.And: "&", ir.Or: "|", ir.Xor: "^",
	ir.Eq: "==", ir.Ne: "!=", ir.Lt: "<", ir.Le: "<=", ir.Gt: ">", ir.Ge: ">=",
	ir.LAnd: "&&", ir.LOr: "||",
}

// vecHelpers are the Float4 operators' helpers.
var vecHelpers = map[ir.Op]string{ir.Add: "add_f4", ir.Sub: "sub_f4", ir.Mul: "mul_f4", ir.Div: "div_f4", ir.Eq: "eq_f4", ir.Ne: "eq_f4"}

func (fe *funcEmitter) binary(x *ir.Binary) (string, error) {
	a, err := fe.expr(x.X)
	if err != nil {
		return "", err
	}
	b, err := fe.expr(x.Y)
	if err != nil {
		return "", err
	}
	if isFloat4(x.X.ExprType()) {
		name, ok := vecHelpers[x.Op]
		if !ok || !isFloat4(x.Y.ExprType()) {
			return "", malformed(x.Pos, "operator %v on Float4", x.Op)
		}
		h, err := fe.helper(name, x.Pos)
		s := h + "(" + a + ", " + b + ")"
		if x.Op == ir.Ne {
			s = "(!" + s + ")"
		}
		return s, err
	}
	t, err := scalarOf(x.X)
	if err != nil {
		return "", err
	}
	if x.Op == ir.Shl || x.Op == ir.Shr {
		return fe.shift(x, t, a, b)
	}
	if y, err := scalarOf(x.Y); err != nil || y != t {
		return "", malformed(x.Pos, "operator %v on %v and %v", x.Op, t, x.Y.ExprType())
	}
	switch {
	case x.Op.IsCompare():
		return "(" + a + " " + infix[x.Op] + " " + b + ")", nil
	case t == ir.Bool:
		if x.Op == ir.LAnd || x.Op == ir.LOr {
			return "(" + a + " " + infix[x.Op] + " " + b + ")", nil
		}
	case t.IsFloat():
		switch x.Op {
		case ir.Add, ir.Sub, ir.Mul, ir.Div:
			return "(" + a + " " + infix[x.Op] + " " + b + ")", nil
		}
	case t.IsInt():
		switch x.Op {
		case ir.Add, ir.Sub, ir.Mul:
			if t.IsSigned() { // in the unsigned type: signed overflow is undefined in C++
				return "((" + scalarNames[t] + ")(" + unsigned(x.X, a, t) + " " + infix[x.Op] + " " + unsigned(x.Y, b, t) + "))", nil
			}
			return "(" + a + " " + infix[x.Op] + " " + b + ")", nil
		case ir.Div, ir.Rem:
			if safeDivisor(x.Y) {
				op := "/"
				if x.Op == ir.Rem {
					op = "%"
				}
				return "(" + a + " " + op + " " + b + ")", nil
			}
			name := "div_"
			if x.Op == ir.Rem {
				name = "rem_"
			}
			h, err := fe.helper(name+suffixes[t], x.Pos)
			return h + "(" + a + ", " + b + ")", err
		case ir.And, ir.Or, ir.Xor:
			return "(" + a + " " + infix[x.Op] + " " + b + ")", nil
		case ir.AndNot:
			return "(" + a + " & ~" + b + ")", nil
		}
	}
	return "", malformed(x.Pos, "operator %v on %v", x.Op, t)
}

// safeDivisor reports whether y is a constant divisor by which C++'s / and %
// are Go's: not 0 (Go: x/0 == x, x%0 == 0), and not -1 (Go: the most negative
// value / -1 wraps; C++ leaves it undefined). C++ truncates toward zero and
// gives the remainder the dividend's sign, as Go.
func safeDivisor(y ir.Expr) bool {
	k, ok := y.(*ir.Const)
	if !ok {
		return false
	}
	switch k.Type {
	case ir.I32, ir.I64:
		return k.Int != 0 && k.Int != -1
	case ir.U32, ir.U64:
		return k.Uint != 0
	}
	return false
}

// shift spells a << b or a >> b with Go's meaning for counts of the width
// or more.
func (fe *funcEmitter) shift(x *ir.Binary, t ir.Scalar, a, b string) (string, error) {
	n, err := scalarOf(x.Y)
	if err != nil || !t.IsInt() || !n.IsInt() {
		return "", malformed(x.Pos, "shift of %v by %v", x.X.ExprType(), x.Y.ExprType())
	}
	if c, ok := x.Y.(*ir.Const); ok && n != ir.U64 {
		b = strconv.FormatUint(c.Uint, 10) + "ull" // a constant count is never negative
		if n.IsSigned() {
			b = strconv.FormatInt(c.Int, 10) + "ull"
		}
	} else if n != ir.U64 {
		b = "(unsigned long long)" + b
	}
	name := "shl_"
	if x.Op == ir.Shr {
		name = "shr_"
	}
	h, err := fe.helper(name+suffixes[t], x.Pos)
	return h + "(" + a + ", " + b + ")", err
}

func (fe *funcEmitter) convert(x *ir.Convert) (string, error) {
	from, err := scalarOf(x.X)
	if err != nil {
		return "", err
	}
	v, err := fe.expr(x.X)
	if err != nil {
		return "", err
	}
	switch { // float16: a buffer element's load and store (see float16 in helpers.go)
	case from == ir.F16 && x.To == ir.F32:
		h, err := fe.helper("h2f", x.Pos)
		return h + "(" + bare(v) + ")", err
	case from == ir.F32 && x.To == ir.F16:
		h, err := fe.helper("f2h", x.Pos)
		return h + "(" + bare(v) + ")", err
	case from == ir.F16 || x.To == ir.F16:
		return "", errFloat16(x.Pos)
	}
	to, ok := scalarNames[x.To]
	switch {
	case !ok:
		return "", malformed(x.Pos, "conversion to %v", x.To)
	case from == x.To:
		return v, nil
	case from == ir.Bool || x.To == ir.Bool:
		return "", malformed(x.Pos, "conversion from %v to %v", from, x.To)
	case from.IsFloat() && x.To.IsInt():
		h, err := fe.helper("cvt_"+suffixes[from]+"_"+suffixes[x.To], x.Pos)
		return h + "(" + v + ")", err
	}
	// Integer to integer wraps (two's complement); to float rounds to nearest.
	return "((" + to + ")" + v + ")", nil
}

func (fe *funcEmitter) call(x *ir.Call) (string, error) {
	if x.Func == nil || x.Func.Kernel {
		return "", malformed(x.Pos, "call of a kernel or of no function")
	}
	name, ok := fe.funcNames[x.Func]
	if !ok {
		return "", malformed(x.Pos, "call of %s, which is not in the module", x.Func.Name)
	}
	if len(x.Args) != len(x.Func.Params) {
		return "", malformed(x.Pos, "call of %s with %d arguments for %d parameters", x.Func.Name, len(x.Args), len(x.Func.Params))
	}
	args, err := fe.exprs(x.Args)
	if err != nil {
		return "", err
	}
	return name + "(" + strings.Join(args, ", ") + ")", nil
}

// atomicFuncs are the CUDA functions of the atomic operations.
var atomicFuncs = map[ir.AtomicOp]string{
	ir.AtomicAdd: "atomicAdd", ir.AtomicMin: "atomicMin", ir.AtomicMax: "atomicMax",
	ir.AtomicAnd: "atomicAnd", ir.AtomicOr: "atomicOr", ir.AtomicXor: "atomicXor",
	ir.AtomicExchange: "atomicExch", ir.AtomicCompareExchange: "atomicCAS",
}

func (fe *funcEmitter) atomic(x *ir.Atomic) (string, error) {
	name, ok := atomicFuncs[x.Op]
	if !ok || x.Place == nil {
		return "", malformed(x.Pos, "atomic operation %d", x.Op)
	}
	want := 1
	if x.Op == ir.AtomicCompareExchange {
		want = 2
	}
	if len(x.Args) != want {
		return "", malformed(x.Pos, "%s with %d operands", name, len(x.Args))
	}
	switch x.Place.Type {
	case ir.I32, ir.U32:
	case ir.F32:
		if x.Op != ir.AtomicAdd {
			return "", malformed(x.Pos, "%s on float32", name)
		}
	default:
		return "", notSupported(x.Pos, "use an int32 or uint32 element", "atomics on %v are not supported", x.Place.Type)
	}
	place, err := fe.index(x.Place)
	if err != nil {
		return "", err
	}
	args, err := fe.exprs(x.Args)
	if err != nil {
		return "", err
	}
	return name + "(&" + place + ", " + strings.Join(args, ", ") + ")", nil
}

// ids are the thread and group indices and sizes.
var ids = map[ir.Builtin]string{
	ir.ThreadX: "threadIdx.x", ir.ThreadY: "threadIdx.y", ir.ThreadZ: "threadIdx.z",
	ir.GroupX: "blockIdx.x", ir.GroupY: "blockIdx.y", ir.GroupZ: "blockIdx.z",
	ir.GroupSizeX: "blockDim.x", ir.GroupSizeY: "blockDim.y", ir.GroupSizeZ: "blockDim.z",
	ir.GridX: "gridDim.x", ir.GridY: "gridDim.y", ir.GridZ: "gridDim.z",
	ir.GlobalX: "(blockIdx.x * blockDim.x + threadIdx.x)",
	ir.GlobalY: "(blockIdx.y * blockDim.y + threadIdx.y)",
	ir.GlobalZ: "(blockIdx.z * blockDim.z + threadIdx.z)",
	// x fastest: ThreadX + GroupSizeX*(ThreadY + GroupSizeY*ThreadZ).
	ir.ThreadIndex: "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))",
}

// mathFuncs are the CUDA functions of the math built-ins on float32; the
// float64 ones drop the f.
var mathFuncs = map[ir.Builtin]string{
	ir.Sqrt: "sqrtf", ir.Rsqrt: "rsqrtf", ir.Exp: "expf", ir.Exp2: "exp2f", ir.Log: "logf",
	ir.Log2: "log2f", ir.Sin: "sinf", ir.Cos: "cosf", ir.Tanh: "tanhf", ir.Pow: "powf",
	ir.Floor: "floorf", ir.Ceil: "ceilf", ir.Trunc: "truncf", ir.Fma: "fmaf",
}

// arity is the number of arguments of the built-ins that take any.
var arity = map[ir.Builtin]int{
	ir.Pow: 2, ir.Fma: 3, ir.Min: 2, ir.Max: 2, ir.Clamp: 3, ir.Len: 1, ir.Load4: 2,
	ir.SubgroupShuffle: 2, ir.SubgroupShuffleXor: 2, ir.PackHalvesBFloat16: 2, ir.PackHalvesFloat16: 2,
}

func (fe *funcEmitter) builtin(x *ir.CallBuiltin) (string, error) {
	want, ok := arity[x.Builtin]
	if !ok {
		want = 1
		if x.Builtin.IsID() || x.Builtin == ir.SubgroupSize || x.Builtin == ir.SubgroupInvocationID {
			want = 0
		}
	}
	if len(x.Args) != want {
		return "", malformed(x.Pos, "%v with %d arguments", x.Builtin, len(x.Args))
	}
	if x.Builtin.IsID() {
		return ids[x.Builtin], nil
	}
	if x.Builtin.IsSubgroup() {
		return fe.subgroup(x)
	}
	switch x.Builtin {
	case ir.Len:
		a, ok := x.Args[0].ExprType().(*ir.Array)
		t, isScalar := x.Type.(ir.Scalar)
		if !ok || !isScalar || !t.IsInt() {
			return "", malformed(x.Pos, "len of a %T as %v", x.Args[0].ExprType(), x.Type)
		}
		c := &ir.Const{Type: t, Int: int64(a.Len), Uint: uint64(a.Len), Pos: x.Pos}
		return constant(c)
	case ir.Load4:
		s, ok := x.Args[0].(*ir.Ref)
		if !ok || s.Var == nil || !isFloat4(x.Type) {
			return "", malformed(x.Pos, "Load4 of a %T", x.Args[0])
		}
		if sl, ok := s.Var.Type.(*ir.Slice); !ok || sl.Elem != ir.F32 {
			return "", malformed(x.Pos, "Load4 of a %T", s.Var.Type)
		}
		args, err := fe.exprs(x.Args)
		if err != nil {
			return "", err
		}
		return "reinterpret_cast<const float4*>(" + args[0] + ")[" + args[1] + "]", nil
	}
	t, ok := x.Type.(ir.Scalar)
	if !ok {
		return "", malformed(x.Pos, "%v of type %T", x.Builtin, x.Type)
	}
	if t == ir.F16 {
		return "", errFloat16(x.Pos)
	}
	args, err := fe.exprs(x.Args)
	if err != nil {
		return "", err
	}
	list := strings.Join(args, ", ")
	switch x.Builtin {
	case ir.PackHalvesBFloat16, ir.PackHalvesFloat16:
		return fe.packHalves(x, args)
	case ir.Float32Bits:
		return "__float_as_uint(" + list + ")", nil
	case ir.Float32FromBits:
		return "__uint_as_float(" + list + ")", nil
	case ir.Abs:
		switch {
		case t == ir.F32:
			return "fabsf(" + list + ")", nil
		case t == ir.F64:
			return "fabs(" + list + ")", nil
		case t.IsSigned():
			h, err := fe.helper("abs_"+suffixes[t], x.Pos)
			return h + "(" + list + ")", err
		case t.IsInt():
			return list, nil
		}
	case ir.Min, ir.Max:
		h, err := fe.helper(strings.ToLower(x.Builtin.String())+"_"+suffixes[t], x.Pos)
		return h + "(" + list + ")", err
	case ir.Clamp:
		lo, err := fe.helper("max_"+suffixes[t], x.Pos)
		if err != nil {
			return "", err
		}
		hi, err := fe.helper("min_"+suffixes[t], x.Pos)
		return hi + "(" + lo + "(" + args[0] + ", " + args[1] + "), " + args[2] + ")", err
	default:
		name, ok := mathFuncs[x.Builtin]
		if !ok || !t.IsFloat() {
			break
		}
		if t == ir.F64 {
			name = strings.TrimSuffix(name, "f")
		}
		return name + "(" + list + ")", nil
	}
	return "", malformed(x.Pos, "%v on %v", x.Builtin, t)
}

// itoa is strconv.Itoa, short for the statements' made-up names.
var itoa = strconv.Itoa

// bare drops the parentheses around a whole expression, where its context
// delimits it anyway (a statement, a condition, an index, an argument).
func bare(s string) string {
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") {
		return s
	}
	depth := 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(s)-1 {
				return s // the first parenthesis closes before the end: "(a) + (b)"
			}
		}
	}
	return s[1 : len(s)-1]
}

// unsigned spells x (spelled s, of signed type t) converted to t's unsigned
// type: a non-negative constant as an unsigned literal, else a cast.
func unsigned(x ir.Expr, s string, t ir.Scalar) string {
	if c, ok := x.(*ir.Const); ok && c.Int >= 0 {
		if t == ir.I64 {
			return strconv.FormatInt(c.Int, 10) + "ull"
		}
		return strconv.FormatInt(c.Int, 10) + "u"
	}
	return "(" + scalarNames[unsignedOf[t]] + ")" + s
}
