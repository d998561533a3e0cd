// Code written with the help of a script: the comparisons of an If or a
// loop condition fused with the split of the active lanes into those where
// it holds (yes) and the others (no).

package interp

import (
	"unsafe"

	"github.com/anygpu/gpu/kernel/internal/ir"
)

// splitFn splits act by x op y (y a slot, or the uniform s) and returns the
// yes lanes and the no lanes. Each is a part of act when the lanes where
// the condition holds come first (the common case: every lane, none, or a
// prefix such as t < s), so nothing is written; otherwise they are written
// to yes (which may be act itself) and no. A nil no asks for the yes lanes
// only.
type splitFn[T any] func(m unsafe.Pointer, act []int32, stride, x, y uintptr, s T, yes, no []int32) ([]int32, []int32)

func splitvvEq[T number](m unsafe.Pointer, act []int32, stride, x, y uintptr, s T, yes, no []int32) ([]int32, []int32) {
	n, k := len(act), 0
	for k < n && *(*T)(unsafe.Add(m, uintptr(act[k])*stride+x)) == *(*T)(unsafe.Add(m, uintptr(act[k])*stride+y)) {
		k++
	}
	if k == n {
		return act, act[:0]
	}
	j := k + 1
	for j < n && !(*(*T)(unsafe.Add(m, uintptr(act[j])*stride+x)) == *(*T)(unsafe.Add(m, uintptr(act[j])*stride+y))) {
		j++
	}
	if j == n {
		return act[:k], act[k:]
	}
	ny := copy(yes, act[:k])
	nn := 0
	if no != nil {
		nn = copy(no, act[k:j])
	}
	for _, i := range act[j:] {
		if *(*T)(unsafe.Add(m, uintptr(i)*stride+x)) == *(*T)(unsafe.Add(m, uintptr(i)*stride+y)) {
			yes[ny] = i
			ny++
		} else if no != nil {
			no[nn] = i
			nn++
		}
	}
	return yes[:ny], no[:nn]
}

func splitvuEq[T number](m unsafe.Pointer, act []int32, stride, x, y uintptr, s T, yes, no []int32) ([]int32, []int32) {
	n, k := len(act), 0
	for k < n && *(*T)(unsafe.Add(m, uintptr(act[k])*stride+x)) == s {
		k++
	}
	if k == n {
		return act, act[:0]
	}
	j := k + 1
	for j < n && !(*(*T)(unsafe.Add(m, uintptr(act[j])*stride+x)) == s) {
		j++
	}
	if j == n {
		return act[:k], act[k:]
	}
	ny := copy(yes, act[:k])
	nn := 0
	if no != nil {
		nn = copy(no, act[k:j])
	}
	for _, i := range act[j:] {
		if *(*T)(unsafe.Add(m, uintptr(i)*stride+x)) == s {
			yes[ny] = i
			ny++
		} else if no != nil {
			no[nn] = i
			nn++
		}
	}
	return yes[:ny], no[:nn]
}

func splitvvNe[T number](m unsafe.Pointer, act []int32, stride, x, y uintptr, s T, yes, no []int32) ([]int32, []int32) {
	n, k := len(act), 0
	for k < n && *(*T)(unsafe.Add(m, uintptr(act[k])*stride+x)) != *(*T)(unsafe.Add(m, uintptr(act[k])*stride+y)) {
		k++
	}
	if k == n {
		return act, act[:0]
	}
	j := k + 1
	for j < n && !(*(*T)(unsafe.Add(m, uintptr(act[j])*stride+x)) != *(*T)(unsafe.Add(m, uintptr(act[j])*stride+y))) {
		j++
	}
	if j == n {
		return act[:k], act[k:]
	}
	ny := copy(yes, act[:k])
	nn := 0
	if no != nil {
		nn = copy(no, act[k:j])
	}
	for _, i := range act[j:] {
		if *(*T)(unsafe.Add(m, uintptr(i)*stride+x)) != *(*T)(unsafe.Add(m, uintptr(i)*stride+y)) {
			yes[ny] = i
			ny++
		} else if no != nil {
			no[nn] = i
			nn++
		}
	}
	return yes[:ny], no[:nn]
}

