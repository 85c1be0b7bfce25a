package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"
)

// TestRunErrorLine checks the error line: the library's prefix dropped, a wrapped
// error's text kept, an open progress line ended first, and the exit status.
func TestRunErrorLine(t *testing.T) {
	p := New("blockamg", "test", 8)
	p.Register("solve", "solves", func(args []string, stdout, stderr io.Writer) error {
		if len(args) > 0 && args[0] == "progress" {
			fmt.Fprint(stderr, "solve: reading A.mtx ...")
		}
		return fmt.Errorf("blockamg: set-up: %w", errors.New("not symmetric"))
	})
	p.Register("ok", "succeeds", func([]string, io.Writer, io.Writer) error { return nil })
	for _, c := range []struct {
		args       []string
		code       int
		wantStderr string
	}{
		{[]string{"solve"}, ExitFailed, "blockamg solve: set-up: not symmetric\n"},
		{[]string{"solve", "progress"}, ExitFailed, "solve: reading A.mtx ...\nblockamg solve: set-up: not symmetric\n"},
		{[]string{"ok"}, 0, ""},
		{[]string{"nope"}, ExitFailed, "blockamg: unknown command \"nope\" (see blockamg --help)\n"},
	} {
		var out, errb bytes.Buffer
		if code := p.Run(c.args, &out, &errb); code != c.code || errb.String() != c.wantStderr {
			t.Errorf("Run(%q) = %d, stderr %q; want %d, %q", c.args, code, errb.String(), c.code, c.wantStderr)
		}
	}
}
