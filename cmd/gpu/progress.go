package main

import (
	"fmt"
	"io"
	"os"
)

// progress draws one status line on a terminal, rewriting it in place with
// \r; on anything else (a file, a pipe, a test's buffer) it is silent.
type progress struct {
	w  io.Writer // nil when silent
	on bool      // a line is drawn
}

// newProgress draws on w only when w is a terminal (a character device).
func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	if !ok {
		return &progress{}
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return &progress{}
	}
	return &progress{w: w}
}

// show replaces the line with the formatted text.
func (p *progress) show(format string, args ...any) {
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "\r\x1b[2K"+format, args...)
	p.on = true
}

// done erases the line.
func (p *progress) done() {
	if p.w == nil || !p.on {
		return
	}
	fmt.Fprint(p.w, "\r\x1b[2K")
	p.on = false
}
