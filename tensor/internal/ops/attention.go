package ops

import "github.com/anygpu/gpu/kernel"

// AttentionMaxHeadDim is the largest head dimension attention takes: the
// size of its shared query and accumulator rows.
const AttentionMaxHeadDim = 256

// attnNone stands for -∞ in attention's running maximum: the dialects that
// assume no infinities must never see one.
const attnNone = -3.0e38

// attention computes causal attention over a KV cache, FlashAttention-style:
// the keys are taken in tiles of the group's size with a running maximum
// and sum (online softmax), so no score matrix is ever stored. Query i <
// nq of head h < heads is q[qoff + i·qi + h·qh + d·qd] (d < dim); it sits at
// position pos+i and attends to the cache's positions 0..pos+i, key j of
// head h being kc[(h·ctx + j)·dim + d] (kc, vc contiguous [heads, ctx,
// dim]). out is contiguous [nq, heads, dim]: Σ_j softmax_j(scale·q·k_j)·v_j.
// A group takes (query, head, split) triples grid-stride; it has at most
// rowGroup threads, and dim ≤ AttentionMaxHeadDim.
//
// With splits > 1 (flash-decoding: a decode step has one query per head, too
// few groups to fill a GPU) split s takes positions s·kchunk ..
// (s+1)·kchunk-1 of each query's range and writes its unnormalised sum to
// out[((i·heads + h)·splits + s)·dim + d] and its running maximum and sum to
// stats[2·((i·heads + h)·splits + s) + 0, 1]; attentionCombine joins them.
// A split past a query's last position writes a maximum of attnNone and
// sums of 0.
//
//gpu:kernel
func attention(out, stats, q, kc, vc []float32, nq, heads, dim, pos, ctx, qoff, qi, qh, qd, kchunk, splits uint32, scale float32) {
	qs := kernel.Shared[[AttentionMaxHeadDim]float32]()
	acc := kernel.Shared[[AttentionMaxHeadDim]float32]()
	ps := kernel.Shared[[rowGroup]float32]()
	red := kernel.Shared[[rowGroup]float32]()
	t, b := kernel.ThreadX(), kernel.GroupSizeX()
	for w := kernel.GroupX(); w < nq*heads*splits; w += kernel.GridX() {
		split := w % splits
		i, h := (w/splits)/heads, (w/splits)%heads
		for d := t; d < dim; d += b {
			qs[d] = q[qoff+i*qi+h*qh+d*qd] * scale
			acc[d] = 0
		}
		kernel.Barrier()
		m := float32(attnNone)               // the running maximum, the same in every thread
		var l float32                        // the running sum of e^(s-m)
		nk := min(pos+i+1, (split+1)*kchunk) // this split's end
		kbase := h * ctx * dim
		for j0 := split * kchunk; j0 < nk; j0 += b {
			j := j0 + t
			s := float32(attnNone)
			if j < nk {
				var dot float32
				row := kbase + j*dim
				for d := uint32(0); d < dim; d++ {
					dot += qs[d] * kc[row+d]
				}
				s = dot
			}
			red[t] = s
			kernel.Barrier()
			for g := uint32(rowGroup / 2); g > 0; g /= 2 {
				if t < g && t+g < b {
					red[t] = max(red[t], red[t+g])
				}
				kernel.Barrier()
			}
			mn := max(m, red[0])
			kernel.Barrier()
			var p float32
			if j < nk {
				p = kernel.Exp(s - mn)
			}
			ps[t] = p
			red[t] = p
			kernel.Barrier()
			for g := uint32(rowGroup / 2); g > 0; g /= 2 {
				if t < g && t+g < b {
					red[t] += red[t+g]
				}
				kernel.Barrier()
			}
			alpha := kernel.Exp(m - mn)
			l = l*alpha + red[0]
			m = mn
			cnt := min(b, nk-j0)
			for d := t; d < dim; d += b {
				v := acc[d] * alpha
				vrow := kbase + j0*dim + d
				for jj := uint32(0); jj < cnt; jj++ {
					v += ps[jj] * vc[vrow+jj*dim]
				}
				acc[d] = v
			}
			kernel.Barrier()
		}
		if splits == 1 {
			inv := 1 / l
			for d := t; d < dim; d += b {
				out[(i*heads+h)*dim+d] = acc[d] * inv
			}
		} else {
			for d := t; d < dim; d += b {
				out[w*dim+d] = acc[d]
			}
			if t == 0 {
				stats[2*w] = m
				stats[2*w+1] = l
			}
		}
		kernel.Barrier()
	}
}

// attentionCombine joins attention's splits: for each query i, head h and
// d < dim (n = nq·heads·dim threads' work), with M the largest split
// maximum, out[(i·heads + h)·dim + d] = Σ_s part_s[d]·e^(m_s - M) /
// Σ_s l_s·e^(m_s - M).
//
//gpu:kernel
func attentionCombine(out, part, stats []float32, n, dim, splits uint32) {
	if n == 0 {
		return
	}
	step := kernel.GroupSizeX() * kernel.GridX()
	for e := kernel.GroupX()*kernel.GroupSizeX() + kernel.ThreadX(); e < n; e += step {
		r, d := e/dim, e%dim // r = i·heads + h
		mx := float32(attnNone)
		for s := uint32(0); s < splits; s++ {
			mx = max(mx, stats[2*(r*splits+s)])
		}
		var num, den float32
		for s := uint32(0); s < splits; s++ {
			f := kernel.Exp(stats[2*(r*splits+s)] - mx)
			num += part[(r*splits+s)*dim+d] * f
			den += stats[2*(r*splits+s)+1] * f
		}
		out[e] = num / den
		if last(e, step, n) {
			break
		}
	}
}
