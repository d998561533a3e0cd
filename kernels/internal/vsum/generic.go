package vsum

// sum4Generic is sum4 in Go: the runs' sum in float32, two accumulators per
// run (x1, x2, x3 are as long as x0).
func sum4Generic(x0, x1, x2, x3 []float32) float32 {
	x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
	var s0, s1, s2, s3, t0, t1, t2, t3 float32
	i := 0
	for ; i+2 <= len(x0); i += 2 {
		a, b, c, d := x0[i:i+2:i+2], x1[i:i+2:i+2], x2[i:i+2:i+2], x3[i:i+2:i+2]
		s0 += a[0]
		t0 += a[1]
		s1 += b[0]
		t1 += b[1]
		s2 += c[0]
		t2 += c[1]
		s3 += d[0]
		t3 += d[1]
	}
	for ; i < len(x0); i++ {
		s0 += x0[i]
		s1 += x1[i]
		s2 += x2[i]
		s3 += x3[i]
	}
	return ((s0 + t0) + (s1 + t1)) + ((s2 + t2) + (s3 + t3))
}

// dot4Generic is dot4 in Go, as sum4Generic sums.
func dot4Generic(x0, x1, x2, x3, y0, y1, y2, y3 []float32) float32 {
	m := len(x0)
	x1, x2, x3 = x1[:m], x2[:m], x3[:m]
	y0, y1, y2, y3 = y0[:m], y1[:m], y2[:m], y3[:m]
	var s0, s1, s2, s3, t0, t1, t2, t3 float32
	i := 0
	for ; i+2 <= m; i += 2 {
		a, b, c, d := x0[i:i+2:i+2], x1[i:i+2:i+2], x2[i:i+2:i+2], x3[i:i+2:i+2]
		e, f, g, h := y0[i:i+2:i+2], y1[i:i+2:i+2], y2[i:i+2:i+2], y3[i:i+2:i+2]
		s0 += a[0] * e[0]
		t0 += a[1] * e[1]
		s1 += b[0] * f[0]
		t1 += b[1] * f[1]
		s2 += c[0] * g[0]
		t2 += c[1] * g[1]
		s3 += d[0] * h[0]
		t3 += d[1] * h[1]
	}
	for ; i < m; i++ {
		s0 += x0[i] * y0[i]
		s1 += x1[i] * y1[i]
		s2 += x2[i] * y2[i]
		s3 += x3[i] * y3[i]
	}
	return ((s0 + t0) + (s1 + t1)) + ((s2 + t2) + (s3 + t3))
}
