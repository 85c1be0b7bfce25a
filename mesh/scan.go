package mesh

import (
	"bytes"
	"io"
	"math"
	"strconv"
)

// Buffer sizes: reads go through a buffer as large as the input up to maxBuf, so that
// refills are rare without making a small file (or a fuzz input) pay for a megabyte.
const (
	minBuf     = 4 << 10
	unknownBuf = 64 << 10
	maxBuf     = 1 << 20
	// maxToken bounds one token of a text section. Numbers and section names are short;
	// a longer "token" is binary garbage, and buffering it would only waste memory.
	maxToken = 64 << 10
)

// space marks the bytes that separate tokens in the text parts of a file.
var space = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\v': true, '\f': true}

// scanner reads a file that mixes text and binary: whitespace-separated tokens with the
// line they are on, and raw byte runs, both located by their offset in the input. It
// hands out slices of its buffer, valid until the next call.
type scanner struct {
	r        io.Reader
	buf      []byte
	pos, end int   // unread input is buf[pos:end]
	base     int64 // input offset of buf[0]
	line     int   // line of buf[pos], 1-based; not kept up to date by take
	eof      bool  // r has nothing more
	err      error // the read error that ended the input, if not io.EOF
	long     bool  // a token outgrew maxToken

	tokLine int   // line of the last token (or of the end of the input)
	tokOff  int64 // offset of the last token or byte run
}

func newScanner(r io.Reader, size int) *scanner {
	return &scanner{r: r, buf: make([]byte, size), line: 1}
}

// bufFor returns the buffer size for an input of size bytes (-1: unknown).
func bufFor(size int64) int {
	if size < 0 {
		return unknownBuf
	}
	return int(min(max(size, minBuf), maxBuf))
}

// off is the input offset of the next unread byte.
func (s *scanner) off() int64 { return s.base + int64(s.pos) }

// more reads at least one more byte, keeping buf[keep:end] (moved to the front of the
// buffer, which grows when the kept bytes fill it). It returns how far the kept bytes
// moved and false when the input has nothing more.
func (s *scanner) more(keep int) (int, bool) {
	if s.eof {
		return 0, false
	}
	if keep > 0 {
		copy(s.buf, s.buf[keep:s.end])
		s.end -= keep
		s.pos -= keep
		s.base += int64(keep)
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= maxToken {
			s.long = true
			return keep, false
		}
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	for range 100 {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.err = err
			}
			return keep, n > 0
		}
		if n > 0 {
			return keep, true
		}
	}
	s.eof, s.err = true, io.ErrNoProgress
	return keep, false
}

// skipSpace skips whitespace, counting lines; false at the end of the input.
func (s *scanner) skipSpace() bool {
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			if !space[c] {
				return true
			}
			if c == '\n' {
				s.line++
			}
			s.pos++
		}
		if _, ok := s.more(s.end); !ok {
			return false
		}
	}
}

// token returns the next whitespace-separated token, and false when the input ends
// first (or the token outgrows maxToken: s.long). tokLine and tokOff locate it.
func (s *scanner) token() ([]byte, bool) {
	// The common case, a token inside the buffer, runs on locals; refills take the
	// general loops.
	buf, i := s.buf[:s.end], s.pos
	for i < len(buf) && space[buf[i]] {
		if buf[i] == '\n' {
			s.line++
		}
		i++
	}
	s.pos = i
	if i == len(buf) && !s.skipSpace() {
		s.tokLine, s.tokOff = s.line, s.off()
		return nil, false
	}
	start := s.pos
	s.tokLine, s.tokOff = s.line, s.off()
	buf, i = s.buf[:s.end], start
	for i < len(buf) && !space[buf[i]] {
		i++
	}
	s.pos = i
	if i < len(buf) {
		return buf[start:i], true
	}
	for {
		shift, ok := s.more(start)
		start -= shift
		if !ok {
			return s.buf[start:s.pos], !s.long
		}
		for s.pos < s.end {
			if space[s.buf[s.pos]] {
				return s.buf[start:s.pos], true
			}
			s.pos++
		}
	}
}

// uint reads the next token as an unsigned decimal integer of at most 18 digits in one
// pass, when it lies inside the buffer: the common case of the text sections' tags.
// Otherwise it returns false having consumed at most the whitespace before the token,
// and token takes over.
func (s *scanner) uint() (int64, bool) {
	buf, i := s.buf[:s.end], s.pos
	for i < len(buf) && space[buf[i]] {
		if buf[i] == '\n' {
			s.line++
		}
		i++
	}
	s.pos = i
	start := i
	var n int64
	for i < len(buf) && i-start < 18 {
		d := buf[i] - '0'
		if d > 9 {
			break
		}
		n = n*10 + int64(d)
		i++
	}
	if i == start || i == len(buf) || !space[buf[i]] {
		return 0, false
	}
	s.pos = i
	s.tokLine, s.tokOff = s.line, s.base+int64(start)
	return n, true
}

// endLine consumes blanks up to and including the next newline, and reports whether
// only blanks were there. Binary data starts right after a section header's line.
func (s *scanner) endLine() bool {
	for {
		for s.pos < s.end {
			switch s.buf[s.pos] {
			case ' ', '\t', '\r':
				s.pos++
			case '\n':
				s.pos++
				s.line++
				return true
			default:
				return false
			}
		}
		if _, ok := s.more(s.end); !ok {
			return true // the end of the input will be reported by whoever reads next
		}
	}
}

