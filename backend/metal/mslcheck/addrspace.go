package mslcheck

import (
	"regexp"
	"strings"
)

// vanishingSpace matches the address-space keywords the shim maps to nothing.
var vanishingSpace = regexp.MustCompile(`\b(device|threadgroup|thread)\b`)

// eraseAddressSpaceOverloads blanks every top-level definition that repeats
// an earlier one except in its address spaces ("device A* p" against
// "threadgroup A* p", as naga writes its atomic helpers for both spaces):
// Metal overloads on address spaces, but once the shim erases them the two
// are one function defined twice. Line numbers are kept (the definition's
// lines become empty), and a definition repeated word for word is kept, so
// that clang still reports a real redefinition.
func eraseAddressSpaceOverloads(src string) string {
	lines := strings.Split(src, "\n")
	seen := map[string]string{} // definition with the spaces erased → its text
	start, depth := -1, 0
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if start < 0 {
			if trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "//") {
				continue
			}
			start = i
		}
		depth += strings.Count(line, "{") - strings.Count(line, "}")
		if depth > 0 || !(strings.HasSuffix(trimmed, "}") || strings.HasSuffix(trimmed, ";")) {
			continue
		}
		text := strings.Join(lines[start:i+1], "\n")
		if strings.Contains(text, "{") && depth == 0 {
			key := strings.Join(strings.Fields(vanishingSpace.ReplaceAllString(text, "")), " ")
			if prev, ok := seen[key]; ok && prev != text {
				for j := start; j <= i; j++ {
					lines[j] = ""
				}
			} else if !ok {
				seen[key] = text
			}
		}
		start, depth = -1, 0
	}
	return strings.Join(lines, "\n")
}
