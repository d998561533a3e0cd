package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// parseFlags parses a subcommand's flags. It returns ok=false with the exit
// status to use when the command should stop: 0 after -h (usage on stdout),
// 2 after a bad flag or a stray argument (the error and usage on stderr).
func parseFlags(fs *flag.FlagSet, usageText string, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usageText)
		return exitOK, false
	case err != nil:
		fmt.Fprintf(stderr, "gpu %s: %v\n", fs.Name(), err)
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "gpu %s: unexpected argument %q\n", fs.Name(), strings.Join(fs.Args(), " "))
	default:
		return exitOK, true
	}
	fmt.Fprint(stderr, usageText)
	return exitUsage, false
}
