package dl

import "strings"

// Mode is how Open opens a library on Unix: when its functions are bound
// (dlopen's RTLD_LAZY or RTLD_NOW) and whether its symbols serve libraries
// opened after it (RTLD_GLOBAL) or stay local to it (RTLD_LOCAL, the
// default). Windows has no such choice and ignores it.
type Mode int

const (
	// Lazy binds each function on its first call (RTLD_LAZY).
	Lazy Mode = 0
	// Now binds every function before Open returns (RTLD_NOW), so a
	// library whose dependencies lack a symbol fails to open rather than
	// on a later call.
	Now Mode = 1
	// Global makes the library's symbols available to libraries opened
	// later (RTLD_GLOBAL): the Objective-C runtime and frameworks, and EGL
	// vendor libraries that look up the loader's symbols, need it. Combine
	// it with Lazy or Now: Now|Global.
	Global Mode = 2
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
