// Package front is the front end of the kernel language: it parses and
// type-checks Go source (go/parser, go/types), checks that every function
// marked //gpu:kernel and every helper it calls stays inside the language
// (kernel/doc.go), and lowers them to the typed IR of kernel/internal/ir,
// establishing every invariant listed in that package's doc.
//
// Everything the language forbids is an Error at the file:line:col of the Go
// source, saying what is not allowed and what to write instead. Load also
// checks that every Barrier is reached by all threads of a group or by none
// (uniform.go).
package front

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// File is one Go source file of a package.
type File struct{ Name, Src string }

// Error is one translation error at a position of the Go source: what is not
// allowed (Msg) and what to write instead (Hint, possibly empty).
type Error struct {
	Pos       ir.Pos
	Msg, Hint string
}

// Error is "file:line:col: msg; hint".
func (e *Error) Error() string {
	if e.Hint == "" {
		return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
	}
	return fmt.Sprintf("%s: %s; %s", e.Pos, e.Msg, e.Hint)
}

// ErrorList is every error found, sorted by position.
type ErrorList []*Error

// Error is the errors, one per line.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the errors, for errors.As and errors.Is.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// sortErrors orders the list by position, then message, and drops duplicates.
func sortErrors(l ErrorList) ErrorList {
	slices.SortStableFunc(l, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Col, b.Pos.Col), cmp.Compare(a.Msg, b.Msg))
	})
	return slices.CompactFunc(l, func(a, b *Error) bool { return *a == *b })
}

// Load parses and type-checks the files (one Go package), and lowers every
// function marked with the directive comment //gpu:kernel, and the helper
// functions they call, to IR. The error is an ErrorList.
func Load(files []File) (*ir.Module, error) {
	l := newLoader()
	m := l.load(files)
	if len(l.errs) > 0 {
		return nil, sortErrors(l.errs)
	}
	return m, nil
}
