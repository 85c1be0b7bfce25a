// Package cli is the subcommand frame the project's commands share (blockamg,
// blockamg-bench): a registry of subcommands, the dispatch with its exit codes and
// error lines, a usage listing, flag sets that report instead of exiting, and flags
// that may stand between positional arguments.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// ExitFailed is the exit status for bad arguments, bad input and failed runs.
const ExitFailed = 2

// Command is one subcommand: its one-line summary and its entry point, which gets the
// arguments after the subcommand's name and returns an error for the user
// (flag.ErrHelp after --help).
type Command struct {
	Summary string
	Run     func(args []string, stdout, stderr io.Writer) error
}

// Program is a command made of subcommands.
type Program struct {
	name, title string
	width       int // of the name column in the usage listing
	commands    map[string]Command
}

// New returns a program called name, described by title in its usage.
func New(name, title string, width int) *Program {
	return &Program{name: name, title: title, width: width, commands: map[string]Command{}}
}

// Register adds a subcommand; a name registered twice panics (registration happens in
// init functions).
func (p *Program) Register(name, summary string, run func(args []string, stdout, stderr io.Writer) error) {
	if _, dup := p.commands[name]; dup {
		panic(p.name + ": duplicate command " + name)
	}
	p.commands[name] = Command{Summary: summary, Run: run}
}

// Names returns the subcommands' names, sorted.
func (p *Program) Names() []string {
	names := make([]string, 0, len(p.commands))
	for n := range p.commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// libraryPrefix opens the blockamg library's errors; the error line drops it, since
// "NAME COMMAND:" already says where the error comes from.
const libraryPrefix = "blockamg: "

// Run dispatches args (without the program's name) and returns the exit status: 0, or
// ExitFailed with one line "NAME COMMAND: error" on stderr, on a line of its own when a
// progress line was left open.
func (p *Program) Run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		p.Usage(stdout)
		if len(args) == 0 {
			return ExitFailed
		}
		return 0
	}
	cmd, ok := p.commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "%s: unknown command %q (see %s --help)\n", p.name, args[0], p.name)
		return ExitFailed
	}
	ew := &lineWriter{w: stderr}
	if err := cmd.Run(args[1:], stdout, ew); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if ew.open {
			// A progress line ("solve: reading A.mtx ...") waits for its time; the
			// error goes on a line of its own.
			fmt.Fprintln(stderr)
		}
		fmt.Fprintf(stderr, "%s %s: %s\n", p.name, args[0], strings.TrimPrefix(err.Error(), libraryPrefix))
		return ExitFailed
	}
	return 0
}

// lineWriter passes writes through to w and remembers whether the last one left a
// line open (did not end in a newline).
type lineWriter struct {
	w    io.Writer
	open bool
}

func (l *lineWriter) Write(b []byte) (int, error) {
	n, err := l.w.Write(b)
	if n > 0 {
		l.open = b[n-1] != '\n'
	}
	return n, err
}

// Usage lists the subcommands.
func (p *Program) Usage(w io.Writer) {
	fmt.Fprintf(w, "%s: %s\n", p.name, p.title)
	fmt.Fprintf(w, "\nusage: %s COMMAND [flags]   (%s COMMAND --help for its flags)\n", p.name, p.name)
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range p.Names() {
		fmt.Fprintf(w, "  %-*s %s\n", p.width, n, p.commands[n].Summary)
	}
}

// NewFlags returns a flag set that reports errors to stderr and does not exit, with a
// usage header naming the program and the subcommand.
func (p *Program) NewFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s %s %s\n\nflags:\n", p.name, name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// ParseArgs parses flags that may appear before, between or after positional arguments
// (blockamg info FILE --block-size 3) and returns the positional ones. "--" ends flags.
func ParseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
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

// LineOpen reports whether w is the stderr Run gave a subcommand and its last write
// left a line open: a subcommand that prints an error itself (rather than returning
// it) starts a new line first, as Run does.
func LineOpen(w io.Writer) bool {
	l, ok := w.(*lineWriter)
	return ok && l.open
}
