// Command blockamg is the command-line front end of blockamg: it inspects and converts
// block sparse matrices, generates the ex56 elasticity problem, solves with
// smoothed-aggregation AMG, on the CPU or a GPU (the benchmark studies are cmd/blockamg-bench).
//
// Each subcommand lives in its own file and registers itself in commands.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand: its one-line summary and its entry point. run receives the
// arguments after the subcommand name and returns an error for the user; a usageError
// prints the command's help.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands is filled by init functions of the per-subcommand files.
var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) error) {
	if _, dup := commands[name]; dup {
		panic("blockamg: duplicate command " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

// exitBadInput is the exit status for bad input and failed runs; flag parsing errors too.
const exitBadInput = 2

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return exitBadInput
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "blockamg: unknown command %q (see blockamg --help)\n", args[0])
		return exitBadInput
	}
	ew := &lineWriter{w: stderr}
	if err := cmd.run(args[1:], stdout, ew); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if ew.open {
			// A progress line ("solve: reading A.mtx ...") waits for its time; the
			// error goes on a line of its own.
			fmt.Fprintln(stderr)
		}
		fmt.Fprintf(stderr, "blockamg %s: %v\n", args[0], err)
		return exitBadInput
	}
	return 0
}

// lineWriter passes writes through to w and remembers whether the last one left a
// line open (did not end in a newline).
type lineWriter struct {
	w    io.Writer
	open bool
}

func (l *lineWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if n > 0 {
		l.open = p[n-1] != '\n'
	}
	return n, err
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "blockamg: algebraic multigrid for block systems (3D elasticity), CPU and NVIDIA GPU")
	fmt.Fprintln(w, "\nusage: blockamg COMMAND [flags]   (blockamg COMMAND --help for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
}

// newFlags returns a flag set that reports errors to stderr and does not exit, with a
// usage header naming the command.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: blockamg %s %s\n\nflags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses flags that may appear before, between or after positional arguments
// (blockamg info FILE --block-size 3) and returns the positional ones. "--" ends flags.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
