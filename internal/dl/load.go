package dl

import (
	"fmt"
	"strings"
)

// Spec says how to load one native library: which candidates to try, in
// order, and what makes one usable.
type Spec struct {
	// Candidates are the names and paths to try, in order (Env.Search
	// lists them).
	Candidates []string
	// Mode is how each candidate is opened.
	Mode Mode
	// Unavailable, when not "", is why the library cannot exist on this
	// system ("NCCL is not available on darwin"): Load then opens nothing
	// and fails with this reason.
	Unavailable string
	// Accept resolves an opened candidate's symbols and checks that the
	// library can be used (required functions, version). A non-nil error
	// rejects the candidate; its text says why and names the candidate.
	// Nil accepts every candidate that opens.
	Accept func(handle uintptr, path string) error
}

// Library is a candidate that Load opened and accepted.
type Library struct {
	Path   string  // the candidate it was opened by
	Handle uintptr // the handle Open returned
}

// LoadError is why Load found no usable candidate: one reason per
// candidate tried, in order.
type LoadError struct {
	Tried []string
}

func (e *LoadError) Error() string {
	if len(e.Tried) == 0 {
		return "no candidate to try"
	}
	return strings.Join(e.Tried, "; ")
}

// Load is the one library-search loop of the module: it opens each
// candidate of spec in order and returns the first that opens and that
// Accept takes. Otherwise the error is a *LoadError with a reason for each
// candidate tried (none when there was no candidate). A rejected
// candidate's handle stays open: dlclose of a library that may have
// started threads is not safe, and the process looks each library up once.
func Load(spec Spec) (Library, error) {
	if spec.Unavailable != "" {
		return Library{}, &LoadError{Tried: []string{spec.Unavailable}}
	}
	var tried []string
	for _, c := range spec.Candidates {
		h, err := Open(c, spec.Mode)
		if err != nil {
			tried = append(tried, DescribeOpenError(c, err))
			continue
		}
		if spec.Accept != nil {
			if err := spec.Accept(h, c); err != nil {
				tried = append(tried, err.Error())
				continue
			}
		}
		return Library{Path: c, Handle: h}, nil
	}
	return Library{}, &LoadError{Tried: tried}
}

// Tried is the reasons of a *LoadError in err, nil for any other error.
func Tried(err error) []string {
	if le, ok := err.(*LoadError); ok {
		return le.Tried
	}
	return nil
}

// SymbolsFunc is an Accept function for Spec that fills a symbol table
// with Resolve: fn[i] gets names[i], and the first required names must be
// there.
func SymbolsFunc(fn []uintptr, names []string, required int) func(uintptr, string) error {
	return func(h uintptr, path string) error { return Resolve(h, path, fn, names, required) }
}

// Unsupported is the Spec.Unavailable reason for a library that does not
// exist on system goos: "what is not available on goos".
func Unsupported(what, goos string) string {
	return fmt.Sprintf("%s is not available on %s", what, goos)
}
