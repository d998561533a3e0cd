package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
)

// defaultTolerance is how much worse than the baseline a metric may be, in
// percent, before --baseline calls it a regression.
const defaultTolerance = 5.0

// baseline is an earlier `gpu bench --json` run: each backend's metric
// values.
type baseline map[string]map[string]float64

// loadBaseline reads a file written by `gpu bench --json`: one backend's flat
// object, or with several backends a "results" list of them.
func loadBaseline(path string) (baseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("baseline %s: not the JSON of gpu bench --json: %w", path, err)
	}
	objects := []map[string]json.RawMessage{top}
	if raw, ok := top["results"]; ok {
		objects = nil
		if err := json.Unmarshal(raw, &objects); err != nil {
			return nil, fmt.Errorf("baseline %s: \"results\" is not a list of objects: %w", path, err)
		}
	}
	out := baseline{}
	for _, obj := range objects {
		var name string
		if err := json.Unmarshal(obj["backend"], &name); err != nil || name == "" {
			return nil, fmt.Errorf("baseline %s: a result without \"backend\"", path)
		}
		values := map[string]float64{}
		for _, metric := range metricNames() {
			var v float64
			if raw, ok := obj[metric]; ok && json.Unmarshal(raw, &v) == nil && v > 0 {
				values[metric] = v
			}
		}
		out[name] = values
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("baseline %s: no results", path)
	}
	return out, nil
}

// regression is one metric that got worse than the baseline by more than the
// tolerance.
type regression struct {
	Backend string  `json:"backend"`
	Metric  string  `json:"metric"`
	Now     float64 `json:"now"`
	Before  float64 `json:"before"`
	Worse   float64 `json:"worse_percent"` // how much worse, in percent
}

// compareBaseline returns the metrics of results that are worse than in
// base by more than tolerance percent (a lower throughput, a longer time),
// and how many metrics it compared. Metrics or backends on one side only
// are not compared.
func compareBaseline(results []*result, base baseline, tolerance float64) (regs []regression, compared int) {
	for _, r := range results {
		before, ok := base[r.Backend]
		if r.Err != nil || !ok {
			continue
		}
		for _, metric := range metricNames() {
			now, have := r.Values[metric]
			old, had := before[metric]
			if !have || !had || now <= 0 {
				continue
			}
			compared++
			worse := (old/now - 1) * 100 // throughput: the baseline was faster
			if lowerIsBetter(metric) {
				worse = (now/old - 1) * 100
			}
			if worse > tolerance {
				regs = append(regs, regression{Backend: r.Backend, Metric: metric, Now: now, Before: old, Worse: worse})
			}
		}
	}
	slices.SortStableFunc(regs, func(a, b regression) int {
		switch {
		case a.Worse > b.Worse:
			return -1
		case a.Worse < b.Worse:
			return 1
		}
		return 0
	})
	return regs, compared
}

// writeBaseline reports the comparison: every regression, or that there was
// none.
func writeBaseline(w io.Writer, path string, regs []regression, compared int, tolerance float64) {
	switch {
	case compared == 0:
		fmt.Fprintf(w, "\nbaseline %s: no metric of this run is in it (other backends or metrics)\n", path)
	case len(regs) == 0:
		fmt.Fprintf(w, "\nbaseline %s: %d metrics compared, none more than %g%% worse\n", path, compared, tolerance)
	default:
		fmt.Fprintf(w, "\nbaseline %s: %d of %d metrics more than %g%% worse:\n", path, len(regs), compared, tolerance)
		rows := [][]string{{"backend", "metric", "now", "before", "worse"}}
		for _, g := range regs {
			rows = append(rows, []string{g.Backend, g.Metric, formatValue(g.Now), formatValue(g.Before),
				fmt.Sprintf("%.1f%%", g.Worse)})
		}
		writeColumns(w, rows)
	}
}
