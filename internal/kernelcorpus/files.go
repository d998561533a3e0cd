package kernelcorpus

import (
	"embed"
	"io/fs"
	"strings"
)

//go:embed *.go
var sources embed.FS

// File is one source file of the corpus.
type File struct{ Name, Src string }

// Files returns the corpus's kernel files (those with a //gpu:kernel), by
// name, for tests of kernel.Translate.
func Files() []File {
	var out []File
	names, _ := fs.Glob(sources, "*.go")
	for _, name := range names {
		b, err := sources.ReadFile(name)
		if err != nil || strings.HasSuffix(name, "_gen.go") || strings.HasSuffix(name, "_test.go") ||
			!strings.Contains(string(b), "//gpu:kernel") {
			continue
		}
		out = append(out, File{Name: name, Src: string(b)})
	}
	return out
}
