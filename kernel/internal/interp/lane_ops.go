// Code written with the help of a script: one loop per operator and operand
// shape (both varying: vv; a varying x and a uniform y: vu), over the active
// lanes, with the operands and the result at fixed offsets of each lane's
// frame (stride bytes apart from lane to lane).

package interp

import (
	"unsafe"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// dense reports whether act is a run of consecutive lanes, and if so
// returns the first one's frame and their number: loops over them step
// from frame to frame without reading act.
func dense(m unsafe.Pointer, act []int32, stride uintptr) (unsafe.Pointer, int, bool) {
	n := len(act)
	if n == 0 || int(act[n-1]-act[0]) != n-1 {
		return nil, 0, false
	}
	return unsafe.Add(m, uintptr(act[0])*stride), n, true
}

// vvFn computes d = x op y in every active lane.
type vvFn func(m unsafe.Pointer, act []int32, stride, d, x, y uintptr)

// vuFn computes d = x op s in every active lane, s uniform.
type vuFn[T any] func(m unsafe.Pointer, act []int32, stride, d, x uintptr, s T)

func vvAdd[T number](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) + *(*T)(unsafe.Add(p, y))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) + *(*T)(unsafe.Add(p, y))
	}
}

func vuAdd[T number](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) + s
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) + s
	}
}

func vvSub[T number](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) - *(*T)(unsafe.Add(p, y))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) - *(*T)(unsafe.Add(p, y))
	}
}

func vuSub[T number](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) - s
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) - s
	}
}

func vvMul[T number](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) * *(*T)(unsafe.Add(p, y))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) * *(*T)(unsafe.Add(p, y))
	}
}

func vuMul[T number](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) * s
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) * s
	}
}

func vvEq[T number](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) == *(*T)(unsafe.Add(p, y))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) == *(*T)(unsafe.Add(p, y))
	}
}

func vuEq[T number](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) == s
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) == s
	}
}

func vvNe[T number](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) != *(*T)(unsafe.Add(p, y))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) != *(*T)(unsafe.Add(p, y))
	}
}

func vuNe[T number](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) != s
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) != s
	}
}

func vvLt[T number](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) < *(*T)(unsafe.Add(p, y))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) < *(*T)(unsafe.Add(p, y))
	}
}

func vuLt[T number](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) < s
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) < s
	}
}

func vvLe[T number](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) <= *(*T)(unsafe.Add(p, y))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) <= *(*T)(unsafe.Add(p, y))
	}
}

func vuLe[T number](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) <= s
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) <= s
	}
}

func vvGt[T number](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) > *(*T)(unsafe.Add(p, y))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) > *(*T)(unsafe.Add(p, y))
	}
}

func vuGt[T number](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) > s
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) > s
	}
}

func vvGe[T number](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) >= *(*T)(unsafe.Add(p, y))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) >= *(*T)(unsafe.Add(p, y))
	}
}

func vuGe[T number](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) >= s
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*bool)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) >= s
	}
}

func vvDivInt[T integer](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = divInt(*(*T)(unsafe.Add(p, x)), *(*T)(unsafe.Add(p, y)))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = divInt(*(*T)(unsafe.Add(p, x)), *(*T)(unsafe.Add(p, y)))
	}
}

func vuDivInt[T integer](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = divInt(*(*T)(unsafe.Add(p, x)), s)
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = divInt(*(*T)(unsafe.Add(p, x)), s)
	}
}

func vvRemInt[T integer](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = remInt(*(*T)(unsafe.Add(p, x)), *(*T)(unsafe.Add(p, y)))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = remInt(*(*T)(unsafe.Add(p, x)), *(*T)(unsafe.Add(p, y)))
	}
}

func vuRemInt[T integer](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = remInt(*(*T)(unsafe.Add(p, x)), s)
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = remInt(*(*T)(unsafe.Add(p, x)), s)
	}
}

func vvAnd[T integer](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) & *(*T)(unsafe.Add(p, y))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) & *(*T)(unsafe.Add(p, y))
	}
}

func vuAnd[T integer](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) & s
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) & s
	}
}

