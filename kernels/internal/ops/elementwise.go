// Package ops is the one source of anygpu's built-in ops (package kernels):
// Go functions in the kernel language (package kernel), translated by
// `gpu kernels` into every dialect (ops_kernels_gen.go). The functions are
// named as the ops' entry points (kernels.OpFill, ...), so the generated
// Source has the entry points and parameters kernels.Params declares. They
// live in a package of their own because an op is named copy, which would
// hide Go's copy in any package that declared it.
//
// Work distribution, the same in every op of one dimension: with G groups of
// B threads, group g owns the chunks of B elements starting at c·G·B + g·B
// (c = 0, 1, ...), the layout package kernels documents. When B is a
// multiple of 4 a group moves each chunk as B/4 float4s, its threads split
// into four quarters that take four consecutive chunks of the group at once
// (quarter s takes chunk 4r+s in round r), so every group has work however
// many groups there are, and a thread's loads are 16 bytes wide. Otherwise
// each thread takes element c·G·B + g·B + t. Threads or groups with a y or z
// index other than 0 do nothing.
package ops

//go:generate go run github.com/anygpu/gpu/cmd/gpu kernels --name builtin

import "github.com/anygpu/gpu/kernel"

// last reports whether base is the last chunk round a thread takes: the next,
// step further, lies at or beyond n. It does not overflow near 2³².
func last(base, step, n uint32) bool {
	return n-base <= step
}

// fill sets y[i] = value for i < n.
//
//gpu:kernel
func fill(y []float32, n uint32, value float32) {
	if kernel.ThreadY()|kernel.ThreadZ()|kernel.GroupY()|kernel.GroupZ() != 0 || n == 0 {
		return
	}
	b, t := kernel.GroupSizeX(), kernel.ThreadX()
	s := b * kernel.GridX()
	if b%4 == 0 {
		q := b / 4
		sub := t / q
		lane := t - sub*q
		v := kernel.Float4{X: value, Y: value, Z: value, W: value}
		for base := kernel.GroupX()*b + sub*s; base < n; base += 4 * s {
			e := base + 4*lane
			if e < n && n-e > 3 {
				kernel.Store4(y, e/4, v)
			} else {
				for ; e < n; e++ {
					y[e] = value
				}
			}
			if last(base, 4*s, n) {
				break
			}
		}
		return
	}
	for i := kernel.GroupX()*b + t; i < n; i += s {
		y[i] = value
		if last(i, s, n) {
			break
		}
	}
}

// copyOp (the op copy: a Go name the front end accepts) sets y[i] = x[i] for i < n.
//
//gpu:kernel
func copyOp(y, x []float32, n uint32) {
	if kernel.ThreadY()|kernel.ThreadZ()|kernel.GroupY()|kernel.GroupZ() != 0 || n == 0 {
		return
	}
	b, t := kernel.GroupSizeX(), kernel.ThreadX()
	s := b * kernel.GridX()
	if b%4 == 0 {
		q := b / 4
		sub := t / q
		lane := t - sub*q
		for base := kernel.GroupX()*b + sub*s; base < n; base += 4 * s {
			e := base + 4*lane
			if e < n && n-e > 3 {
				kernel.Store4(y, e/4, kernel.Load4(x, e/4))
			} else {
				for ; e < n; e++ {
					y[e] = x[e]
				}
			}
			if last(base, 4*s, n) {
				break
			}
		}
		return
	}
	for i := kernel.GroupX()*b + t; i < n; i += s {
		y[i] = x[i]
		if last(i, s, n) {
			break
		}
	}
}

// scale sets y[i] = a·x[i] for i < n.
//
//gpu:kernel
func scale(y, x []float32, n uint32, a float32) {
	if kernel.ThreadY()|kernel.ThreadZ()|kernel.GroupY()|kernel.GroupZ() != 0 || n == 0 {
		return
	}
	b, t := kernel.GroupSizeX(), kernel.ThreadX()
	s := b * kernel.GridX()
	if b%4 == 0 {
		q := b / 4
		sub := t / q
		lane := t - sub*q
		for base := kernel.GroupX()*b + sub*s; base < n; base += 4 * s {
			e := base + 4*lane
			if e < n && n-e > 3 {
				v := kernel.Load4(x, e/4)
				kernel.Store4(y, e/4, kernel.Float4{X: a * v.X, Y: a * v.Y, Z: a * v.Z, W: a * v.W})
			} else {
				for ; e < n; e++ {
					y[e] = a * x[e]
				}
			}
			if last(base, 4*s, n) {
				break
			}
		}
		return
	}
	for i := kernel.GroupX()*b + t; i < n; i += s {
		y[i] = a * x[i]
		if last(i, s, n) {
			break
		}
	}
}

