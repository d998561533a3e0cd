package kernelcorpus

import "github.com/anygpu/gpu/kernel"

// SubgroupReduce reduces x per group through subgroup reductions and one
// partial per subgroup in shared memory: the sum and the extremes of the
// floats, and the wrapping sum and the extremes of their integer parts. Its
// results are the same for any subgroup size (the sum within the
// tolerance of a reordered float sum). Blocks of at most 256 threads.
//
//gpu:kernel
func SubgroupReduce(sums, mins, maxs []float32, isums, imins []int32, umaxs []uint32, x []float32, n uint32) {
	part := kernel.Shared[[256]float32]()
	lo := kernel.Shared[[256]float32]()
	hi := kernel.Shared[[256]float32]()
	ipart := kernel.Shared[[256]int32]()
	ilo := kernel.Shared[[256]int32]()
	uhi := kernel.Shared[[256]uint32]()
	t := kernel.ThreadIndex()
	i := kernel.GlobalX()
	v, small, big := float32(0), float32(3e38), float32(-3e38)
	if i < n {
		v, small, big = x[i], x[i], x[i]
	}
	iv := int32(v * 1e6)
	s := kernel.SubgroupAdd(v)
	mn := kernel.SubgroupMin(small)
	mx := kernel.SubgroupMax(big)
	is := kernel.SubgroupAdd(iv * 1000)
	imn := kernel.SubgroupMin(iv)
	umx := kernel.SubgroupMax(uint32(iv))
	size := kernel.SubgroupSize()
	if kernel.SubgroupInvocationID() == 0 {
		sg := t / size
		part[sg], lo[sg], hi[sg] = s, mn, mx
		ipart[sg], ilo[sg], uhi[sg] = is, imn, umx
	}
	kernel.Barrier()
	if t == 0 {
		acc, a, b := part[0], lo[0], hi[0]
		iacc, ia, ub := ipart[0], ilo[0], uhi[0]
		for j := uint32(1); j < kernel.GroupSizeX()/size; j++ {
			acc += part[j]
			a = min(a, lo[j])
			b = max(b, hi[j])
			iacc += ipart[j]
			ia = min(ia, ilo[j])
			ub = max(ub, uhi[j])
		}
		g := kernel.GroupX()
		sums[g], mins[g], maxs[g] = acc, a, b
		isums[g], imins[g], umaxs[g] = iacc, ia, ub
	}
}

// SubgroupScan is an inclusive prefix sum of x per group: a Hillis-Steele
// scan through SubgroupShuffle within each subgroup, then the subgroups'
// totals in shared memory. Blocks of at most 1024 threads.
//
//gpu:kernel
func SubgroupScan(out, x []uint32, n uint32) {
	totals := kernel.Shared[[1024]uint32]()
	t := kernel.ThreadIndex()
	i := kernel.GlobalX()
	var v uint32
	if i < n {
		v = x[i]
	}
	size := kernel.SubgroupSize()
	lane := kernel.SubgroupInvocationID()
	for off := uint32(1); off < size; off *= 2 {
		src := lane
		if lane >= off {
			src = lane - off
		}
		u := kernel.SubgroupShuffle(v, src)
		if lane >= off {
			v += u
		}
	}
	if lane == size-1 {
		totals[t/size] = v
	}
	kernel.Barrier()
	if t == 0 {
		var acc uint32
		for s := uint32(0); s < kernel.GroupSizeX()/size; s++ {
			acc += totals[s]
			totals[s] = acc
		}
	}
	kernel.Barrier()
	if t >= size {
		v += totals[t/size-1]
	}
	if i < n {
		out[i] = v
	}
}

// SubgroupLanes checks the lane arithmetic every subgroup size keeps: each
// output is the thread's index in its group when the operations move the
// values they should (a butterfly max of -index is the negated first index
// of the subgroup, and so on); fvals gets 0.5.
//
//gpu:kernel
func SubgroupLanes(first, xor, rot, bmax []uint32, fvals []float32, n uint32) {
	t := kernel.ThreadIndex()
	i := kernel.GlobalX()
	size := kernel.SubgroupSize()
	lane := kernel.SubgroupInvocationID()
	f := kernel.SubgroupBroadcastFirst(t)
	m := (i * 7) & (size - 1)
	x := kernel.SubgroupShuffleXor(t, m)
	r := (lane + 3) & (size - 1)
	y := kernel.SubgroupShuffle(t, r)
	neg := -int32(t)
	for off := size / 2; off > 0; off /= 2 {
		neg = max(neg, kernel.SubgroupShuffleXor(neg, off))
	}
	fv := kernel.SubgroupShuffleXor(float32(t)+0.5, m) - float32(t^m)
	if i < n {
		first[i] = f + lane
		xor[i] = x ^ m
		rot[i] = y - r + lane
		bmax[i] = uint32(-neg) + lane
		fvals[i] = fv
	}
}