func splitvuNe[T number](m unsafe.Pointer, act []int32, stride, x, y uintptr, s T, yes, no []int32) ([]int32, []int32) {
	n, k := len(act), 0
	for k < n && *(*T)(unsafe.Add(m, uintptr(act[k])*stride+x)) != s {
		k++
	}
	if k == n {
		return act, act[:0]
	}
	j := k + 1
	for j < n && !(*(*T)(unsafe.Add(m, uintptr(act[j])*stride+x)) != s) {
		j++
	}
	if j == n {
		return act[:k], act[k:]
	}
	ny := copy(yes, act[:k])
	nn := 0
	if no != nil {
		nn = copy(no, act[k:j])
	}
	for _, i := range act[j:] {
		if *(*T)(unsafe.Add(m, uintptr(i)*stride+x)) != s {
			yes[ny] = i
			ny++
		} else if no != nil {
			no[nn] = i
			nn++
		}
	}
	return yes[:ny], no[:nn]
}

func splitvvLt[T number](m unsafe.Pointer, act []int32, stride, x, y uintptr, s T, yes, no []int32) ([]int32, []int32) {
	n, k := len(act), 0
	for k < n && *(*T)(unsafe.Add(m, uintptr(act[k])*stride+x)) < *(*T)(unsafe.Add(m, uintptr(act[k])*stride+y)) {
		k++
	}
	if k == n {
		return act, act[:0]
	}
	j := k + 1
	for j < n && !(*(*T)(unsafe.Add(m, uintptr(act[j])*stride+x)) < *(*T)(unsafe.Add(m, uintptr(act[j])*stride+y))) {
		j++
	}
	if j == n {
		return act[:k], act[k:]
	}
	ny := copy(yes, act[:k])
	nn := 0
	if no != nil {
		nn = copy(no, act[k:j])
	}
	for _, i := range act[j:] {
		if *(*T)(unsafe.Add(m, uintptr(i)*stride+x)) < *(*T)(unsafe.Add(m, uintptr(i)*stride+y)) {
			yes[ny] = i
			ny++
		} else if no != nil {
			no[nn] = i
			nn++
		}
	}
	return yes[:ny], no[:nn]
}

func splitvuLt[T number](m unsafe.Pointer, act []int32, stride, x, y uintptr, s T, yes, no []int32) ([]int32, []int32) {
	n, k := len(act), 0
	for k < n && *(*T)(unsafe.Add(m, uintptr(act[k])*stride+x)) < s {
		k++
	}
	if k == n {
		return act, act[:0]
	}
	j := k + 1
	for j < n && !(*(*T)(unsafe.Add(m, uintptr(act[j])*stride+x)) < s) {
		j++
	}
	if j == n {
		return act[:k], act[k:]
	}
	ny := copy(yes, act[:k])
	nn := 0
	if no != nil {
		nn = copy(no, act[k:j])
	}
	for _, i := range act[j:] {
		if *(*T)(unsafe.Add(m, uintptr(i)*stride+x)) < s {
			yes[ny] = i
			ny++
		} else if no != nil {
			no[nn] = i
			nn++
		}
	}
	return yes[:ny], no[:nn]
}

func splitvvLe[T number](m unsafe.Pointer, act []int32, stride, x, y uintptr, s T, yes, no []int32) ([]int32, []int32) {
	n, k := len(act), 0
	for k < n && *(*T)(unsafe.Add(m, uintptr(act[k])*stride+x)) <= *(*T)(unsafe.Add(m, uintptr(act[k])*stride+y)) {
		k++
	}
	if k == n {
		return act, act[:0]
	}
	j := k + 1
	for j < n && !(*(*T)(unsafe.Add(m, uintptr(act[j])*stride+x)) <= *(*T)(unsafe.Add(m, uintptr(act[j])*stride+y))) {
		j++
	}
	if j == n {
		return act[:k], act[k:]
	}
	ny := copy(yes, act[:k])
	nn := 0
	if no != nil {
		nn = copy(no, act[k:j])
	}
	for _, i := range act[j:] {
		if *(*T)(unsafe.Add(m, uintptr(i)*stride+x)) <= *(*T)(unsafe.Add(m, uintptr(i)*stride+y)) {
			yes[ny] = i
			ny++
		} else if no != nil {
			no[nn] = i
			nn++
		}
	}
	return yes[:ny], no[:nn]
}

func splitvuLe[T number](m unsafe.Pointer, act []int32, stride, x, y uintptr, s T, yes, no []int32) ([]int32, []int32) {
	n, k := len(act), 0
	for k < n && *(*T)(unsafe.Add(m, uintptr(act[k])*stride+x)) <= s {
		k++
	}
	if k == n {
		return act, act[:0]
	}
	j := k + 1
	for j < n && !(*(*T)(unsafe.Add(m, uintptr(act[j])*stride+x)) <= s) {
		j++
	}
	if j == n {
		return act[:k], act[k:]
	}
	ny := copy(yes, act[:k])
	nn := 0
	if no != nil {
		nn = copy(no, act[k:j])
	}
	for _, i := range act[j:] {
		if *(*T)(unsafe.Add(m, uintptr(i)*stride+x)) <= s {
			yes[ny] = i
			ny++
		} else if no != nil {
			no[nn] = i
			nn++
		}
	}
	return yes[:ny], no[:nn]
}

