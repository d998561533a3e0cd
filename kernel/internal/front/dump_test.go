package front

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// dump renders a function's IR in a compact Go-like text for tests: every
// constant carries its type, conversions and built-ins are spelled out.
func dump(fn *ir.Func) string {
	var b strings.Builder
	kind := "func"
	if fn.Kernel {
		kind = "kernel"
	}
	var ps []string
	for _, p := range fn.Params {
		ps = append(ps, p.Name+" "+typeString(p.Type))
	}
	fmt.Fprintf(&b, "%s %s(%s)", kind, fn.Name, strings.Join(ps, ", "))
	if fn.Result != nil {
		fmt.Fprintf(&b, " %s", typeString(fn.Result))
	}
	b.WriteString("\n")
	for _, v := range fn.Shared {
		fmt.Fprintf(&b, "shared %s %s\n", v.Name, typeString(v.Type))
	}
	dumpStmts(&b, fn.Body, 1)
	return b.String()
}

func typeString(t ir.Type) string {
	switch t := t.(type) {
	case ir.Scalar:
		return t.String()
	case *ir.Vec:
		return fmt.Sprintf("vec%d<%s>", t.N, t.Elem)
	case *ir.Array:
		return fmt.Sprintf("[%d]%s", t.Len, typeString(t.Elem))
	case *ir.Slice:
		return "[]" + t.Elem.String()
	}
	return "?"
}

func dumpStmts(b *strings.Builder, list []ir.Stmt, depth int) {
	for _, s := range list {
		dumpStmt(b, s, depth)
	}
}

func dumpStmt(b *strings.Builder, s ir.Stmt, depth int) {
	ind := strings.Repeat("\t", depth)
	switch s := s.(type) {
	case *ir.Decl:
		if s.Init == nil {
			fmt.Fprintf(b, "%svar %s %s\n", ind, s.Var.Name, typeString(s.Var.Type))
		} else {
			fmt.Fprintf(b, "%svar %s %s = %s\n", ind, s.Var.Name, typeString(s.Var.Type), exprString(s.Init))
		}
	case *ir.Assign:
		fmt.Fprintf(b, "%s%s = %s\n", ind, exprString(s.Place), exprString(s.Value))
	case *ir.ExprStmt:
		fmt.Fprintf(b, "%s%s\n", ind, exprString(s.X))
	case *ir.If:
		fmt.Fprintf(b, "%sif %s {\n", ind, exprString(s.Cond))
		dumpStmts(b, s.Then, depth+1)
		if len(s.Else) > 0 {
			fmt.Fprintf(b, "%s} else {\n", ind)
			dumpStmts(b, s.Else, depth+1)
		}
		fmt.Fprintf(b, "%s}\n", ind)
	case *ir.For:
		fmt.Fprintf(b, "%sfor %s; %s; %s {\n", ind, inlineStmt(s.Init), exprOrEmpty(s.Cond), inlineStmt(s.Post))
		dumpStmts(b, s.Body, depth+1)
		fmt.Fprintf(b, "%s}\n", ind)
	case *ir.Break:
		fmt.Fprintf(b, "%sbreak\n", ind)
	case *ir.Continue:
		fmt.Fprintf(b, "%scontinue\n", ind)
	case *ir.Return:
		if s.Value == nil {
			fmt.Fprintf(b, "%sreturn\n", ind)
		} else {
			fmt.Fprintf(b, "%sreturn %s\n", ind, exprString(s.Value))
		}
	case *ir.Barrier:
		fmt.Fprintf(b, "%sBarrier()\n", ind)
	case *ir.Store4:
		fmt.Fprintf(b, "%sStore4(%s, %s, %s)\n", ind, exprString(s.Buf), exprString(s.Index), exprString(s.Value))
	case *ir.Block:
		fmt.Fprintf(b, "%s{\n", ind)
		dumpStmts(b, s.Body, depth+1)
		fmt.Fprintf(b, "%s}\n", ind)
	default:
		fmt.Fprintf(b, "%s?%T\n", ind, s)
	}
}

func inlineStmt(s ir.Stmt) string {
	if s == nil {
		return ""
	}
	var b strings.Builder
	dumpStmt(&b, s, 0)
	return strings.TrimSuffix(b.String(), "\n")
}

func exprOrEmpty(e ir.Expr) string {
	if e == nil {
		return ""
	}
	return exprString(e)
}

var atomicNames = map[ir.AtomicOp]string{ir.AtomicAdd: "AtomicAdd", ir.AtomicMin: "AtomicMin", ir.AtomicMax: "AtomicMax",
	ir.AtomicAnd: "AtomicAnd", ir.AtomicOr: "AtomicOr", ir.AtomicXor: "AtomicXor", ir.AtomicExchange: "AtomicExchange",
	ir.AtomicCompareExchange: "AtomicCompareExchange"}

func exprString(e ir.Expr) string {
	switch e := e.(type) {
	case *ir.Const:
		var v string
		switch {
		case e.Type == ir.Bool:
			v = strconv.FormatBool(e.Bool)
		case e.Type.IsSigned():
			v = strconv.FormatInt(e.Int, 10)
		case e.Type.IsInt():
			v = strconv.FormatUint(e.Uint, 10)
		default:
			v = strconv.FormatFloat(e.Float, 'g', -1, 64)
		}
		return v + ":" + e.Type.String()
	case *ir.Ref:
		return e.Var.Name
	case *ir.Index:
		return exprString(e.X) + "[" + exprString(e.Index) + "]"
	case *ir.Lane:
		return exprString(e.X) + "." + string("XYZW"[e.N])
	case *ir.MakeVec:
		return typeString(e.Type) + "{" + exprList(e.Elems) + "}"
	case *ir.Unary:
		return "(" + e.Op.String() + exprString(e.X) + ")"
	case *ir.Binary:
		return "(" + exprString(e.X) + " " + e.Op.String() + " " + exprString(e.Y) + ")"
	case *ir.Convert:
		return e.To.String() + "(" + exprString(e.X) + ")"
	case *ir.Call:
		return e.Func.Name + "(" + exprList(e.Args) + ")"
	case *ir.CallBuiltin:
		return e.Builtin.String() + "(" + exprList(e.Args) + ")"
	case *ir.Atomic:
		return atomicNames[e.Op] + "(&" + exprString(e.Place) + ", " + exprList(e.Args) + ")"
	}
	return fmt.Sprintf("?%T", e)
}

func exprList(list []ir.Expr) string {
	s := make([]string, len(list))
	for i, e := range list {
		s[i] = exprString(e)
	}
	return strings.Join(s, ", ")
}
