package dl

import (
	"fmt"
	"strings"
)

// Resolve fills a library's symbol table: fn[i] becomes the address of
// names[i] in the library of handle, 0 where it lacks that symbol. The
// first required names must be there; the error, nil when they are, says
// "path lacks a, b" of those that are not.
func Resolve(handle uintptr, path string, fn []uintptr, names []string, required int) error {
	var missing []string
	for i, n := range names {
		fn[i] = Sym(handle, n)
		if fn[i] == 0 && i < required {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s lacks %s", path, strings.Join(missing, ", "))
	}
	return nil
}