func splitvvGt[T number](m unsafe.Pointer, act []int32, stride, x, y uintptr, s T, yes, no []int32) ([]int32, []int32) {
	n, k := len(act), 0
	for k < n && *(*T)(unsafe.Add(m, uintptr(act[k])*stride+x)) > *(*T)(unsafe.Add(m, uintptr(act[k])*stride+y)) {
		k++
	}
	if k == n {
		return act, act[:0]
	}
	j := k + 1
	for j < n && !(*(*T)(unsafe.Add(m, uintptr(act[j])*stride+x)) > *(*T)(unsafe.Add(m, uintptr(act[j])*stride+y))) {
		j++
	}
	if j == n {
		return act[:k], act[k:]
	}
	ny := copy(yes, act[:k])
	nn := 0
	if no != nil {
		nn = copy(no, act[k:j])
	}
	for _, i := range act[j:] {
		if *(*T)(unsafe.Add(m, uintptr(i)*stride+x)) > *(*T)(unsafe.Add(m, uintptr(i)*stride+y)) {
			yes[ny] = i
			ny++
		} else if no != nil {
			no[nn] = i
			nn++
		}
	}
	return yes[:ny], no[:nn]
}

func splitvuGt[T number](m unsafe.Pointer, act []int32, stride, x, y uintptr, s T, yes, no []int32) ([]int32, []int32) {
	n, k := len(act), 0
	for k < n && *(*T)(unsafe.Add(m, uintptr(act[k])*stride+x)) > s {
		k++
	}
	if k == n {
		return act, act[:0]
	}
	j := k + 1
	for j < n && !(*(*T)(unsafe.Add(m, uintptr(act[j])*stride+x)) > s) {
		j++
	}
	if j == n {
		return act[:k], act[k:]
	}
	ny := copy(yes, act[:k])
	nn := 0
	if no != nil {
		nn = copy(no, act[k:j])
	}
	for _, i := range act[j:] {
		if *(*T)(unsafe.Add(m, uintptr(i)*stride+x)) > s {
			yes[ny] = i
			ny++
		} else if no != nil {
			no[nn] = i
			nn++
		}
	}
	return yes[:ny], no[:nn]
}

func splitvvGe[T number](m unsafe.Pointer, act []int32, stride, x, y uintptr, s T, yes, no []int32) ([]int32, []int32) {
	n, k := len(act), 0
	for k < n && *(*T)(unsafe.Add(m, uintptr(act[k])*stride+x)) >= *(*T)(unsafe.Add(m, uintptr(act[k])*stride+y)) {
		k++
	}
	if k == n {
		return act, act[:0]
	}
	j := k + 1
	for j < n && !(*(*T)(unsafe.Add(m, uintptr(act[j])*stride+x)) >= *(*T)(unsafe.Add(m, uintptr(act[j])*stride+y))) {
		j++
	}
	if j == n {
		return act[:k], act[k:]
	}
	ny := copy(yes, act[:k])
	nn := 0
	if no != nil {
		nn = copy(no, act[k:j])
	}
	for _, i := range act[j:] {
		if *(*T)(unsafe.Add(m, uintptr(i)*stride+x)) >= *(*T)(unsafe.Add(m, uintptr(i)*stride+y)) {
			yes[ny] = i
			ny++
		} else if no != nil {
			no[nn] = i
			nn++
		}
	}
	return yes[:ny], no[:nn]
}

func splitvuGe[T number](m unsafe.Pointer, act []int32, stride, x, y uintptr, s T, yes, no []int32) ([]int32, []int32) {
	n, k := len(act), 0
	for k < n && *(*T)(unsafe.Add(m, uintptr(act[k])*stride+x)) >= s {
		k++
	}
	if k == n {
		return act, act[:0]
	}
	j := k + 1
	for j < n && !(*(*T)(unsafe.Add(m, uintptr(act[j])*stride+x)) >= s) {
		j++
	}
	if j == n {
		return act[:k], act[k:]
	}
	ny := copy(yes, act[:k])
	nn := 0
	if no != nil {
		nn = copy(no, act[k:j])
	}
	for _, i := range act[j:] {
		if *(*T)(unsafe.Add(m, uintptr(i)*stride+x)) >= s {
			yes[ny] = i
			ny++
		} else if no != nil {
			no[nn] = i
			nn++
		}
	}
	return yes[:ny], no[:nn]
}