// axpy sets y[i] = a·x[i] + y[i] for i < n.
//
//gpu:kernel
func axpy(y, x []float32, n uint32, a float32) {
	if kernel.ThreadY()|kernel.ThreadZ()|kernel.GroupY()|kernel.GroupZ() != 0 || n == 0 {
		return
	}
	b, t := kernel.GroupSizeX(), kernel.ThreadX()
	s := b * kernel.GridX()
	if b%4 == 0 {
		q := b / 4
		sub := t / q
		lane := t - sub*q
		for base := kernel.GroupX()*b + sub*s; base < n; base += 4 * s {
			e := base + 4*lane
			if e < n && n-e > 3 {
				v := kernel.Load4(x, e/4)
				w := kernel.Load4(y, e/4)
				kernel.Store4(y, e/4, kernel.Float4{X: a*v.X + w.X, Y: a*v.Y + w.Y, Z: a*v.Z + w.Z, W: a*v.W + w.W})
			} else {
				for ; e < n; e++ {
					y[e] = a*x[e] + y[e]
				}
			}
			if last(base, 4*s, n) {
				break
			}
		}
		return
	}
	for i := kernel.GroupX()*b + t; i < n; i += s {
		y[i] = a*x[i] + y[i]
		if last(i, s, n) {
			break
		}
	}
}

// add sets z[i] = x[i] + y[i] for i < n.
//
//gpu:kernel
func add(z, x, y []float32, n uint32) {
	if kernel.ThreadY()|kernel.ThreadZ()|kernel.GroupY()|kernel.GroupZ() != 0 || n == 0 {
		return
	}
	b, t := kernel.GroupSizeX(), kernel.ThreadX()
	s := b * kernel.GridX()
	if b%4 == 0 {
		q := b / 4
		sub := t / q
		lane := t - sub*q
		for base := kernel.GroupX()*b + sub*s; base < n; base += 4 * s {
			e := base + 4*lane
			if e < n && n-e > 3 {
				u := kernel.Load4(x, e/4)
				v := kernel.Load4(y, e/4)
				kernel.Store4(z, e/4, kernel.Float4{X: u.X + v.X, Y: u.Y + v.Y, Z: u.Z + v.Z, W: u.W + v.W})
			} else {
				for ; e < n; e++ {
					z[e] = x[e] + y[e]
				}
			}
			if last(base, 4*s, n) {
				break
			}
		}
		return
	}
	for i := kernel.GroupX()*b + t; i < n; i += s {
		z[i] = x[i] + y[i]
		if last(i, s, n) {
			break
		}
	}
}

// mul sets z[i] = x[i]·y[i] for i < n.
//
//gpu:kernel
func mul(z, x, y []float32, n uint32) {
	if kernel.ThreadY()|kernel.ThreadZ()|kernel.GroupY()|kernel.GroupZ() != 0 || n == 0 {
		return
	}
	b, t := kernel.GroupSizeX(), kernel.ThreadX()
	s := b * kernel.GridX()
	if b%4 == 0 {
		q := b / 4
		sub := t / q
		lane := t - sub*q
		for base := kernel.GroupX()*b + sub*s; base < n; base += 4 * s {
			e := base + 4*lane
			if e < n && n-e > 3 {
				u := kernel.Load4(x, e/4)
				v := kernel.Load4(y, e/4)
				kernel.Store4(z, e/4, kernel.Float4{X: u.X * v.X, Y: u.Y * v.Y, Z: u.Z * v.Z, W: u.W * v.W})
			} else {
				for ; e < n; e++ {
					z[e] = x[e] * y[e]
				}
			}
			if last(base, 4*s, n) {
				break
			}
		}
		return
	}
	for i := kernel.GroupX()*b + t; i < n; i += s {
		z[i] = x[i] * y[i]
		if last(i, s, n) {
			break
		}
	}
}
