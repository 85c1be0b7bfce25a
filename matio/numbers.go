package matio

import (
	"math"
	"strconv"
)

// Number syntax. Matrix Market files (and the block size of a PETSc .info file) hold
// decimal numbers only: ASCII digits, an optional sign where a sign makes sense, and for
// reals an optional fraction and e/E exponent. strconv alone is not enough to enforce
// that: ParseFloat follows Go's literal syntax and reads "2_0" as 20, "0x1p1" as 2 and
// "infinity" as +Inf, so every token is checked here before it is converted.

// numStatus is the outcome of parsing an integer token.
type numStatus int

const (
	numOK     numStatus = iota
	numSyntax           // not a decimal integer of the expected form
	numRange            // decimal, but too large for the reader
)

// maxUint is the largest value parseUint returns: 18 nines, so that n*10+d never
// overflows int64 and every size that fits int64 memory is representable.
const maxUint = 999_999_999_999_999_999

// digits returns how many leading bytes of b are ASCII digits.
func digits(b []byte) int {
	n := 0
	for n < len(b) && b[n]-'0' <= 9 {
		n++
	}
	return n
}

// parseUint parses an unsigned decimal integer: ASCII digits only, at least one, leading
// zeros allowed; no sign, blank, underscore or base prefix. It is the parser for Matrix
// Market sizes and indices. Values beyond maxUint are numRange.
func parseUint(b []byte) (int64, numStatus) {
	if len(b) == 0 {
		return 0, numSyntax
	}
	var n int64
	for _, c := range b {
		d := c - '0'
		if d > 9 {
			return 0, numSyntax
		}
		if n > (maxUint-int64(d))/10 {
			// Keep checking the syntax: "1000…0x" is a syntax error, not a range one.
			if digits(b) != len(b) {
				return 0, numSyntax
			}
			return 0, numRange
		}
		n = n*10 + int64(d)
	}
	return n, numOK
}

// isDecimalInt reports whether b is an optional sign followed by one or more ASCII
// digits.
func isDecimalInt(b []byte) bool {
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		b = b[1:]
	}
	return len(b) > 0 && digits(b) == len(b)
}

// isDecimalReal reports whether b is a decimal real number: an optional sign, digits
// with an optional fraction (at least one digit in all: "5.", ".5" and "5" are fine),
// then an optional exponent: e or E, an optional sign and one or more digits. Hexadecimal
// floats, digit separators, "inf" and "nan" are not decimal reals.
func isDecimalReal(b []byte) bool {
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	n := digits(b[i:])
	i += n
	if i < len(b) && b[i] == '.' {
		i++
		f := digits(b[i:])
		i += f
		n += f
	}
	if n == 0 {
		return false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		e := digits(b[i:])
		if e == 0 {
			return false
		}
		i += e
	}
	return i == len(b)
}

// parseValue parses a real or integer Matrix Market value. It accepts decimal syntax only
// and rejects values that are not finite or, for integers, not exactly representable as
// float64. On failure it returns a message saying what was expected.
func parseValue(tok []byte, integer bool) (float64, string) {
	if integer {
		if !isDecimalInt(tok) {
			return 0, "expected an integer value in decimal (digits 0-9, optional sign), got " + strconv.Quote(clip(tok))
		}
		n, err := strconv.ParseInt(string(tok), 10, 64)
		if err != nil || n > 1<<53 || n < -(1<<53) {
			return 0, "integer value " + strconv.Quote(clip(tok)) + " is not exactly representable as float64"
		}
		return float64(n), ""
	}
	if !isDecimalReal(tok) {
		return 0, "expected a finite decimal real value (digits, optional sign, fraction and e/E exponent), got " + strconv.Quote(clip(tok))
	}
	// Decimal syntax is valid for ParseFloat, so the only error left is ErrRange for a
	// magnitude beyond MaxFloat64 (underflow rounds to zero without an error).
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, "real value " + strconv.Quote(clip(tok)) + " overflows float64, expected a finite value"
	}
	return v, ""
}
