// Package suggest finds the accepted name closest to a misspelled one, for
// the "did you mean" of configuration errors.
package suggest

import (
	"strings"
	"unicode/utf8"
)

// Closest returns the candidate nearest to name by edit distance (insertions,
// deletions, substitutions and swaps of adjacent letters, ignoring case), if
// it is near enough to be a likely misspelling: at most 2 edits, and fewer
// than half of name's letters. ok is false when no candidate is that near.
// Ties go to the earlier candidate.
func Closest(name string, candidates []string) (best string, ok bool) {
	name = strings.ToLower(name)
	limit := min(2, (utf8.RuneCountInString(name)-1)/2)
	bestDist := limit + 1
	for _, c := range candidates {
		if d := Distance(name, strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best, bestDist <= limit
}

// DidYouMean is `; did you mean "x"?` for the candidate Closest finds, or ""
// when none is near enough: a suffix for an error message.
func DidYouMean(name string, candidates []string) string {
	if c, ok := Closest(name, candidates); ok {
		return `; did you mean "` + c + `"?`
	}
	return ""
}

// Distance is the optimal string alignment distance between a and b: the
// fewest insertions, deletions, substitutions and swaps of adjacent runes
// that turn one into the other (each substring edited once). It is
// case-sensitive.
func Distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// Three rows of the dynamic-programming table: two back, one back, current.
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}
