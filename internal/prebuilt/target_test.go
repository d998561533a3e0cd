package prebuilt

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Target
		bad  bool
	}{
		{in: "sm_90", want: Target{Major: 9, Minor: 0}},
		{in: "sm_75", want: Target{Major: 7, Minor: 5}},
		{in: "sm_120", want: Target{Major: 12, Minor: 0}},
		{in: "sm_121", want: Target{Major: 12, Minor: 1}},
		{in: "compute_75", want: Target{PTX: true, Major: 7, Minor: 5}},
		{in: "sm_90a", want: Target{Major: 9, Minor: 0, Suffix: "a"}},
		{in: "compute_100f", want: Target{PTX: true, Major: 10, Minor: 0, Suffix: "f"}},
		{in: "sm_9", bad: true},
		{in: "sm90", bad: true},
		{in: "lto_90", bad: true},
		{in: "sm_90b", bad: true},
		{in: "", bad: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseTarget(tc.in)
			if tc.bad {
				require.Error(t, err)
				require.Contains(t, err.Error(), "sm_XY")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.in, got.String())
		})
	}
}

// TestRunsOn states the CUDA compatibility rules the lookup follows.
func TestRunsOn(t *testing.T) {
	for _, tc := range []struct {
		target       string
		major, minor int
		runs         bool
	}{
		{"sm_90", 9, 0, true},
		{"sm_80", 8, 0, true},
		{"sm_80", 8, 6, true}, // a later minor version of the same major
		{"sm_80", 8, 9, true},
		{"sm_86", 8, 0, false}, // never an earlier minor version
		{"sm_80", 9, 0, false}, // never across majors
		{"sm_90", 10, 0, false},
		{"sm_75", 8, 0, false},
		{"sm_120", 12, 1, true},
		{"sm_90a", 9, 0, true},
		{"sm_100a", 10, 3, false}, // "a": that exact version only
		{"sm_100f", 10, 3, true},  // "f": the family
		{"sm_100f", 12, 0, false},
		{"compute_75", 7, 5, true},
		{"compute_75", 9, 0, true}, // PTX: any later GPU, the driver compiles it
		{"compute_75", 12, 1, true},
		{"compute_80", 7, 5, false}, // never an earlier one
		{"compute_90a", 9, 0, true},
		{"compute_90a", 10, 0, false},
		{"compute_100f", 10, 3, true},
		{"compute_100f", 12, 0, false},
	} {
		tg, err := ParseTarget(tc.target)
		require.NoError(t, err)
		require.Equal(t, tc.runs, tg.RunsOn(tc.major, tc.minor), "%s on %d.%d", tc.target, tc.major, tc.minor)
	}
}

func TestDefaultTargetsParse(t *testing.T) {
	ptx := 0
	for _, s := range DefaultTargets {
		tg, err := ParseTarget(s)
		require.NoError(t, err)
		if tg.PTX {
			ptx++
			for _, cc := range [][2]int{{7, 5}, {8, 0}, {8, 9}, {9, 0}, {10, 0}, {12, 1}} {
				require.True(t, tg.RunsOn(cc[0], cc[1]), "the PTX baseline %s serves %d.%d", s, cc[0], cc[1])
			}
		}
	}
	require.Equal(t, 1, ptx, "one PTX baseline")
}
