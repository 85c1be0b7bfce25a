package matio

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Number syntaxes that Go literals (and so strconv with base 0, or ParseFloat) accept
// but a Matrix Market file may not hold: the format has decimal numbers only. Each must
// be an error, never a value.
var badReals = []string{
	"2_0", "1_000.5", "1_0e1", "1e1_0", "_1", "1_",
	"0x1p1", "0X1P-2", "0x10", "0x1.8p1", "-0x1p1", "0b1", "0o7",
	"inf", "Inf", "+Inf", "-inf", "infinity", "-Infinity", "nan", "NaN", "-nan",
	"1e", "1e+", "1E-", "e5", ".", "-", "+", "+-1", "-+1", "--1", "++1", ".e1", "-.e1",
	"1.2.3", "1e5.5", "1e5e5", "1,5", "1d5", "1.0D+00", "1f", "0.5x",
	"١", "1\u00a0", "\u22121",
}

var badInts = []string{
	"2_0", "1_0", "0x10", "0X1F", "0b1", "0o7", "+-1", "-+1", "--1", "++1", "+", "-",
	"1e3", "1.0", "1.", ".1", "inf", "nan", "١",
}

var badIndices = []string{
	"0x1", "1_0", "+1", "+-1", "-1", "1e0", "1.0", "1.", "0b1", "0o1", "١", "",
}

func TestValueSyntaxRejected(t *testing.T) {
	for _, tok := range badReals {
		text := banner + "real general\n2 2 2\n1 1 1\n2 2 " + tok + "\n"
		_, err := ReadMatrixMarket(strings.NewReader(text), "t.mtx", 1)
		wantParseErr(t, "real value "+tok, err, "t.mtx:4:", "entry (2, 2)", "decimal", "got "+quote(tok))

		text = arrayBanner + "2 1\n1\n" + tok + "\n"
		_, err = ReadDenseFrom(strings.NewReader(text), "d.mtx")
		wantParseErr(t, "array value "+tok, err, "d.mtx:4:", "value (2, 1)", "decimal", "got "+quote(tok))
	}
	for _, tok := range badInts {
		text := banner + "integer general\n2 2 2\n1 1 1\n2 2 " + tok + "\n"
		_, err := ReadMatrixMarket(strings.NewReader(text), "t.mtx", 1)
		wantParseErr(t, "integer value "+tok, err, "t.mtx:4:", "entry (2, 2)", "expected an integer value in decimal", "got "+quote(tok))

		text = "%%MatrixMarket matrix array integer general\n1 2\n1\n" + tok + "\n"
		_, err = ReadDenseFrom(strings.NewReader(text), "d.mtx")
		wantParseErr(t, "integer array value "+tok, err, "d.mtx:4:", "value (1, 2)", "expected an integer value in decimal", "got "+quote(tok))
	}
}

func TestIndexSyntaxRejected(t *testing.T) {
	for _, tok := range badIndices {
		if tok == "" {
			continue // an empty field is a field count error, covered elsewhere
		}
		text := banner + "real general\n20 20 1\n" + tok + " 1 1\n"
		_, err := ReadMatrixMarket(strings.NewReader(text), "t.mtx", 1)
		wantParseErr(t, "row index "+tok, err, "t.mtx:3:", "row index "+quote(tok), "expected an integer in [1, 20]")
		text = banner + "pattern symmetric\n20 20 1\n1 " + tok + "\n"
		_, err = ReadMatrixMarket(strings.NewReader(text), "t.mtx", 1)
		wantParseErr(t, "column index "+tok, err, "t.mtx:3:", "column index "+quote(tok), "expected an integer in [1, 20]")
	}
}

func TestSizeSyntaxRejected(t *testing.T) {
	for _, tok := range badIndices {
		if tok == "" {
			continue
		}
		for pos := range 3 {
			size := []string{"16", "16", "1"}
			size[pos] = tok
			text := banner + "real general\n% c\n" + strings.Join(size, " ") + "\n1 1 1\n"
			_, err := ReadMatrixMarket(strings.NewReader(text), "t.mtx", 1)
			wantParseErr(t, "size line "+strings.Join(size, " "), err, "t.mtx:3:", "size line: "+quote(tok), "ROWS COLS ENTRIES")
			if pos == 2 {
				continue
			}
			text = arrayBanner + strings.Join(size[:2], " ") + "\n"
			_, err = ReadDenseFrom(strings.NewReader(text), "d.mtx")
			wantParseErr(t, "array size line "+strings.Join(size[:2], " "), err, "d.mtx:2:", "size line: "+quote(tok), "ROWS COLS")
		}
	}
	// Too many digits is a range problem, not a syntax one, and says so.
	text := banner + "real general\n1 1 1000000000000000000000\n1 1 1\n"
	_, err := ReadMatrixMarket(strings.NewReader(text), "t.mtx", 1)
	wantParseErr(t, "huge entry count", err, "t.mtx:2:", `"1000000000000000000000"`, "too large")
	text = banner + "real general\n3 3 1\n1 100000000000000000000000001 1\n"
	_, err = ReadMatrixMarket(strings.NewReader(text), "t.mtx", 1)
	wantParseErr(t, "huge index", err, "t.mtx:3:", "out of range", "[1, 3]")
}

