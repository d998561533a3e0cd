package main

import "testing"

// TestRunCPU runs the example on the CPU device with small sizes.
func TestRunCPU(t *testing.T) {
	if err := run("cpu", 48, 1<<16, 2, 1, 0); err != nil {
		t.Fatal(err)
	}
}

func TestSplit(t *testing.T) {
	p := split(100, 3, 16)
	if p[0][0] != 0 || p[2][1] != 100 || p[0][1] != p[1][0] || p[1][1] != p[2][0] || p[0][1]%16 != 0 {
		t.Fatalf("split(100, 3, 16) = %v", p)
	}
}