// splitvv is the fused split of the comparison op, or nil.
func splitvv[T number](op ir.Op) splitFn[T] {
	switch op {
	case ir.Eq:
		return splitvvEq[T]
	case ir.Ne:
		return splitvvNe[T]
	case ir.Lt:
		return splitvvLt[T]
	case ir.Le:
		return splitvvLe[T]
	case ir.Gt:
		return splitvvGt[T]
	case ir.Ge:
		return splitvvGe[T]
	}
	return nil
}

// splitvu is the fused split of the comparison op, or nil.
func splitvu[T number](op ir.Op) splitFn[T] {
	switch op {
	case ir.Eq:
		return splitvuEq[T]
	case ir.Ne:
		return splitvuNe[T]
	case ir.Lt:
		return splitvuLt[T]
	case ir.Le:
		return splitvuLe[T]
	case ir.Gt:
		return splitvuGt[T]
	case ir.Ge:
		return splitvuGe[T]
	}
	return nil
}

// splitter splits act into the lanes where a condition holds and the
// others, as a splitFn does: into parts of act, or written to the buffers
// yes (which may be act itself) and no (nil: the no lanes are not needed).
type splitter func(g *grp, act, yes, no []int32) ([]int32, []int32)

// lcond compiles a condition: a uniform one as a scalar closure, a varying
// one as a splitter (a comparison fused with the split where it can be).
func (c *compiler) lcond(e ir.Expr) (func(*thread) bool, splitter, error) {
	if b, ok := e.(*ir.Binary); ok && b.Op.IsCompare() && !c.uni.expr(e) {
		xk, err := kindOf(b.X.ExprType())
		if err == nil && xk != kBool && xk != kVec4 {
			x, err := c.lexpr(b.X, noDst)
			if err != nil {
				return nil, nil, err
			}
			y, err := c.lexpr(b.Y, noDst)
			if err != nil {
				return nil, nil, err
			}
			op := b.Op
			if x.uniform() {
				op, _ = swapped(op)
				x, y = y, x
			}
			switch xk {
			case kI32:
				return nil, splitCode[int32](op, x, y, c.stride()), nil
			case kU32:
				return nil, splitCode[uint32](op, x, y, c.stride()), nil
			case kI64:
				return nil, splitCode[int64](op, x, y, c.stride()), nil
			case kU64:
				return nil, splitCode[uint64](op, x, y, c.stride()), nil
			case kF32:
				return nil, splitCode[float32](op, x, y, c.stride()), nil
			case kF64:
				return nil, splitCode[float64](op, x, y, c.stride()), nil
			}
		}
	}
	v, err := c.lexpr(e, noDst)
	if err != nil {
		return nil, nil, err
	}
	if v.k != kBool {
		return nil, nil, errorf(e.ExprPos(), "condition of type %v", e.ExprType())
	}
	if v.uniform() {
		return v.uni.(val[bool]).get(), nil, nil
	}
	code, off, stride := v.code, v.off, c.stride()
	return nil, func(g *grp, act, yes, no []int32) ([]int32, []int32) {
		if code != nil {
			code(g, act)
		}
		ny, nn := 0, 0
		for _, i := range act {
			if *(*bool)(unsafe.Add(g.mem, uintptr(i)*stride.v+off)) {
				yes[ny] = i
				ny++
			} else if no != nil {
				no[nn] = i
				nn++
			}
		}
		return yes[:ny], no[:nn]
	}, nil
}

func splitCode[T number](op ir.Op, x, y lval, stride *strideRef) splitter {
	xc, xo, yc, yo := x.code, x.off, y.code, y.off
	if y.uniform() {
		f, yf := splitvu[T](op), y.uni.(val[T]).get()
		return func(g *grp, act, yes, no []int32) ([]int32, []int32) {
			if xc != nil {
				xc(g, act)
			}
			return f(g.mem, act, stride.v, xo, 0, yf(&g.t), yes, no)
		}
	}
	f := splitvv[T](op)
	return func(g *grp, act, yes, no []int32) ([]int32, []int32) {
		if xc != nil {
			xc(g, act)
		}
		if yc != nil {
			yc(g, act)
		}
		var z T
		return f(g.mem, act, stride.v, xo, yo, z, yes, no)
	}
}
