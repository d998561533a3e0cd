package gosrc

import (
	"fmt"
	"go/scanner"
	"go/token"
	"sort"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// Outlined windows: the loop of a windowed run (windows.go) becomes a
// function of its own, called once per strip with the windows and the
// strip's values it reads as arguments. In the strip function, among the
// strip's many live values, Go's register allocator leaves spill reloads in
// the loop; in a small function of its own the loop keeps its slices, its
// counter and its scalars in registers, as a hand-written Go loop over
// slices does. The function re-slices every window to the first one's
// length on entry, so that Go checks their bounds once, not per thread.
//
// A loop is outlined only where that cannot change its meaning: it reads
// the values around it but assigns none of them (the buffers' elements are
// shared through the slices), it leaves only its own loops (no return, no
// labelled break or continue, no goto), and every value it reads from
// around it has a type that a Go argument copies faithfully (a scalar, a
// Float4, a slice). Otherwise the loop stays where it is.

// outlinedName is the name of the strip function's n-th outlined loop.
func outlinedName(kernel string, n int) string { return fmt.Sprintf("%s_win%d", kernel, n) }

// stripScalars are the emitter's own strip-level values a windowed loop may
// read, with their Go types.
var stripScalars = map[string]string{
	"agS0": "uint32", "agS1": "uint32", nameSub: "uint32", "agTy": "uint32", "agTz": "uint32",
	"agGx": "uint32", "agGy": "uint32", "agGz": "uint32",
	"agSx": "uint32", "agSy": "uint32", "agSz": "uint32",
	"agNx": "uint32", "agNy": "uint32", "agNz": "uint32",
	"agOx": "uint32", "agOy": "uint32", "agOz": "uint32",
}

// outline returns the call that runs loop, the Go text of a windowed run's
// loop over the windows wins that runs the statements body, from a function
// of its own, which it records in f.outlined; ok is false, and nothing is
// recorded, where the loop must stay in place.
func (f *fn) outline(loop string, body []ir.Stmt, wins []*window) (call string, ok bool) {
	if f.outlinePrefix == "" || len(wins) == 0 || !assignsOnlyOwn(body) {
		return "", false
	}
	free, ok := freeNames(loop)
	if !ok {
		return "", false
	}
	byName := map[string]*ir.Var{}
	for v, n := range f.names {
		byName[n] = v
	}
	pkgLevel := map[string]bool{"backend": true, "bits": true}
	for n := range goReserved {
		pkgLevel[n] = n != "g" && n != "args"
	}
	for _, n := range f.e.funcNames {
		pkgLevel[n] = true
	}
	// The windows first, in order, then the other values by name.
	var params, args []string
	isWin := map[string]bool{}
	for _, win := range wins {
		t, err := f.e.goType(win.buf.Type, win.buf.Pos)
		if err != nil {
			return "", false
		}
		params = append(params, win.name+" "+t)
		args = append(args, win.name)
		isWin[win.name] = true
	}
	sort.Strings(free)
	for _, n := range free {
		if isWin[n] || pkgLevel[n] || f.e.prefix != "" && strings.HasPrefix(n, f.e.prefix+"_") {
			continue
		}
		t, ok := stripScalars[n]
		switch {
		case ok:
		case strings.HasPrefix(n, "agRcp_"):
			t = "uint64"
		case byName[n] != nil:
			v := byName[n]
			switch v.Type.(type) {
			case ir.Scalar, *ir.Vec, *ir.Slice:
			default:
				return "", false // an array would be copied
			}
			var err error
			if t, err = f.e.goType(v.Type, v.Pos); err != nil {
				return "", false
			}
		default:
			return "", false // a value this file does not know
		}
		params = append(params, n+" "+t)
		args = append(args, n)
	}
	name := outlinedName(f.outlinePrefix, len(f.outlined))
	var b strings.Builder
	fmt.Fprintf(&b, "// %s runs a windowed loop of %s_strips over a strip's threads.\n", name, f.outlinePrefix)
	fmt.Fprintf(&b, "//\n//go:noinline\nfunc %s(%s) {\n", name, strings.Join(params, ", "))
	for _, win := range wins[1:] {
		fmt.Fprintf(&b, "%s = %s[:len(%s)]\n", win.name, win.name, wins[0].name)
	}
	fmt.Fprintf(&b, "%s}\n\n", loop)
	f.outlined = append(f.outlined, b.String())
	return fmt.Sprintf("%s(%s)\n", name, strings.Join(args, ", ")), true
}

// assignsOnlyOwn reports whether the statements assign only locals they
// declare themselves, or elements of buffers.
func assignsOnlyOwn(stmts []ir.Stmt) bool {
	own := map[*ir.Var]bool{}
	ir.WalkStmts(stmts, func(s ir.Stmt) {
		if d, ok := s.(*ir.Decl); ok {
			own[d.Var] = true
		}
	}, nil)
	ok := true
	ir.WalkStmts(stmts, func(s ir.Stmt) {
		a, isAssign := s.(*ir.Assign)
		if !isAssign {
			return
		}
		place, viaIndex := a.Place, false
		for {
			switch p := place.(type) {
			case *ir.Index:
				place, viaIndex = p.X, true
				continue
			case *ir.Lane:
				place = p.X
				continue
			case *ir.Ref:
				if _, isBuf := p.Var.Type.(*ir.Slice); !own[p.Var] && !(isBuf && viaIndex) {
					ok = false
				}
			default:
				ok = false
			}
			break
		}
	}, nil)
	return ok
}

// freeNames returns the identifiers that the Go statements src reads without
// declaring them, other than selected fields and methods; ok is false where
// src could leave itself other than by its own loops (a return, a goto, a
// labelled break or continue), assigns an identifier it did not declare, or
// holds what this reading does not follow (a switch's cases, a function
// literal).
func freeNames(src string) (free []string, ok bool) {
	type tok struct {
		t   token.Token
		lit string
	}
	var toks []tok
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var s scanner.Scanner
	bad := false
	s.Init(file, []byte(src), func(token.Position, string) { bad = true }, 0)
	for {
		_, t, lit := s.Scan()
		if t == token.EOF {
			break
		}
		toks = append(toks, tok{t, lit})
	}
	if bad {
		return nil, false
	}
	declared := map[string]bool{}
	for i, k := range toks {
		switch k.t {
		case token.RETURN, token.GOTO, token.CASE, token.DEFAULT, token.FUNC:
			return nil, false
		case token.BREAK, token.CONTINUE:
			if i+1 < len(toks) && toks[i+1].t == token.IDENT {
				return nil, false
			}
		case token.VAR:
			if i+1 < len(toks) && toks[i+1].t == token.IDENT {
				declared[toks[i+1].lit] = true
			}
		case token.DEFINE:
			for j := i - 1; j >= 0 && toks[j].t == token.IDENT; j -= 2 {
				declared[toks[j].lit] = true
				if j == 0 || toks[j-1].t != token.COMMA {
					break
				}
			}
		}
	}
	seen := map[string]bool{}
	var open []token.Token // the brackets open at the token
	for i, k := range toks {
		switch k.t {
		case token.LBRACK, token.LBRACE, token.LPAREN:
			open = append(open, k.t)
		case token.RBRACK, token.RBRACE, token.RPAREN:
			if len(open) == 0 {
				return nil, false
			}
			open = open[:len(open)-1]
		}
		if k.t != token.IDENT || k.lit == "_" || declared[k.lit] || i > 0 && toks[i-1].t == token.PERIOD {
			continue
		}
		inSlice := len(open) > 0 && open[len(open)-1] == token.LBRACK
		if i+1 < len(toks) && toks[i+1].t == token.COLON && !inSlice {
			continue // a composite literal's key, or a label
		}
		atStart := i == 0 || toks[i-1].t == token.SEMICOLON || toks[i-1].t == token.LBRACE
		if atStart && i+1 < len(toks) && (assigns(toks[i+1].t) || toks[i+1].t == token.COMMA) {
			return nil, false // a statement that assigns it
		}
		if !seen[k.lit] {
			seen[k.lit] = true
			free = append(free, k.lit)
		}
	}
	return free, true
}

// assigns reports whether t, after an identifier, assigns it.
func assigns(t token.Token) bool {
	switch t {
	case token.ASSIGN, token.INC, token.DEC,
		token.ADD_ASSIGN, token.SUB_ASSIGN, token.MUL_ASSIGN, token.QUO_ASSIGN, token.REM_ASSIGN,
		token.AND_ASSIGN, token.OR_ASSIGN, token.XOR_ASSIGN, token.SHL_ASSIGN, token.SHR_ASSIGN,
		token.AND_NOT_ASSIGN:
		return true
	}
	return false
}
