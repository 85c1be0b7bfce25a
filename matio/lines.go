package matio

import (
	"bufio"
	"errors"
	"io"
)

// Buffer sizes. Reads use up to maxBuf so that refills are rare, but no more than the
// input holds (small files, and fuzzing, should not pay for a megabyte), and a modest
// size when the input size is unknown. Writes use writeBuf.
const (
	maxBuf     = 1 << 20
	unknownBuf = 64 << 10
	writeBuf   = 256 << 10
)

// bufFor returns the read buffer size for an input of size bytes (-1: unknown).
func bufFor(size int64) int {
	if size < 0 {
		return unknownBuf
	}
	return int(min(max(size, 4096), maxBuf))
}

// maxLine bounds a single text line (comments included). A longer "line" means binary
// garbage or a missing newline convention, and buffering it would only waste memory.
const maxLine = 16 << 20

// lineReader hands out the lines of a text file without copying them.
type lineReader struct {
	r     *bufio.Reader
	file  string
	line  int   // number of the line last returned (1-based)
	bytes int64 // bytes consumed so far, terminators included
	// unterminated is set when the last line returned had no newline: the end of a
	// file cut short. Data lines must end with one, otherwise a file truncated inside
	// its last number would read as a valid, wrong, value.
	unterminated bool
	long         []byte
}

// newLineReader reads lines from r; size is the input size or -1.
func newLineReader(r io.Reader, file string, size int64) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, bufFor(size)), file: file}
}

// next returns the next line without its "\n" or "\r\n" terminator, or io.EOF when the
// input is exhausted. The slice is only valid until the next call. Any other error is a
// *ParseError.
func (lr *lineReader) next() ([]byte, error) {
	b, err := lr.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		lr.long = append(lr.long[:0], b...)
		for errors.Is(err, bufio.ErrBufferFull) {
			b, err = lr.r.ReadSlice('\n')
			lr.long = append(lr.long, b...)
			if len(lr.long) > maxLine {
				return nil, lineErr(lr.file, lr.line+1, nil, "line longer than %d bytes (not a text file?)", maxLine)
			}
		}
		b = lr.long
	}
	if err != nil && err != io.EOF {
		return nil, lineErr(lr.file, lr.line+1, err, "read failed")
	}
	if len(b) == 0 {
		return nil, io.EOF
	}
	lr.line++
	lr.bytes += int64(len(b))
	lr.unterminated = b[len(b)-1] != '\n'
	if !lr.unterminated {
		b = b[:len(b)-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b, nil
}

// fields splits b at runs of blanks (space, tab) and appends the fields to dst.
func fields(b []byte, dst [][]byte) [][]byte {
	i := 0
	for {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i == len(b) {
			return dst
		}
		s := i
		for i < len(b) && b[i] != ' ' && b[i] != '\t' {
			i++
		}
		dst = append(dst, b[s:i])
	}
}

// blank reports whether b holds only blanks.
func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}
