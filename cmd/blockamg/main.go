// Command blockamg is the command-line front end of blockamg: it inspects and converts
// block sparse matrices, generates the ex56 elasticity problem, solves with
// smoothed-aggregation AMG, on the CPU or a GPU (the benchmark studies are cmd/blockamg-bench).
//
// Each subcommand lives in its own file and registers itself with register.
package main

import (
	"flag"
	"io"
	"os"

	"github.com/blockamg/blockamg/internal/cli"
)

var prog = cli.New("blockamg", "algebraic multigrid for block systems (3D elasticity), CPU and NVIDIA GPU", 12)

// register adds a subcommand; each lives in its own file and registers itself.
func register(name, summary string, run func(args []string, stdout, stderr io.Writer) error) {
	prog.Register(name, summary, run)
}

// exitBadInput is the exit status for bad input and failed runs; flag parsing errors too.
const exitBadInput = cli.ExitFailed

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int { return prog.Run(args, stdout, stderr) }

// newFlags returns the subcommand's flag set (cli.Program.NewFlags).
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	return prog.NewFlags(name, synopsis, stderr)
}

// parseArgs parses flags among positional arguments and returns the positional ones.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) { return cli.ParseArgs(fs, args) }
