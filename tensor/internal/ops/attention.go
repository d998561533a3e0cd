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
// A group takes (query, head) pairs grid-stride; it has at most rowGroup
// threads, and dim ≤ AttentionMaxHeadDim.
//
//gpu:kernel
func attention(out, q, kc, vc []float32, nq, heads, dim, pos, ctx, qoff, qi, qh, qd uint32, scale float32) {
	qs := kernel.Shared[[AttentionMaxHeadDim]float32]()
	acc := kernel.Shared[[AttentionMaxHeadDim]float32]()
	ps := kernel.Shared[[rowGroup]float32]()
	red := kernel.Shared[[rowGroup]float32]()
	t, b := kernel.ThreadX(), kernel.GroupSizeX()
	for w := kernel.GroupX(); w < nq*heads; w += kernel.GridX() {
		i, h := w/heads, w%heads
		for d := t; d < dim; d += b {
			qs[d] = q[qoff+i*qi+h*qh+d*qd] * scale
			acc[d] = 0
		}
		kernel.Barrier()
		m := float32(attnNone) // the running maximum, the same in every thread
		var l float32          // the running sum of e^(s-m)
		nk := pos + i + 1
		kbase := h * ctx * dim
		for j0 := uint32(0); j0 < nk; j0 += b {
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
		inv := 1 / l
		for d := t; d < dim; d += b {
			out[(i*heads+h)*dim+d] = acc[d] * inv
		}
		kernel.Barrier()
	}
}