// TestDecimalAccepted checks the decimal forms the format does allow, with their values.
func TestDecimalAccepted(t *testing.T) {
	reals := map[string]float64{
		"1": 1, "-1": -1, "+1.5": 1.5, "-.5": -0.5, ".5": 0.5, "5.": 5, "+5.e1": 50,
		"1E3": 1000, "1e+3": 1000, "25e-1": 2.5, "007.50": 7.5, "-0": math.Copysign(0, -1),
		"1e-400": 0, "1.7976931348623157e308": math.MaxFloat64, "4.9e-324": math.SmallestNonzeroFloat64,
		"0.000000000000000000000000000000000000000001e42": 1,
	}
	for tok, want := range reals {
		m := mustRead(t, banner+"real general\n1 1 1\n1 1 "+tok+"\n", 1)
		if !sameBits(m.Val, []float64{want}) {
			t.Errorf("real %q: got %v, want %v", tok, m.Val[0], want)
		}
		d, err := ReadDenseFrom(strings.NewReader(arrayBanner+"1 1\n"+tok+"\n"), "d.mtx")
		if err != nil || !sameBits(d.Data, []float64{want}) {
			t.Errorf("array real %q: %v %v", tok, d, err)
		}
	}
	ints := map[string]float64{"7": 7, "+7": 7, "-7": -7, "007": 7, "-0": 0, "9007199254740992": 1 << 53}
	for tok, want := range ints {
		m := mustRead(t, banner+"integer general\n1 1 1\n1 1 "+tok+"\n", 1)
		if !sameBits(m.Val, []float64{want}) {
			t.Errorf("integer %q: got %v, want %v", tok, m.Val[0], want)
		}
	}
	// Leading zeros in sizes and indices are still decimal.
	m := mustRead(t, banner+"real general\n003 03 01\n03 002 4\n", 1)
	if m.Rows() != 3 || m.Cols() != 3 || !sameBits(dense(m), []float64{0, 0, 0, 0, 0, 0, 0, 4, 0}) {
		t.Errorf("leading zeros: got %v", dense(m))
	}
	// An integer beyond int64 is a range error, not a syntax one.
	_, err := ReadMatrixMarket(strings.NewReader(banner+"integer general\n1 1 1\n1 1 -99999999999999999999\n"), "t.mtx", 1)
	wantParseErr(t, "integer beyond int64", err, "t.mtx:3:", "not exactly representable")
	_, err = ReadMatrixMarket(strings.NewReader(banner+"real general\n1 1 1\n1 1 -1e400\n"), "t.mtx", 1)
	wantParseErr(t, "real overflow", err, "t.mtx:3:", "finite", `"-1e400"`)
}

func TestReadInfoSyntax(t *testing.T) {
	dir := t.TempDir()
	for k, tok := range []string{"0x3", "3_0", "+-3", "3.0", "1e1", "0b11", "0o3", "-3", "0", "x", "99999999999999999999"} {
		p := filepath.Join(dir, "b"+string(rune('a'+k))+".info")
		os.WriteFile(p, []byte("# c\n-matload_block_size "+tok+"\n"), 0o644)
		_, _, err := ReadInfo(p)
		wantParseErr(t, ".info block size "+tok, err, p+":2:", "block size "+quote(tok), "positive")
	}
	for k, tok := range []string{"3", "+3", "03"} {
		p := filepath.Join(dir, "g"+string(rune('a'+k))+".info")
		os.WriteFile(p, []byte("-matload_block_size "+tok+"\n"), 0o644)
		if bs, found, err := ReadInfo(p); bs != 3 || !found || err != nil {
			t.Errorf(".info block size %q: got %d %v %v", tok, bs, found, err)
		}
	}
}

// TestPETScMessagesReportTheFile checks that header errors quote what the header says.
func TestPETScMessagesReportTheFile(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		want []string
	}{
		{"mostly empty columns", be(1211216, 5, 100000000, 0, 0, 0, 0, 0, 0), []string{"byte 8:", "dimensions 5×100000000", "0 entries", "columns"}},
		{"mostly empty columns, some entries", be(1211216, 2, 50000000, 1, 1, 0, 3, 1.0), []string{"byte 8:", "dimensions 2×50000000", "1 entries"}},
		{"negative columns", be(1211216, 3, -7, 0, 0, 0, 0), []string{"byte 8:", "negative dimensions 3×-7"}},
	}
	for _, c := range cases {
		for _, hidden := range []bool{false, true} {
			var err error
			if hidden {
				_, err = ReadPETScMat(hideLen{bytes.NewReader(c.data)}, "m.petsc", 1)
			} else {
				_, err = ReadPETScMat(bytes.NewReader(c.data), "m.petsc", 1)
			}
			wantParseErr(t, c.name, err, c.want...)
			if err != nil && strings.Contains(err.Error(), "0×") && !strings.Contains(c.want[1], "0×") {
				t.Errorf("%s: %v reports a dimension the file does not hold", c.name, err)
			}
		}
	}
}

func quote(s string) string { return strconv.Quote(s) }
