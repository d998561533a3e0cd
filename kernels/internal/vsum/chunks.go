package vsum

// chunkBatch is how many chunks' float32 sums the loops write per call.
const chunkBatch = 64

// SumChunks4 splits each of four runs of the length of x0 (x1, x2 and x3 at
// least as long; their elements past it are not read) into chunks of b
// elements (the last one may be shorter) and adds the sum of the four runs'
// chunks i to acc[i % len(acc)]: the partial sums of len(acc) consecutive
// groups of a grid-stride reduction, whose chunks of a round lie side by
// side, read as four streams of contiguous memory. Each chunk of up to
// BlockLen elements is added in float32, as Sum4 adds a block. Nothing is
// added where b < 1 or acc is empty.
func SumChunks4(x0, x1, x2, x3 []float32, b int, acc []float64) {
	m := len(x0)
	chunks4(x0, x1[:m], x2[:m], x3[:m], nil, nil, nil, nil, b, acc)
}

// DotChunks4 is SumChunks4 for the sums of x[i]·y[i] (each y run at least as
// long as x0).
func DotChunks4(x0, x1, x2, x3, y0, y1, y2, y3 []float32, b int, acc []float64) {
	m := len(x0)
	chunks4(x0, x1[:m], x2[:m], x3[:m], y0[:m], y1[:m], y2[:m], y3[:m], b, acc)
}

// SumChunks is SumChunks4 for one run.
func SumChunks(x []float32, b int, acc []float64) {
	k := len(acc)
	if b < 1 || k == 0 {
		return
	}
	j := 0
	for lo := 0; lo < len(x); lo += b {
		acc[j] += Sum(x[lo:min(lo+b, len(x))])
		if j++; j == k {
			j = 0
		}
	}
}

// DotChunks is DotChunks4 for one run (y at least as long as x).
func DotChunks(x, y []float32, b int, acc []float64) {
	y = y[:len(x)]
	k := len(acc)
	if b < 1 || k == 0 {
		return
	}
	j := 0
	for lo := 0; lo < len(x); lo += b {
		hi := min(lo+b, len(x))
		acc[j] += Dot(x[lo:hi], y[lo:hi])
		if j++; j == k {
			j = 0
		}
	}
}

// chunks4 is SumChunks4 (y0 nil) and DotChunks4, the runs of equal length.
func chunks4(x0, x1, x2, x3, y0, y1, y2, y3 []float32, b int, acc []float64) {
	k := len(acc)
	if b < 1 || k == 0 {
		return
	}
	m := len(x0)
	j := 0 // the slot of acc the next chunk adds to
	next := func() {
		if j++; j == k {
			j = 0
		}
	}
	whole := m / b
	if b <= BlockLen {
		var sums [chunkBatch]float32
		for done := 0; done < whole; {
			c := min(whole-done, chunkBatch)
			lo, hi := done*b, (done+c)*b
			if y0 == nil {
				sumChunks4(x0[lo:hi], x1[lo:hi], x2[lo:hi], x3[lo:hi], b, sums[:c])
			} else {
				dotChunks4(x0[lo:hi], x1[lo:hi], x2[lo:hi], x3[lo:hi], y0[lo:hi], y1[lo:hi], y2[lo:hi], y3[lo:hi], b, sums[:c])
			}
			for _, s := range sums[:c] {
				acc[j] += float64(s)
				next()
			}
			done += c
		}
	} else {
		for i := range whole {
			lo, hi := i*b, (i+1)*b
			if y0 == nil {
				acc[j] += Sum4(x0[lo:hi], x1[lo:hi], x2[lo:hi], x3[lo:hi])
			} else {
				acc[j] += Dot4(x0[lo:hi], x1[lo:hi], x2[lo:hi], x3[lo:hi], y0[lo:hi], y1[lo:hi], y2[lo:hi], y3[lo:hi])
			}
			next()
		}
	}
	if lo := whole * b; lo < m {
		if y0 == nil {
			acc[j] += Sum4(x0[lo:], x1[lo:], x2[lo:], x3[lo:])
		} else {
			acc[j] += Dot4(x0[lo:], x1[lo:], x2[lo:], x3[lo:], y0[lo:], y1[lo:], y2[lo:], y3[lo:])
		}
	}
}

// sumChunks4By4 sets out[i] to the float32 sum of the chunks i of b elements
// of the four runs (each len(out)·b long), by sum4.
func sumChunks4By4(x0, x1, x2, x3 []float32, b int, out []float32) {
	for i := range out {
		lo, hi := i*b, (i+1)*b
		out[i] = sum4(x0[lo:hi], x1[lo:hi], x2[lo:hi], x3[lo:hi])
	}
}

// dotChunks4By4 is sumChunks4By4 for x[i]·y[i], by dot4.
func dotChunks4By4(x0, x1, x2, x3, y0, y1, y2, y3 []float32, b int, out []float32) {
	for i := range out {
		lo, hi := i*b, (i+1)*b
		out[i] = dot4(x0[lo:hi], x1[lo:hi], x2[lo:hi], x3[lo:hi], y0[lo:hi], y1[lo:hi], y2[lo:hi], y3[lo:hi])
	}
}
