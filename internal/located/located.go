// Package located formats the message of an error located in an input file, the one
// form matio's and mesh's ParseError share: "FILE:LINE: message: cause" for a text
// file, "FILE: byte OFFSET: message: cause" for a binary one.
package located

import (
	"fmt"
	"strings"
)

// Message returns the located message: the file, then the 1-based line when line > 0,
// else the byte offset when offset ≥ 0 (neither: the whole file), then msg, then err's
// text when err is not nil.
func Message(file string, line int, offset int64, msg string, err error) string {
	var b strings.Builder
	b.WriteString(file)
	switch {
	case line > 0:
		fmt.Fprintf(&b, ":%d", line)
	case offset >= 0:
		fmt.Fprintf(&b, ": byte %d", offset)
	}
	b.WriteString(": ")
	b.WriteString(msg)
	if err != nil {
		b.WriteString(": ")
		b.WriteString(err.Error())
	}
	return b.String()
}
