package located

import (
	"errors"
	"testing"
)

func TestMessage(t *testing.T) {
	cause := errors.New("unexpected EOF")
	for _, tc := range []struct {
		line   int
		offset int64
		err    error
		want   string
	}{
		{12, -1, nil, "a.mtx:12: want 3 numbers"},
		{12, 40, cause, "a.mtx:12: want 3 numbers: unexpected EOF"},
		{0, 40, nil, "a.mtx: byte 40: want 3 numbers"},
		{0, -1, cause, "a.mtx: want 3 numbers: unexpected EOF"},
	} {
		if got := Message("a.mtx", tc.line, tc.offset, "want 3 numbers", tc.err); got != tc.want {
			t.Errorf("line %d offset %d: %q, want %q", tc.line, tc.offset, got, tc.want)
		}
	}
}
