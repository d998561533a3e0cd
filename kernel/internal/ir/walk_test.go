package ir

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWalkOrder(t *testing.T) {
	v := &Var{Name: "v", Type: U32}
	ref := &Ref{Var: v}
	one := &Const{Type: U32, Uint: 1}
	sum := &Binary{Op: Add, X: ref, Y: one, Type: U32}
	loop := &For{
		Init: &Decl{Var: v, Init: one},
		Cond: &Binary{Op: Lt, X: ref, Y: one, Type: Bool},
		Post: &Assign{Place: ref, Value: sum},
		Body: []Stmt{&If{Cond: &Binary{Op: Eq, X: ref, Y: one, Type: Bool}, Then: []Stmt{&Break{}}}},
	}
	var stmts, exprs []string
	WalkStmts([]Stmt{loop, nil, &Barrier{}}, func(s Stmt) { stmts = append(stmts, fmt.Sprintf("%T", s)) },
		func(e Expr) { exprs = append(exprs, fmt.Sprintf("%T", e)) })
	assert.Equal(t, []string{"*ir.For", "*ir.Decl", "*ir.Assign", "*ir.If", "*ir.Break", "*ir.Barrier"}, stmts)
	assert.Equal(t, []string{
		"*ir.Const",                          // Init
		"*ir.Binary", "*ir.Ref", "*ir.Const", // Cond
		"*ir.Ref", "*ir.Binary", "*ir.Ref", "*ir.Const", // Post
		"*ir.Binary", "*ir.Ref", "*ir.Const", // the If's Cond
	}, exprs)

	// Nil functions, nil pointers and nil interfaces are fine.
	WalkStmts([]Stmt{loop, (*Decl)(nil)}, nil, nil)
	WalkExpr((*Ref)(nil), func(Expr) { t.Fatal("called for a nil Ref") })
}
