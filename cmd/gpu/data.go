package main

import (
	"encoding/binary"
	"runtime"
	"sync"
)

// The bench's data is a hash of the element index, so any element can be
// recomputed from its index when a result is checked, and generating it
// parallelises.

// mix is a 32-bit integer hash (the finaliser of MurmurHash3).
func mix(v uint32) uint32 {
	v ^= v >> 16
	v *= 0x85ebca6b
	v ^= v >> 13
	v *= 0xc2b2ae35
	v ^= v >> 16
	return v
}

// word is the 32-bit pattern word i of the pattern seed.
func word(seed uint32, i int) uint32 { return mix(uint32(i)*0x9e3779b9 ^ seed) }

// value is element i of the float32 data seed, uniform in [lo, hi).
func value(seed uint32, i int, lo, hi float32) float32 {
	return lo + (hi-lo)*float32(word(seed, i)>>8)/(1<<24)
}

// parallel runs fn over [0, n) in contiguous chunks, one per CPU.
func parallel(n int, fn func(lo, hi int)) {
	workers := max(1, min(runtime.GOMAXPROCS(0), n/(1<<16)))
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, min(lo+chunk, n))
	}
	wg.Wait()
}

// floats returns n elements of the data seed in [lo, hi).
func floats(seed uint32, n int, lo, hi float32) []float32 {
	out := make([]float32, n)
	parallel(n, func(a, b int) {
		for i := a; i < b; i++ {
			out[i] = value(seed, i, lo, hi)
		}
	})
	return out
}

// fillPattern writes the pattern seed into b as little-endian words (b's
// length is a multiple of 4).
func fillPattern(b []byte, seed uint32) {
	parallel(len(b)/4, func(a, e int) {
		for i := a; i < e; i++ {
			binary.LittleEndian.PutUint32(b[4*i:], word(seed, i))
		}
	})
}

// samples returns k indices in [0, n): the first, the last, and one at a
// hashed place in each of k-2 equal stretches between them.
func samples(n, k int) []int {
	if n <= k {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := []int{0}
	stretch := (n - 2) / (k - 2)
	for s := 0; s < k-2; s++ {
		out = append(out, 1+s*stretch+int(mix(uint32(s)+7))%stretch)
	}
	return append(out, n-1)
}
