package cuda

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// kernelUnit is one translation unit NVRTC compiles: a kernels/*.cu file with the
// headers it includes inlined, so that it compiles alone, each part preceded by a
// #line directive so that messages name the original file. Each unit is its own
// CUBIN, cache file and module: a run compiles only the units it uses, and
// compiles them in parallel (one NVRTC program is single-threaded).
type kernelUnit struct {
	file    string   // e.g. "bsr.cu"
	src     string   // the translation unit
	kernels []string // the extern "C" __global__ kernels it defines, in source order
	start   bool     // compiled (or read) at New; see laterUnits
}

// laterUnits are the units that only some runs use, with who uses them. New starts
// preparing them (reading or compiling) in the background once the others are
// loaded, and a kernel's first launch loads its unit, waiting for it if need be;
// every other unit is in the start set New waits for.
var laterUnits = map[string]string{
	"galerkin.cu":     "the host-planned PᵀAP variants (NewGalerkin: --host-setup, the benchmarks) and their rate probes",
	"filter.cu":       "the re-setup's prolongator filtering (FilterTheta > 0)",
	"smoothsearch.cu": "the prolongator smoothing of patterns too large for a product list",
	"elasticity.cu":   "the unstructured-mesh assembly (fem/cudafem.Elasticity: solve --mesh --gpu)",
}

// unitTable is every unit and the kernel → unit index.
type unitTable struct {
	units []*kernelUnit
	index map[string]int // kernel name → position in units
}

// kernelUnits is the table of the embedded sources, built once.
var kernelUnits = sync.OnceValues(func() (*unitTable, error) {
	sub, err := fs.Sub(kernelFS, "kernels")
	if err != nil {
		return nil, err
	}
	return loadUnits(sub)
})

// loadUnits builds the table from fsys, which holds the *.cu and *.cuh files at its
// root: one unit per *.cu file, in name order.
func loadUnits(fsys fs.FS) (*unitTable, error) {
	names, err := fs.Glob(fsys, "*.cu")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	t := &unitTable{index: map[string]int{}}
	for _, n := range names {
		src, err := assembleUnit(fsys, n)
		if err != nil {
			return nil, err
		}
		ks, err := kernelNames(src)
		if err != nil {
			return nil, fmt.Errorf("cuda: indexing kernels/%s: %w", n, err)
		}
		_, later := laterUnits[n]
		u := &kernelUnit{file: n, src: src, kernels: ks, start: !later}
		for _, k := range ks {
			if j, dup := t.index[k]; dup {
				return nil, fmt.Errorf("cuda: kernel %s is defined by both kernels/%s and kernels/%s", k, t.units[j].file, n)
			}
			t.index[k] = len(t.units)
		}
		t.units = append(t.units, u)
	}
	return t, nil
}

// includeRE matches a line that includes a header of kernels/ by name.
var includeRE = regexp.MustCompile(`^\s*#\s*include\s*"([^"]+)"`)

// assembleUnit returns the translation unit of file: its text with every #include
// "name" replaced by the header's text (recursively, each header once, as its include
// guard would), each file's text preceded by a #line directive.
func assembleUnit(fsys fs.FS, file string) (string, error) {
	var sb strings.Builder
	seen := map[string]bool{}
	var add func(name, from string) error
	add = func(name, from string) error {
		seen[name] = true
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			if from != "" {
				return fmt.Errorf("cuda: kernels/%s includes %q: %w", from, name, err)
			}
			return fmt.Errorf("cuda: kernels/%s: %w", name, err)
		}
		fmt.Fprintf(&sb, "#line 1 \"%s\"\n", name)
		lines := strings.SplitAfter(string(b), "\n")
		for i, l := range lines {
			m := includeRE.FindStringSubmatch(l)
			if m == nil {
				sb.WriteString(l)
				continue
			}
			inc := m[1]
			if inc != path.Base(inc) {
				return fmt.Errorf("cuda: kernels/%s includes %q: only headers of kernels/ by name", name, inc)
			}
			if seen[inc] {
				sb.WriteString("\n") // keeps the line numbers
				continue
			}
			if err := add(inc, name); err != nil {
				return err
			}
			fmt.Fprintf(&sb, "#line %d \"%s\"\n", i+2, name)
		}
		if !strings.HasSuffix(sb.String(), "\n") {
			sb.WriteString("\n")
		}
		return nil
	}
	if err := add(file, ""); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// kernelNames returns the names of the extern "C" __global__ kernels that src
