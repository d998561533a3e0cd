package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestPipelineCPU runs the pipeline on the CPU backend with small batches and
// checks that it writes a Chrome trace holding every traced operation.
func TestPipelineCPU(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.json")
	c := config{backend: "cpu", streams: 3, batches: 12, batchMiB: 1, trace: trace}
	if err := run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Ph  string `json:"ph"`
			Cat string `json:"cat"`
			Tid int    `json:"tid"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	kinds, streams := map[string]int{}, map[int]bool{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			kinds[e.Cat]++
			streams[e.Tid] = true
		}
	}
	// The traced run is 4 batches per stream: an H2D, a kernel and a D2H each.
	if kinds["h2d"] != 12 || kinds["kernel"] != 12 || kinds["d2h"] != 12 || len(streams) != 3 {
		t.Fatalf("trace holds %v on %d streams", kinds, len(streams))
	}
	if err := run(context.Background(), config{backend: "cpu", streams: 2}); err == nil {
		t.Fatal("2 streams accepted")
	}
}
