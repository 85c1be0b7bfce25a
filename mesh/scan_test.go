package mesh

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestParseReal: the fast path agrees with strconv bit for bit, in every format gmsh
// and other writers use, and the syntax is decimal only.
func TestParseReal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	formats := []struct {
		f    byte
		prec int
	}{{'g', 16}, {'g', 17}, {'g', 15}, {'g', -1}, {'e', 6}, {'f', 10}, {'e', 20}}
	for range 200000 {
		x := (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(40)-20))
		if rng.IntN(10) == 0 {
			x = float64(rng.IntN(2000) - 1000)
		}
		f := formats[rng.IntN(len(formats))]
		s := strconv.FormatFloat(x, f.f, f.prec, 64)
		want, _ := strconv.ParseFloat(s, 64)
		got, ok := parseReal([]byte(s))
		if !ok || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("parseReal(%q) = %v %v, strconv: %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"0", "-0", "+1", "5.", ".5", "1e5", "1E-5", "9007199254740993", "1e-400", "123456789012345678901234567890", "0.30000000000000004", "1.7976931348623157e308", "4.9e-324"} {
		want, _ := strconv.ParseFloat(s, 64)
		if got, ok := parseReal([]byte(s)); !ok || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("parseReal(%q) = %v %v, want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "-", ".", "e5", "1e", "1e+", "+-1", "1_0", "0x1p1", "inf", "NaN", "1.5.2", "1e999", "-1e309", "1 ", "١"} {
		if v, ok := parseReal([]byte(s)); ok {
			t.Errorf("parseReal(%q) = %v, want a failure", s, v)
		}
	}
}

func TestParseInt(t *testing.T) {
	for s, want := range map[string]int64{"0": 0, "-0": 0, "+7": 7, "007": 7, "9223372036854775807": math.MaxInt64, "-9223372036854775808": math.MinInt64} {
		if got, ok := parseInt([]byte(s)); !ok || got != want {
			t.Errorf("parseInt(%q) = %d %v, want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "-", "9223372036854775808", "-9223372036854775809", "1.0", "1e3", "0x10", "1_000", "18446744073709551616"} {
		if v, ok := parseInt([]byte(s)); ok {
			t.Errorf("parseInt(%q) = %d, want a failure", s, v)
		}
	}
}