func vvOr[T integer](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) | *(*T)(unsafe.Add(p, y))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) | *(*T)(unsafe.Add(p, y))
	}
}

func vuOr[T integer](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) | s
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) | s
	}
}

func vvXor[T integer](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) ^ *(*T)(unsafe.Add(p, y))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) ^ *(*T)(unsafe.Add(p, y))
	}
}

func vuXor[T integer](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) ^ s
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) ^ s
	}
}

func vvAndNot[T integer](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) &^ *(*T)(unsafe.Add(p, y))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) &^ *(*T)(unsafe.Add(p, y))
	}
}

func vuAndNot[T integer](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) &^ s
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) &^ s
	}
}

func vvDivFloat[T float](m unsafe.Pointer, act []int32, stride, d, x, y uintptr) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) / *(*T)(unsafe.Add(p, y))
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) / *(*T)(unsafe.Add(p, y))
	}
}

func vuDivFloat[T float](m unsafe.Pointer, act []int32, stride, d, x uintptr, s T) {
	if p, n, ok := dense(m, act, stride); ok {
		for range n {
			*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) / s
			p = unsafe.Add(p, stride)
		}
		return
	}
	for _, i := range act {
		p := unsafe.Add(m, uintptr(i)*stride)
		*(*T)(unsafe.Add(p, d)) = *(*T)(unsafe.Add(p, x)) / s
	}
}

// vvNum is the vv loop of op on number operands, or nil.
func vvNum[T number](op ir.Op) vvFn {
	switch op {
	case ir.Add:
		return vvAdd[T]
	case ir.Sub:
		return vvSub[T]
	case ir.Mul:
		return vvMul[T]
	case ir.Eq:
		return vvEq[T]
	case ir.Ne:
		return vvNe[T]
	case ir.Lt:
		return vvLt[T]
	case ir.Le:
		return vvLe[T]
	case ir.Gt:
		return vvGt[T]
	case ir.Ge:
		return vvGe[T]
	}
	return nil
}

// vuNum is the vu loop of op on number operands, or nil.
func vuNum[T number](op ir.Op) vuFn[T] {
	switch op {
	case ir.Add:
		return vuAdd[T]
	case ir.Sub:
		return vuSub[T]
	case ir.Mul:
		return vuMul[T]
	case ir.Eq:
		return vuEq[T]
	case ir.Ne:
		return vuNe[T]
	case ir.Lt:
		return vuLt[T]
	case ir.Le:
		return vuLe[T]
	case ir.Gt:
		return vuGt[T]
	case ir.Ge:
		return vuGe[T]
	}
	return nil
}

// vvInt is the vv loop of op on integer operands, or nil.
func vvInt[T integer](op ir.Op) vvFn {
	switch op {
	case ir.Div:
		return vvDivInt[T]
	case ir.Rem:
		return vvRemInt[T]
	case ir.And:
		return vvAnd[T]
	case ir.Or:
		return vvOr[T]
	case ir.Xor:
		return vvXor[T]
	case ir.AndNot:
		return vvAndNot[T]
	}
	return vvNum[T](op)
}

// vuInt is the vu loop of op on integer operands, or nil.
func vuInt[T integer](op ir.Op) vuFn[T] {
	switch op {
	case ir.Div:
		return vuDivInt[T]
	case ir.Rem:
		return vuRemInt[T]
	case ir.And:
		return vuAnd[T]
	case ir.Or:
		return vuOr[T]
	case ir.Xor:
		return vuXor[T]
	case ir.AndNot:
		return vuAndNot[T]
	}
	return vuNum[T](op)
}

// vvFloat is the vv loop of op on float operands, or nil.
func vvFloat[T float](op ir.Op) vvFn {
	switch op {
	case ir.Div:
		return vvDivFloat[T]
	}
	return vvNum[T](op)
}

// vuFloat is the vu loop of op on float operands, or nil.
func vuFloat[T float](op ir.Op) vuFn[T] {
	switch op {
	case ir.Div:
		return vuDivFloat[T]
	}
	return vuNum[T](op)
}