// quoted reads a double-quoted string on the current line (after blanks), without its
// quotes; false when there is none or it does not close on the line.
func (s *scanner) quoted(dst []byte) ([]byte, bool) {
	for {
		for s.pos < s.end && (s.buf[s.pos] == ' ' || s.buf[s.pos] == '\t') {
			s.pos++
		}
		if s.pos < s.end {
			break
		}
		if _, ok := s.more(s.end); !ok {
			return dst, false
		}
	}
	s.tokLine, s.tokOff = s.line, s.off()
	if s.buf[s.pos] != '"' {
		return dst, false
	}
	s.pos++
	for {
		for s.pos < s.end {
			c := s.buf[s.pos]
			s.pos++
			switch c {
			case '"':
				return dst, true
			case '\n':
				s.line++
				return dst, false
			}
			if len(dst) >= maxToken {
				return dst, false
			}
			dst = append(dst, c)
		}
		if _, ok := s.more(s.end); !ok {
			return dst, false
		}
	}
}

// take returns the next n bytes (n ≤ minBuf) of binary data, or what is left and false
// when the input ends first. tokOff locates them.
func (s *scanner) take(n int) ([]byte, bool) {
	s.tokOff = s.off()
	for s.end-s.pos < n {
		if _, ok := s.more(s.pos); !ok {
			b := s.buf[s.pos:s.end]
			s.pos = s.end
			return b, false
		}
	}
	b := s.buf[s.pos : s.pos+n]
	s.pos += n
	return b, true
}

// skipTo consumes the input up to and including pat, which starts with a newline (a
// section's end begins a line) and must be followed by whitespace or the end of the
// input; false when the input ends first. Lines are counted on the way.
func (s *scanner) skipTo(pat []byte) bool {
	for {
		if i := bytes.Index(s.buf[s.pos:s.end], pat); i >= 0 {
			// Move to the match, so that a refill to see the byte after it has room.
			s.line += bytes.Count(s.buf[s.pos:s.pos+i], []byte{'\n'})
			s.pos += i
			j := s.pos + len(pat)
			for j == s.end {
				shift, ok := s.more(s.pos)
				j -= shift
				if !ok {
					break
				}
			}
			if j == s.end || space[s.buf[j]] {
				s.line += bytes.Count(s.buf[s.pos:j], []byte{'\n'})
				s.pos = j
				return true
			}
			s.line++ // pat starts with its newline
			s.pos++
			continue
		}
		// Keep the bytes that could start a match across the refill.
		keep := max(s.pos, s.end-len(pat)+1)
		s.line += bytes.Count(s.buf[s.pos:keep], []byte{'\n'})
		s.pos = keep
		if _, ok := s.more(keep); !ok {
			s.pos = s.end
			return false
		}
	}
}

// Number syntax. Text sections hold decimal numbers: ASCII digits, an optional sign,
// for reals an optional fraction and e/E exponent (at least one digit before it).
// strconv alone would also accept Go literal syntax ("1_0", "0x1p1", "inf"), so the
// parsers here check the syntax themselves.

// parseInt parses an optionally signed decimal integer that fits int64.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var n uint64
	if len(b) <= 18 { // cannot overflow
		for _, c := range b {
			d := uint64(c - '0')
			if d > 9 {
				return 0, false
			}
			n = n*10 + d
		}
		if neg {
			return -int64(n), true
		}
		return int64(n), true
	}
	for _, c := range b {
		d := uint64(c - '0')
		if d > 9 || n > (math.MaxInt64+1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	if neg {
		return -int64(n-1) - 1, true // n may be 2^63
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}

// pow10 holds the powers of ten that are exact in a float64.
var pow10 = [23]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseReal parses a finite decimal real, correctly rounded. Most coordinates have at
// most 15 or 16 significant digits and a small exponent: then the digits as an integer
// and the power of ten are both exact in a float64, and one multiplication or division
// rounds correctly. The rest go to strconv.
func parseReal(b []byte) (float64, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	var mant uint64
	nd, frac := 0, 0 // digits, of which after the point
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
		mant = mant*10 + uint64(b[i]-'0')
		nd++
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && b[i]-'0' <= 9; i++ {
			mant = mant*10 + uint64(b[i]-'0')
			nd++
			frac++
		}
	}
	exp := 0
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') && nd > 0 {
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg, i = b[i] == '-', i+1
		}
		ne := 0
		for ; i < len(b) && b[i]-'0' <= 9; i++ {
			if exp < 10000 {
				exp = exp*10 + int(b[i]-'0')
			}
			ne++
		}
		if ne == 0 {
			return 0, false
		}
		if eneg {
			exp = -exp
		}
	}
	if nd == 0 || i != len(b) {
		return 0, false
	}
	if e := exp - frac; nd <= 19 && mant < 1<<53 && e >= -22 && e <= 22 {
		f := float64(mant)
		if e < 0 {
			f /= pow10[-e]
		} else {
			f *= pow10[e]
		}
		if neg {
			f = -f
		}
		return f, true
	}
	v, err := strconv.ParseFloat(string(b), 64)
	return v, err == nil // the syntax is decimal: err is ErrRange, beyond ±MaxFloat64
}
