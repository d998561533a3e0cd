package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
)

// Exit statuses.
const (
	exitOK    = 0 // success
	exitFail  = 1 // a device could not be opened, or a benchmark failed
	exitUsage = 2 // the command line is wrong
)

func main() {
	cleanup := privateRuntimeDir() // first: before any driver prints about it
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := runContext(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	cleanup()
	os.Exit(code)
}

// run executes the command line args (without the program name), writing
// results to stdout and diagnostics to stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// command is one subcommand of gpu.
type command struct {
	name    string
	summary string
	usage   string // the synopsis and flags, printed by `gpu help NAME`
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// commands lists the subcommands in the order usage shows them. It is filled
// in init to break the initialisation cycle through the help command.
var commands []command

func init() {
	commands = []command{
		{name: "info", summary: "show every backend's state and each device's capabilities", usage: infoUsage, run: runInfo},
		{name: "watch", summary: "sample NVIDIA GPUs' utilisation, memory, power, clocks over time (like nvidia-smi dmon)", usage: watchUsage, run: runWatch},
		{name: "kernels", summary: "translate a package's //gpu:kernel functions for every backend (go generate)", usage: kernelsUsage, run: runKernels},
		{name: "bench", summary: "measure transfers, launches, kernels, allocation and compilation", usage: benchUsage, run: runBench},
		{name: "version", summary: "print the module version", usage: "usage: gpu version\n", run: runVersion},
		{name: "help", summary: "show this help, or a command's", usage: "usage: gpu help [COMMAND]\n", run: runHelp},
	}
}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	case "-version", "--version":
		return runVersion(ctx, args[1:], stdout, stderr)
	}
	c, ok := lookup(args[0])
	if !ok {
		fmt.Fprintf(stderr, "gpu: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.run(ctx, args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `gpu reports and benchmarks the GPUs anygpu can use.

usage: gpu COMMAND [flags]

commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
examples:
  gpu info                      backends, states, reasons, device capabilities
  gpu info --json               the same as JSON
  gpu watch --count 5           NVIDIA GPUs' utilisation, power, clocks, 5 times a second apart
  gpu bench                     benchmark the device gpu.Open picks
  gpu bench --backend all       benchmark every available backend, side by side
  gpu bench --quick --json      small sizes, JSON for compare.py

environment: ANYGPU_BACKEND, ANYGPU_DEVICE, ANYGPU_FAKE (see the gpu package docs).
Run 'gpu help COMMAND' for a command's flags.
`)
}

func runHelp(_ context.Context, args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		usage(stdout)
		return exitOK
	case 1:
		if c, ok := lookup(args[0]); ok {
			fmt.Fprint(stdout, c.usage)
			return exitOK
		}
		fmt.Fprintf(stderr, "gpu help: unknown command %q\n\n", args[0])
	default:
		fmt.Fprintf(stderr, "gpu help: too many arguments\n\n")
	}
	usage(stderr)
	return exitUsage
}