// defines, in order, after expanding its macros: several files make their kernels
// and their names with function-like macros and ## (bsr.cu, galerkin.cu). The
// expansion is the part of the C preprocessor these sources use: object- and
// function-like #define, #undef, parameters, ## and rescanning; conditionals are
// not evaluated (every branch counts), so a kernel under #if for some architectures
// is indexed for all, and its lookup fails where it is not compiled, as it would
// without the index.
func kernelNames(src string) ([]string, error) {
	text := stripComments(strings.ReplaceAll(src, "\\\n", " "))
	macros := map[string]*macro{}
	var names []string
	var chunk strings.Builder
	flush := func() error {
		exp, err := expand(chunk.String(), macros, nil, 0)
		if err != nil {
			return err
		}
		ns, err := globalNames(exp)
		if err != nil {
			return err
		}
		names = append(names, ns...)
		chunk.Reset()
		return nil
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "#") {
			chunk.WriteString(line)
			chunk.WriteByte('\n')
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		d := strings.TrimSpace(t[1:])
		switch {
		case strings.HasPrefix(d, "define"):
			m, err := parseDefine(strings.TrimSpace(d[len("define"):]))
			if err != nil {
				return nil, err
			}
			macros[m.name] = m
		case strings.HasPrefix(d, "undef"):
			delete(macros, strings.TrimSpace(d[len("undef"):]))
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return names, nil
}

// macro is a #define: function-like when params is not nil.
type macro struct {
	name   string
	params []string
	body   string
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`)

func parseDefine(d string) (*macro, error) {
	name := identRE.FindString(d)
	if name == "" {
		return nil, fmt.Errorf("#define without a name: %q", d)
	}
	rest := d[len(name):]
	m := &macro{name: name}
	if strings.HasPrefix(rest, "(") {
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return nil, fmt.Errorf("#define %s: unclosed parameter list", name)
		}
		m.params = []string{}
		if ps := strings.TrimSpace(rest[1:end]); ps != "" {
			for _, p := range strings.Split(ps, ",") {
				m.params = append(m.params, strings.TrimSpace(p))
			}
		}
		rest = rest[end+1:]
	}
	m.body = strings.TrimSpace(rest)
	return m, nil
}

// stripComments replaces // and /* */ comments by a space (keeping newlines), outside
// string and character literals.
func stripComments(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '"' || s[i] == '\'':
			j := skipLiteral(s, i)
			sb.WriteString(s[i:j])
			i = j
		case strings.HasPrefix(s[i:], "//"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return sb.String()
			}
			sb.WriteByte(' ')
			i += j
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			end := len(s)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			sb.WriteByte(' ')
			sb.WriteString(strings.Repeat("\n", strings.Count(s[i:end], "\n")))
			i = end
		default:
			sb.WriteByte(s[i])
			i++
		}
	}
	return sb.String()
}

// skipLiteral returns the end of the string or character literal at s[i].
func skipLiteral(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q, '\n':
			return j + 1
		}
	}
	return len(s)
}

// maxExpansionDepth bounds the nesting of macro expansions (the sources nest three
// deep); a deeper one is taken for a cycle the disabled set missed.
const maxExpansionDepth = 32

// expand expands the macros in s, those in disabled excepted (the ones being
// expanded, as the preprocessor's rescanning rule has it).
func expand(s string, macros map[string]*macro, disabled map[string]bool, depth int) (string, error) {
	if depth > maxExpansionDepth {
		return "", fmt.Errorf("macro expansion deeper than %d", maxExpansionDepth)
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c == '"' || c == '\'' {
			j := skipLiteral(s, i)
			sb.WriteString(s[i:j])
			i = j
			continue
		}
		if !isIdentStart(c) {
			if isDigit(c) { // a number's letters are not identifiers (0x1p-900, 1ULL)
				j := i
				for j < len(s) && (isIdent(s[j]) || s[j] == '.') {
					j++
				}
				sb.WriteString(s[i:j])
				i = j
				continue
			}
			sb.WriteByte(c)
			i++
			continue
		}
		j := i
		for j < len(s) && isIdent(s[j]) {
			j++
		}
		id := s[i:j]
		m := macros[id]
		if m == nil || disabled[id] {
			sb.WriteString(id)
			i = j
			continue
		}
		body := m.body
		next := j
		if m.params != nil {
			k := j
			for k < len(s) && isSpace(s[k]) {
				k++
			}
			if k >= len(s) || s[k] != '(' {
				sb.WriteString(id) // a function-like macro's name without arguments
				i = j
				continue
			}
			args, end, err := splitArgs(s, k)
			if err != nil {
				return "", fmt.Errorf("macro %s: %w", id, err)
			}
			if len(args) == 1 && args[0] == "" && len(m.params) == 0 {
				args = nil
			}
			if len(args) != len(m.params) {
				return "", fmt.Errorf("macro %s takes %d arguments, given %d", id, len(m.params), len(args))
			}
			if body, err = substitute(m, args, macros, disabled, depth); err != nil {
				return "", err
			}
			next = end
		}
		dis := map[string]bool{id: true}
		for k := range disabled {
			dis[k] = true
		}
		out, err := expand(body, macros, dis, depth+1)
		if err != nil {
			return "", err
		}
		sb.WriteString(" ")
		sb.WriteString(out)
		sb.WriteString(" ")
		i = next
	}
	return sb.String(), nil
}

// splitArgs parses the argument list whose '(' is s[open]: the arguments, split at
// commas outside parentheses and trimmed, and the position after the ')'.
func splitArgs(s string, open int) ([]string, int, error) {
	var args []string
	depth, start := 0, open+1
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			i = skipLiteral(s, i) - 1
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				args = append(args, strings.TrimSpace(s[start:i]))
				return args, i + 1, nil
			}
		case ',':
			if depth == 1 {
				args = append(args, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return nil, 0, fmt.Errorf("unclosed argument list")
}

// substitute puts args in m's body: an argument next to ## as written, any other
// fully expanded first; then it pastes the tokens around each ##.
func substitute(m *macro, args []string, macros map[string]*macro, disabled map[string]bool, depth int) (string, error) {
	param := map[string]int{}
	for i, p := range m.params {
		param[p] = i
	}
	body := m.body
	var sb strings.Builder
	for i := 0; i < len(body); {
		c := body[i]
		if c == '"' || c == '\'' {
			j := skipLiteral(body, i)
			sb.WriteString(body[i:j])
			i = j
			continue
		}
		if !isIdentStart(c) {
			sb.WriteByte(c)
			i++
			continue
		}
		j := i
		for j < len(body) && isIdent(body[j]) {
			j++
		}
		id := body[i:j]
		p, ok := param[id]
		if !ok {
			sb.WriteString(id)
			i = j
			continue
		}
		if pastedBefore(body, i) || pastedAfter(body, j) {
			sb.WriteString(args[p])
		} else {
			a, err := expand(args[p], macros, disabled, depth+1)
			if err != nil {
				return "", err
			}
			sb.WriteString(strings.TrimSpace(a))
		}
		i = j
	}
	return pasteRE.ReplaceAllString(sb.String(), ""), nil
}

// pasteRE matches a ## operator with the white space around it.
var pasteRE = regexp.MustCompile(`\s*##\s*`)

func pastedBefore(s string, i int) bool {
	t := strings.TrimRight(s[:i], " \t")
	return strings.HasSuffix(t, "##")
}

func pastedAfter(s string, j int) bool {
	return strings.HasPrefix(strings.TrimLeft(s[j:], " \t"), "##")
}

// globalRE finds the start of a kernel definition.
var globalRE = regexp.MustCompile(`extern\s*"C"\s*__global__`)

// globalNames returns the kernel names in expanded source: after each extern "C"
// __global__, the identifier before the first '(' that does not open an attribute
// (__launch_bounds__(…), __attribute__((…))).
func globalNames(s string) ([]string, error) {
	var names []string
	for _, loc := range globalRE.FindAllStringIndex(s, -1) {
		i, name := loc[1], ""
		for name == "" {
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			if i >= len(s) || !isIdentStart(s[i]) {
				return nil, fmt.Errorf("no kernel name after %q", excerpt(s, loc[0]))
			}
			j := i
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			id := s[i:j]
			k := j
			for k < len(s) && isSpace(s[k]) {
				k++
			}
			switch {
			case k < len(s) && s[k] == '(' && (id == "__launch_bounds__" || id == "__attribute__"):
				_, end, err := splitArgs(s, k)
				if err != nil {
					return nil, fmt.Errorf("%s after %q: %w", id, excerpt(s, loc[0]), err)
				}
				i = end
			case k < len(s) && s[k] == '(':
				name = id
			default:
				i = j
			}
		}
		names = append(names, name)
	}
	return names, nil
}

func excerpt(s string, i int) string {
	e := min(len(s), i+80)
	return strings.Join(strings.Fields(s[i:e]), " ")
}

func isSpace(c byte) bool      { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdent(c byte) bool      { return isIdentStart(c) || isDigit(c) }
