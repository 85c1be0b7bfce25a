// Package readsize tells how much input a reader still holds, where that is cheap to
// know, so that file readers (matio, mesh) can refuse a header that promises more
// data than the input has before they allocate anything from it.
package readsize

import (
	"io"
	"os"
)

// Remaining returns how many bytes r can still deliver: the unread length of an
// in-memory reader (anything with a Len method: bytes.Reader, strings.Reader,
// bytes.Buffer) or of a regular file from its current offset; -1 when it cannot be
// known cheaply (a pipe, a decompressor).
func Remaining(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len())
	case *os.File:
		st, err := v.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return -1
		}
		pos, err := v.Seek(0, io.SeekCurrent)
		if err != nil {
			return -1
		}
		return st.Size() - pos
	}
	return -1
}
