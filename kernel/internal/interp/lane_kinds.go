package interp

import "unsafe"

// The kind switches of the lane model: each picks the generic function of
// the Go type that holds a kind.

// perLaneVal computes v (a val of the scalar compiler, of kind k) lane by
// lane into d.
func perLaneVal(k kind, v any, d uintptr, stride *strideRef) lcode {
	switch k {
	case kBool:
		return perLaneT(v.(val[bool]), d, stride)
	case kI32:
		return perLaneT(v.(val[int32]), d, stride)
	case kU32:
		return perLaneT(v.(val[uint32]), d, stride)
	case kF32:
		return perLaneT(v.(val[float32]), d, stride)
	case kI64:
		return perLaneT(v.(val[int64]), d, stride)
	case kU64:
		return perLaneT(v.(val[uint64]), d, stride)
	case kF64:
		return perLaneT(v.(val[float64]), d, stride)
	case kVec4:
		return perLaneT(v.(val[vec4]), d, stride)
	}
	return nil
}

func perLaneT[T any](v val[T], d uintptr, stride *strideRef) lcode {
	f := v.get()
	return func(g *grp, act []int32) {
		t, st := &g.lane, stride.v
		for _, i := range act {
			t.mem = unsafe.Add(g.mem, uintptr(i)*st)
			*(*T)(unsafe.Add(t.mem, d)) = f(t)
		}
	}
}

// broadcast writes the uniform v of kind k at off of every active lane.
func broadcast(k kind, off uintptr, v any, stride *strideRef) lcode {
	switch k {
	case kBool:
		return broadcastT(off, v.(val[bool]), stride)
	case kI32:
		return broadcastT(off, v.(val[int32]), stride)
	case kU32:
		return broadcastT(off, v.(val[uint32]), stride)
	case kF32:
		return broadcastT(off, v.(val[float32]), stride)
	case kI64:
		return broadcastT(off, v.(val[int64]), stride)
	case kU64:
		return broadcastT(off, v.(val[uint64]), stride)
	case kF64:
		return broadcastT(off, v.(val[float64]), stride)
	case kVec4:
		return broadcastT(off, v.(val[vec4]), stride)
	}
	return nil
}

func broadcastT[T any](off uintptr, v val[T], stride *strideRef) lcode {
	f := v.get()
	return func(g *grp, act []int32) {
		x, st := f(&g.t), stride.v
		for _, i := range act {
			*(*T)(unsafe.Add(g.mem, uintptr(i)*st+off)) = x
		}
	}
}

// laneZero writes the zero T at off of every active lane.
func laneZero[T any](off uintptr, stride *strideRef) lcode {
	return func(g *grp, act []int32) {
		var z T
		st := stride.v
		if p, n, ok := dense(g.mem, act, st); ok {
			p = unsafe.Add(p, off)
			for range n {
				*(*T)(p) = z
				p = unsafe.Add(p, st)
			}
			return
		}
		for _, i := range act {
			*(*T)(unsafe.Add(g.mem, uintptr(i)*st+off)) = z
		}
	}
}

// laneCopy copies the slot src of kind k to dst in every active lane.
func laneCopy(k kind, dst, src uintptr, stride *strideRef) lcode {
	switch k.size() {
	case 1:
		return laneCopyT[uint8](dst, src, stride)
	case 4:
		return laneCopyT[uint32](dst, src, stride)
	case 8:
		return laneCopyT[uint64](dst, src, stride)
	}
	return laneCopyT[vec4](dst, src, stride)
}

func laneCopyT[T any](dst, src uintptr, stride *strideRef) lcode {
	return func(g *grp, act []int32) {
		st := stride.v
		for _, i := range act {
			p := unsafe.Add(g.mem, uintptr(i)*st)
			*(*T)(unsafe.Add(p, dst)) = *(*T)(unsafe.Add(p, src))
		}
	}
}

// uniStore returns the code that stores the uniform v of kind k at off of
// the uniform frame.
func uniStore(k kind, off uintptr, v any) func(*thread) {
	switch k {
	case kBool:
		return uniStoreT(off, v.(val[bool]))
	case kI32:
		return uniStoreT(off, v.(val[int32]))
	case kU32:
		return uniStoreT(off, v.(val[uint32]))
	case kF32:
		return uniStoreT(off, v.(val[float32]))
	case kI64:
		return uniStoreT(off, v.(val[int64]))
	case kU64:
		return uniStoreT(off, v.(val[uint64]))
	case kF64:
		return uniStoreT(off, v.(val[float64]))
	case kVec4:
		return uniStoreT(off, v.(val[vec4]))
	}
	return nil
}

func uniStoreT[T any](off uintptr, v val[T]) func(*thread) {
	f := v.get()
	return func(t *thread) { *(*T)(unsafe.Add(t.u, off)) = f(t) }
}

// uniSlotOf reads the uniform variable at off of the uniform frame, as a
// val of the scalar compiler.
func uniSlotOf(k kind, off uintptr) any {
	switch k {
	case kBool:
		return uniVal[bool](off)
	case kI32:
		return uniVal[int32](off)
	case kU32:
		return uniVal[uint32](off)
	case kF32:
		return uniVal[float32](off)
	case kI64:
		return uniVal[int64](off)
	case kU64:
		return uniVal[uint64](off)
	case kF64:
		return uniVal[float64](off)
	case kVec4:
		return uniVal[vec4](off)
	}
	return nil
}

func uniVal[T any](off uintptr) val[T] {
	return fnVal(func(t *thread) T { return *(*T)(unsafe.Add(t.u, off)) })
}
