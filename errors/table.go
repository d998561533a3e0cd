package errors

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
)

// Code describes one native result code (a CUresult, an nvrtcResult, ...) and
// what anygpu makes of it. A Code whose Category is None is a success code:
// converting it to an error gives nil.
type Code struct {
	Name      string   // symbolic name from the native header: "CUDA_ERROR_OUT_OF_MEMORY"
	Value     int64    // numeric value
	Category  Category // kind of failure; None for success codes
	Retryable bool     // the same call may succeed later
	Fatal     bool     // the context or device is unusable afterwards (sticky error)
	Msg       string   // short lower-case description: "out of memory"
	Hint      string   // what to do about it, written for anygpu
}

// IsSuccess reports whether c is a success code (Category None).
func (c Code) IsSuccess() bool { return c.Category == None }

// String returns the symbolic name.
func (c Code) String() string { return c.Name }

// CodeTable maps the values of one native result type to Codes. Every native
// API gets one, declared next to its data — here for CUDA and NVRTC, in the
// backend's own package for the others:
//
//	var vkResults = errors.NewCodeTable("vulkan", "VkResult", "VK_ERROR_UNKNOWN_CODE_", []errors.Code{...})
//
//	func check(r int32, op string) error { return vkResults.Err(int64(r), op) }
type CodeTable struct {
	backend       string // Error.Backend of the errors it makes: "cuda"
	typeName      string // native type, used in messages: "CUresult"
	unknownPrefix string // Name of an unlisted value is unknownPrefix + value
	codes         []Code // sorted by Value
	index         map[int64]int
}

// NewCodeTable builds a table from codes (in any order) for errors whose
// Backend is backend. It panics on an empty or duplicate name or a duplicate
// value: tables are package-level literals, so that is a programming error
// caught by any test of the package that declares one.
func NewCodeTable(backend, typeName, unknownPrefix string, codes []Code) *CodeTable {
	t := &CodeTable{
		backend:       backend,
		typeName:      typeName,
		unknownPrefix: unknownPrefix,
		codes:         slices.Clone(codes),
		index:         make(map[int64]int, len(codes)),
	}
	slices.SortFunc(t.codes, func(a, b Code) int { return cmp.Compare(a.Value, b.Value) })
	names := make(map[string]bool, len(codes))
	for i, c := range t.codes {
		if c.Name == "" {
			panic(fmt.Sprintf("errors: %s table: value %d has no name", typeName, c.Value))
		}
		if names[c.Name] {
			panic(fmt.Sprintf("errors: %s table: duplicate name %s", typeName, c.Name))
		}
		if _, dup := t.index[c.Value]; dup {
			panic(fmt.Sprintf("errors: %s table: duplicate value %d", typeName, c.Value))
		}
		names[c.Name] = true
		t.index[c.Value] = i
	}
	return t
}

// Lookup returns the Code of value v.
func (t *CodeTable) Lookup(v int64) (Code, bool) {
	i, ok := t.index[v]
	if !ok {
		return Code{}, false
	}
	return t.codes[i], true
}

// Codes returns a copy of every Code, sorted by value.
func (t *CodeTable) Codes() []Code { return slices.Clone(t.codes) }

// unknown describes a value missing from the table.
func (t *CodeTable) unknown(v int64) Code {
	return Code{
		Name:     t.unknownPrefix + strconv.FormatInt(v, 10),
		Value:    v,
		Category: Internal,
		Msg:      fmt.Sprintf("unknown %s %d", t.typeName, v),
		Hint: fmt.Sprintf("the native library returned a %s this version of anygpu does not know "+
			"(probably a newer driver or toolkit): please report it with `gpu info --json`", t.typeName),
	}
}

// Err converts value v returned by operation op to an error: nil for a
// success code, else an *Error filled from the table (or, for a value the
// table lacks, an Internal error naming it).
func (t *CodeTable) Err(v int64, op string) error {
	c, ok := t.Lookup(v)
	if !ok {
		c = t.unknown(v)
	}
	if c.IsSuccess() {
		return nil
	}
	return &Error{
		Backend:   t.backend,
		Op:        op,
		Code:      c.Value,
		Name:      c.Name,
		Category:  c.Category,
		Retryable: c.Retryable,
		Fatal:     c.Fatal,
		Msg:       c.Msg,
		Hint:      c.Hint,
	}
}
