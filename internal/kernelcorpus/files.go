package kernelcorpus

import (
	"embed"
	"io/fs"
	"regexp"
	"strings"
)

//go:embed *.go
var sources embed.FS

// kernelMark is the directive that marks a kernel, at the start of a line.
var kernelMark = regexp.MustCompile(`(?m)^//gpu:kernel$`)

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
			!kernelMark.Match(b) {
			continue
		}
		out = append(out, File{Name: name, Src: string(b)})
	}
	return out
}
