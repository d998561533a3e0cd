//go:build windows

package cu

// defaultLibraries are the names tried, in order, when no path is given.
var defaultLibraries = []string{"nvcuda.dll"}
