package kernelcorpus

import "github.com/anygpu/gpu/kernel"

//gpu:kernel
func NestedLoops(out []int32, n, m uint32) {
	i := kernel.GlobalX()
	if i >= n {
		return
	}
	var acc int32
outer:
	for a := uint32(0); a < m; a++ {
		for b := range m {
			if (a+b+i)%7 == 3 {
				continue
			}
			if b > a+i%5 {
				continue outer
			}
			if a*b > 40+i {
				break outer
			}
			acc += int32(a*3 + b)
		}
		if acc > 1000 {
			break
		}
	}
	out[i] = acc
}

//gpu:kernel
func WhileLoop(out []uint32, in []uint32, n uint32) {
	i := kernel.GlobalX()
	if i < n {
		x := in[i]
		var steps uint32
		for x != 1 && steps < 500 {
			if x%2 == 0 {
				x /= 2
			} else {
				x = 3*x + 1
			}
			steps++
		}
		out[i] = steps
	}
}

//gpu:kernel
func LocalArray(out []float32, in []float32, n uint32) {
	i := kernel.GlobalX()
	if i >= n {
		return
	}
	var w [8]float32
	for k := range 8 {
		w[k] = in[(i+uint32(k))%n]
	}
	var m [2][4]float32
	for r := 0; r < 2; r++ {
		for c := 0; c < 4; c++ {
			m[r][c] = w[r*4+c] * float32(r+1)
		}
	}
	s := float32(0)
	for r := 0; r < 2; r++ {
		for c := 0; c < len(m[r]); c++ {
			s += m[r][c]
		}
	}
	out[i] = s
}

//gpu:kernel
func InfiniteLoopBreak(out []int32, n uint32) {
	i := kernel.GlobalX()
	if i >= n {
		return
	}
	k := int32(i)
	for {
		k = k*5 + 1
		if k > 100000 || k < 0 {
			break
		}
	}
	out[i] = k
}
