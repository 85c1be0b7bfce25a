package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelp: every subcommand prints its usage and flags with --help and exits 0; the
// command's own help lists every subcommand.
func TestHelp(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, name := range prog.Names() {
		if !strings.Contains(out.String(), "  "+name+" ") {
			t.Errorf("--help does not list %s:\n%s", name, out.String())
		}
		var o, e bytes.Buffer
		if code := run([]string{name, "--help"}, &o, &e); code != 0 {
			t.Errorf("%s --help: exit %d, stderr %q", name, code, e.String())
		}
		if s := e.String(); !strings.Contains(s, "usage: blockamg-bench "+name+" ") || !strings.Contains(s, "-ne") {
			t.Errorf("%s --help: usage %q", name, s)
		}
	}
	if len(prog.Names()) < 2 {
		t.Errorf("commands %v: want galerkin and galerkin-gpu", prog.Names())
	}
}

// TestCommandErrors: an unknown command, a stray argument and a bad flag value are
// errors with a non-zero exit, before any work.
func TestCommandErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"nope"},
		{"galerkin-gpu", "--ne", "3", "extra"},
		{"galerkin-gpu", "--ne", "3", "--levels", "-1"},
		{"galerkin-gpu", "--ne", "0"},
		{"galerkin", "--ne", "3", "extra"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code == 0 {
			t.Errorf("%v: exit 0", args)
		}
	}
}
