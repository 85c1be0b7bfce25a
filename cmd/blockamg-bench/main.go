// Command blockamg-bench holds blockamg's benchmark studies, kept out of the user
// command line (blockamg): the Galerkin product PᵀAP per level on the CPU (galerkin:
// variants, traffic model, cache simulation, planner) and on an NVIDIA GPU
// (galerkin-gpu: the device variants, their traffic model and the cuSPARSE baseline).
//
// Each subcommand lives in its own file, registers itself in commands, and prints its
// flags with --help.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand: its one-line summary and its entry point, which gets the
// arguments after the subcommand's name and returns an error for the user.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands is filled by the init functions of the subcommands' files.
var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) error) {
	if _, dup := commands[name]; dup {
		panic("blockamg-bench: duplicate command " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

// exitFailed is the exit status for bad arguments and failed runs.
const exitFailed = 2

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return exitFailed
		}
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "blockamg-bench: unknown command %q (see blockamg-bench --help)\n", args[0])
		return exitFailed
	}
	if err := cmd.run(args[1:], stdout, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "blockamg-bench %s: %v\n", args[0], err)
		return exitFailed
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "blockamg-bench: benchmark studies of blockamg's kernels (CPU and NVIDIA GPU)")
	fmt.Fprintln(w, "\nusage: blockamg-bench COMMAND [flags]   (blockamg-bench COMMAND --help for its flags)")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-13s %s\n", n, commands[n].summary)
	}
}

// newFlags returns a flag set that reports errors to stderr and does not exit, with a
// usage header naming the command.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: blockamg-bench %s %s\n\nflags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses fs from args and returns the positional arguments, which the
// benchmarks do not take: one is an error, after the usage.
func parseArgs(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
