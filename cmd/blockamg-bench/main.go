// Command blockamg-bench holds blockamg's benchmark studies, kept out of the user
// command line (blockamg): the Galerkin product PᵀAP per level on the CPU (galerkin:
// variants, traffic model, cache simulation, planner) and on an NVIDIA GPU
// (galerkin-gpu: the device variants, their traffic model and the cuSPARSE baseline),
// and under mpiexec -n 2 the distributed recurring step's weak-scaling model (scaling).
//
// Each subcommand lives in its own file, registers itself with register, and prints its
// flags with --help.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/blockamg/blockamg/internal/cli"
)

var prog = cli.New("blockamg-bench", "benchmark studies of blockamg's kernels (CPU and NVIDIA GPU)", 13)

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) error) {
	prog.Register(name, summary, run)
}

// exitFailed is the exit status for bad arguments and failed runs.
const exitFailed = cli.ExitFailed

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int { return prog.Run(args, stdout, stderr) }

// newFlags returns the subcommand's flag set (cli.Program.NewFlags).
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	return prog.NewFlags(name, synopsis, stderr)
}

// parseArgs parses fs from args; the benchmarks take no positional arguments: one is
// an error, after the usage.
func parseArgs(fs *flag.FlagSet, args []string) error {
	pos, err := cli.ParseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fs.Usage()
		return fmt.Errorf("unexpected argument %q", pos[0])
	}
	return nil
}
