package dl

import "strings"

// Mode is when Open binds a library's functions on Unix: dlopen's
// RTLD_LAZY or RTLD_NOW. Either way the library's symbols stay local to it
// (RTLD_LOCAL). Windows has no such choice and ignores it.
type Mode int

const (
	// Lazy binds each function on its first call (RTLD_LAZY).
	Lazy Mode = iota
	// Now binds every function before Open returns (RTLD_NOW), so a
	// library whose dependencies lack a symbol fails to open rather than
	// on a later call.
	Now
)

// DescribeOpenError is the reason Open failed for name, naming the library
// once: err's text where it names it already (dlerror does), else
// "name: " and err's text.
func DescribeOpenError(name string, err error) string {
	if msg := err.Error(); strings.Contains(msg, name) {
		return msg
	}
	return name + ": " + err.Error()
}
