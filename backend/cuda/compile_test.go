package cuda

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/blockamg/blockamg/internal/cudadrv"
)

// units returns the table of the embedded kernels, failing the test when it cannot
// be built.
func units(t *testing.T) *unitTable {
	t.Helper()
	tab, err := kernelUnits()
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// compileUnitsSM90 compiles every unit for sm_90 with NVRTC, in parallel, with the
// extra options, and returns the CUBINs by file; it skips the test without an NVRTC
// library (no GPU needed: set BLOCKAMG_NVRTC on a machine without a toolkit).
func compileUnitsSM90(t *testing.T, keep func(*kernelUnit) bool, extra ...string) (map[string][]byte, map[string]string) {
	t.Helper()
	if _, err := cudadrv.LoadNVRTC(); errors.Is(err, cudadrv.ErrNoNVRTC) {
		t.Skip("no NVRTC library (set BLOCKAMG_NVRTC to test kernel compilation)")
	} else if err != nil {
		t.Fatal(err)
	}
	opts := append(compileOptions("sm_90", false), extra...)
	var mu sync.Mutex
	imgs, logs := map[string][]byte{}, map[string]string{}
	var wg sync.WaitGroup
	for _, u := range units(t).units {
		if keep != nil && !keep(u) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			compileSlots <- struct{}{}
			t0 := time.Now()
			img, log, err := cudadrv.CompileCUBIN(u.src, u.file, opts)
			d := time.Since(t0)
			<-compileSlots
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("kernels/%s: %v\n%s", u.file, err, log)
				return
			}
			imgs[u.file], logs[u.file] = img, log
			t.Logf("kernels/%s: compiled in %.2f s", u.file, d.Seconds())
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return imgs, logs
}

// cubinEntries returns the names of the kernels (entry functions) a CUBIN defines.
// A CUBIN is an ELF file whose version fields carry the CUDA ABI, which debug/elf
// rejects: they are set to 1 on a copy before parsing.
func cubinEntries(img []byte) ([]string, error) {
	if !bytes.HasPrefix(img, []byte("\x7fELF")) || len(img) < 24 {
		return nil, fmt.Errorf("not an ELF file")
	}
	c := append([]byte(nil), img...)
	c[6] = 1
	c[20], c[21], c[22], c[23] = 1, 0, 0, 0
	f, err := elf.NewFile(bytes.NewReader(c))
	if err != nil {
		return nil, err
	}
	syms, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	const stoCUDAEntry = 0x10
	var names []string
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Other&stoCUDAEntry != 0 {
			names = append(names, s.Name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// TestKernelsCompile compiles every unit for sm_90 with NVRTC, when a library is
// found (no GPU needed: set BLOCKAMG_NVRTC on a machine without a toolkit), and
// checks that each unit's CUBIN defines exactly the kernels the index gives it. It
// logs each unit's compile time (the units compile in parallel, as New's do).
func TestKernelsCompile(t *testing.T) {
	tab := units(t)
	imgs, logs := compileUnitsSM90(t, nil)
	for _, u := range tab.units {
		if logs[u.file] != "" {
			t.Logf("kernels/%s: compiler log:\n%s", u.file, logs[u.file])
		}
		got, err := cubinEntries(imgs[u.file])
		if err != nil {
			t.Errorf("kernels/%s: %v", u.file, err)
			continue
		}
		want := slices.Sorted(slices.Values(u.kernels))
		if !slices.Equal(got, want) {
			t.Errorf("kernels/%s: the CUBIN defines %v, the index %v", u.file, got, want)
		}
	}
}

// TestKernelIndex checks the kernel → unit index without NVRTC: every kernel name
// the launchers form is indexed, no unit's name is malformed, every extern "C"
// __global__ of the expanded sources has a name, and each unit defines at least
// one kernel.
func TestKernelIndex(t *testing.T) {
	tab := units(t)
	valid := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	for _, u := range tab.units {
		if len(u.kernels) == 0 {
			t.Errorf("kernels/%s defines no kernel", u.file)
		}
		for _, k := range u.kernels {
			if !valid.MatchString(k) {
				t.Errorf("kernels/%s: malformed kernel name %q", u.file, k)
			}
		}
	}
	for _, name := range launcherKernelNames(t) {
		if _, ok := tab.index[name]; !ok {
			t.Errorf("kernel %s, which a launcher uses, is in no unit's index", name)
		}
	}
	// Every directly written definition is indexed, in its own file's unit.
	direct := regexp.MustCompile(`extern\s*"C"\s*__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\(`)
	for _, u := range tab.units {
		b, err := kernelFS.ReadFile("kernels/" + u.file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range direct.FindAllStringSubmatch(withoutDirectives(string(b)), -1) {
			if i, ok := tab.index[m[1]]; !ok || tab.units[i] != u {
				t.Errorf("kernel %s of kernels/%s is not indexed to it", m[1], u.file)
			}
		}
	}
	// Headers define no kernels: a header's kernel would be defined by every unit
	// that includes it.
	hs, err := fs.Glob(kernelFS, "kernels/*.cuh")
	if err != nil || len(hs) == 0 {
		t.Fatalf("no headers found (%v)", err)
	}
	for _, h := range hs {
		b, _ := kernelFS.ReadFile(h)
		if globalRE.MatchString(stripComments(string(b))) {
			t.Errorf("%s defines a kernel; kernels belong to the .cu files", h)
		}
	}
	for f := range laterUnits {
		if !slices.ContainsFunc(tab.units, func(u *kernelUnit) bool { return u.file == f }) {
			t.Errorf("laterUnits names %s, which is not a kernels/*.cu file", f)
		}
	}
}

// withoutDirectives returns s without its comments and preprocessor directives
// (macro definitions included, with their continuation lines).
func withoutDirectives(s string) string {
	var out []string
	for _, l := range strings.Split(stripComments(strings.ReplaceAll(s, "\\\n", " ")), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// launcherKernelNames returns the kernel names the Go side launches: those its
// launchers write as literals (run, fnGlobal, Launch, launch and the like, in this
// package and in fem/cudafem) and those they build from the variant tables.
func launcherKernelNames(t *testing.T) []string {
	t.Helper()
	lit := regexp.MustCompile(`(?:\brun|fnGlobal|Launch|launch|cgSum|scalar|vecop|mmaRate)\((?:[^"()]*, )?"([a-z][a-z0-9_]*)"\s*[,)]`)
	var files []string
	for _, pat := range []string{"*.go", "../../fem/cudafem/*.go"} {
		fs, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	if _, err := os.Stat("launch.go"); err != nil {
		// A test binary run away from its package directory (the GPU machine runs
		// them from the repository root) has no sources to read.
		t.Skip("the launchers' sources are not in the working directory: run from backend/cuda (go test does)")
	}
	set := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range lit.FindAllStringSubmatch(string(b), -1) {
			set[m[1]] = true
		}
	}
	if len(set) < 50 {
		t.Fatalf("found only %d kernel names in the launchers: the pattern no longer matches them", len(set))
	}
	set["bsr_spmv_generic"] = true
	for s, vs := range spmvVariants {
		for _, v := range vs {
			set[spmvKernelName(s, v)] = true
		}
	}
	for _, r := range []int{3, 6} {
		for _, v := range shapeVariants {
			if strings.HasPrefix(v.tag, "r") || v == ctaVariant {
				set[fmt.Sprintf("cheb_step_%dx%d_%s", r, r, v.tag)] = true
				set[fmt.Sprintf("res_step_%dx%d_%s", r, r, v.tag)] = true
			}
		}
		set[fmt.Sprintf("lz_residual_%d", r)] = true
		set[fmt.Sprintf("resetup_invert_diag_%d", r)] = true
	}
	for _, tag := range []string{"3x6", "6x6", "generic"} {
		for _, k := range []string{"resetup_smooth_", "resetup_smooth_plan_", "spg_w_", "spg_ac_",
			"gal_fused_", "gal_w_abs_", "gal_ac_abs_", "gal_w_list_", "gal_ac_list_", "gal_w_rows_", "gal_ac_rows_",
			"gal_w_tcp_", "gal_w_smr_", "gal_ac_smr_", "gal_w_tile_", "gal_w_tcb_", "gal_ac_tcb_",
			"gal_w_tcr16_", "gal_ac_tcr16_", "gal_w_tcr32_", "gal_ac_tcr32_", "gal_w_search_", "gal_ptw_atomic_nd_"} {
			set[k+tag] = true
		}
	}
	for _, k := range []int{4, 8, 16} {
		set[fmt.Sprintf("gal_dmma16_rate_k%d", k)] = true
	}
	return slices.Sorted(func(yield func(string) bool) {
		for k := range set {
			if !yield(k) {
				return
			}
		}
	})
}

// TestKernelNames checks the macro expansion of the index on the forms the sources
// use: nested function-like macros, ## with empty and macro arguments, an argument
// that is the whole name, #undef, attributes before the name, and definitions in
// comments and strings, which do not count.
func TestKernelNames(t *testing.T) {
	src := `
#define LB0 __launch_bounds__(THREADS)
#define ONE(R, C, U, LB, SUF) \
    extern "C" __global__ void LB k_##R##x##C##_u##U##SUF(int n) { }
#define SHAPE(R, C) ONE(R, C, 1, LB0, ) ONE(R, C, 2, __launch_bounds__(THREADS, 4), _b4)
SHAPE(3, 6)
#define NAMED(NAME, B) extern "C" __global__ void __launch_bounds__(THREADS) NAME(int b) { f<B>(b); }
NAMED(plain_3, 3)
// extern "C" __global__ void commented(int n) {}
/* extern "C" __global__ void block_commented(int n) {} */
const char* s = "extern \"C\" __global__ void quoted(";
extern "C" __global__ void __launch_bounds__(THREADS) direct(int n, double a) { }
#undef NAMED
#define NAMED(X) extern "C" __global__ void again_##X(void) {}
NAMED(z)
#define TAG 6x6
#define INDIRECT(T) ONE(6, 6, 4, , T)
INDIRECT(_t)
`
	got, err := kernelNames(src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"k_3x6_u1", "k_3x6_u2_b4", "plain_3", "direct", "again_z", "k_6x6_u4_t"}
	if !slices.Equal(got, want) {
		t.Errorf("kernelNames = %v, want %v", got, want)
	}
	for _, bad := range []string{
		"#define M(a, b) x\nM(1)\n",                      // wrong argument count
		"#define M(a) a\nM(1\n",                          // unclosed
		"extern \"C\" __global__ void __launch_bounds__", // no name
	} {
		if _, err := kernelNames(bad); err == nil {
			t.Errorf("kernelNames(%q) did not fail", bad)
		}
	}
}

// TestUnitsSelfContained checks without NVRTC that each unit compiles alone: its
// includes are resolved (none left, each header once, common.cuh in every unit), and
// every __device__ function or macro that some kernels/ file defines and the unit
// uses is defined in the unit.
func TestUnitsSelfContained(t *testing.T) {
	tab := units(t)
	// What each file defines.
	devfn := regexp.MustCompile(`__device__\s+(?:__forceinline__\s+|__noinline__\s+|inline\s+|static\s+)*[A-Za-z_][\w:<>]*\s*\*?\s+([A-Za-z_]\w*)\s*\(`)
	define := regexp.MustCompile(`(?m)^\s*#\s*define\s+([A-Za-z_]\w*)`)
	defs := map[string][]string{} // name → the files defining it
	ents, err := kernelFS.ReadDir("kernels")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, _ := kernelFS.ReadFile("kernels/" + e.Name())
		s := stripComments(string(b))
		for _, re := range []*regexp.Regexp{devfn, define} {
			for _, m := range re.FindAllStringSubmatch(s, -1) {
				if !slices.Contains(defs[m[1]], e.Name()) {
					defs[m[1]] = append(defs[m[1]], e.Name())
				}
			}
		}
	}
	if len(defs["find_col"]) != 1 || len(defs["block_sum"]) != 1 {
		t.Fatalf("the definitions scan found find_col in %v and block_sum in %v: it no longer matches the sources", defs["find_col"], defs["block_sum"])
	}
	word := func(s, w string) bool {
		return regexp.MustCompile(`\b` + regexp.QuoteMeta(w) + `\b`).MatchString(s)
	}
	for _, u := range tab.units {
		src := stripComments(u.src)
		if includeRE.MatchString(src) || regexp.MustCompile(`(?m)^\s*#\s*include`).MatchString(src) {
			t.Errorf("kernels/%s: an #include is left in the unit", u.file)
		}
		if !strings.HasPrefix(u.src, "#line 1 \""+u.file+"\"\n") {
			t.Errorf("kernels/%s: the unit does not start with its own #line", u.file)
		}
		if n := strings.Count(u.src, "#line 1 \"common.cuh\"\n"); n != 1 {
			t.Errorf("kernels/%s: common.cuh inlined %d times, want once", u.file, n)
		}
		local := map[string]bool{}
		for _, re := range []*regexp.Regexp{devfn, define} {
			for _, m := range re.FindAllStringSubmatch(src, -1) {
				local[m[1]] = true
			}
		}
		for name, files := range defs {
			if local[name] || len(name) < 3 || !word(src, name) {
				continue
			}
			t.Errorf("kernels/%s uses %s, defined in %v but not in the unit (move it to a header the unit includes)", u.file, name, files)
		}
	}
}

// TestAssembleUnit checks the assembly of a unit on a small tree: nested includes,
// each header once, #line directives that resume the includer's numbering, and
// errors that name the file.
func TestAssembleUnit(t *testing.T) {
	fsys := fstest.MapFS{
		"a.cu":  {Data: []byte("// a\n#include \"h.cuh\"\n#include \"g.cuh\"\nint a;\n")},
		"h.cuh": {Data: []byte("#include \"g.cuh\"\nint h;\n")},
		"g.cuh": {Data: []byte("int g;")},
		"b.cu":  {Data: []byte("#include \"missing.cuh\"\n")},
		"c.cu":  {Data: []byte("#include \"../x.cuh\"\n")},
	}
	got, err := assembleUnit(fsys, "a.cu")
	if err != nil {
		t.Fatal(err)
	}
	want := "#line 1 \"a.cu\"\n// a\n#line 1 \"h.cuh\"\n#line 1 \"g.cuh\"\nint g;\n#line 2 \"h.cuh\"\nint h;\n#line 3 \"a.cu\"\n\nint a;\n"
	if got != want {
		t.Errorf("assembleUnit:\n%s\nwant:\n%s", got, want)
	}
	for file, part := range map[string]string{"b.cu": "kernels/b.cu includes \"missing.cuh\"", "c.cu": "kernels/c.cu includes \"../x.cuh\""} {
		if _, err := assembleUnit(fsys, file); err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("assembleUnit(%s): error %v, want one containing %q", file, err, part)
		}
	}
}

// TestCacheKey checks that the cache key changes with each input it depends on.
func TestCacheKey(t *testing.T) {
	base := cacheKey("src", []string{"-a"}, 13, 0, "sm_90")
	for _, k := range []string{
		cacheKey("src2", []string{"-a"}, 13, 0, "sm_90"),
		cacheKey("src", []string{"-b"}, 13, 0, "sm_90"),
		cacheKey("src", []string{"-a"}, 13, 1, "sm_90"),
		cacheKey("src", []string{"-a"}, 13, 0, "sm_80"),
	} {
		if k == base {
			t.Errorf("cache key %s did not change", k)
		}
	}
}

// TestUnitCacheKeys checks that every unit has its own cache key and file, and that
// changing a header changes the keys of exactly the units that include it.
func TestUnitCacheKeys(t *testing.T) {
	opts := compileOptions("sm_90", false)
	keys := func(fsys fstest.MapFS) map[string]string {
		t.Helper()
		tab, err := loadUnits(fsys)
		if err != nil {
			t.Fatal(err)
		}
		k := map[string]string{}
		for _, u := range tab.units {
			k[u.file] = cacheKey(u.src, opts, 13, 0, "sm_90")
		}
		return k
	}
	fsys := fstest.MapFS{}
	ents, err := kernelFS.ReadDir("kernels")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, _ := kernelFS.ReadFile("kernels/" + e.Name())
		fsys[e.Name()] = &fstest.MapFile{Data: b}
	}
	base := keys(fsys)
	files, seen := map[string]string{}, map[string]string{}
	for u, k := range base {
		if v, dup := seen[k]; dup {
			t.Errorf("kernels/%s and kernels/%s have the same cache key", u, v)
		}
		seen[k] = u
		f := cacheFile("/c", u, k)
		if v, dup := files[f]; dup {
			t.Errorf("kernels/%s and kernels/%s have the same cache file", u, v)
		}
		files[f] = u
	}
	for _, h := range []string{"common.cuh", "search.cuh", "bsr.cuh", "resetup.cuh"} {
		users := map[string]bool{}
		for u := range base {
			src, _ := assembleUnit(fsys, u)
			users[u] = strings.Contains(src, "#line 1 \""+h+"\"\n")
		}
		if h == "common.cuh" && slices.Contains(slices.Collect(maps.Values(users)), false) {
			t.Fatalf("common.cuh is not in every unit: %v", users)
		}
		changed := fstest.MapFS{}
		for n, f := range fsys {
			changed[n] = f
		}
		changed[h] = &fstest.MapFile{Data: append(append([]byte(nil), fsys[h].Data...), "\n// changed\n"...)}
		after := keys(changed)
		n := 0
		for u, k := range after {
			if (k != base[u]) != users[u] {
				t.Errorf("changing %s: kernels/%s's key changed %v, want %v (includes it: %v)", h, u, k != base[u], users[u], users[u])
			}
			if users[u] {
				n++
			}
		}
		if n == 0 {
			t.Errorf("no unit includes %s", h)
		}
	}
}

// TestChooseVariant pins the selection rule on the operators of the bandwidth report
// and checks that every choice names an instantiated kernel.
func TestChooseVariant(t *testing.T) {
	for _, tc := range []struct {
		r, c      int
		nnz       int64
		rows      int
		want      string
		specialis bool
	}{
		{3, 3, 27_270_901, 1_030_301, "r16_u2", true}, // ex56 ne=100 operator, 26.5 blocks/row
		{3, 6, 4_776_588, 1_030_301, "r16_u1", true},  // smoothed prolongator, 4.6 blocks/row
		{6, 3, 4_776_588, 39_304, "r32_u2_b4", true},  // its transpose, 122 blocks/row
		{6, 6, 1_000_000, 39_304, "r32_u2", true},     // coarse operator, 25 blocks/row
		{6, 6, 493_039, 4_913, "r32_u2_b4", true},     // ne=100 level 2, 100 blocks/row
		{6, 6, 13_824, 216, "cta", true},              // ne=100 level 3, 64 blocks/row
		{6, 6, 1_728, 216, "r16_u2", true},            // 216 rows of 8 blocks: half a warp each
		{3, 3, 0, 0, "r16_u1", true},                  // empty
		{5, 2, 100, 10, "generic", false},             // no specialised kernel
	} {
		v := chooseVariant(tc.r, tc.c, tc.nnz, tc.rows)
		if v.String() != tc.want {
			t.Errorf("%d×%d, %d blocks in %d rows: chose %v, want %s", tc.r, tc.c, tc.nnz, tc.rows, v, tc.want)
		}
		found := false
		for _, k := range spmvVariants[spmvShape{tc.r, tc.c}] {
			found = found || k == v
		}
		if found != tc.specialis {
			t.Errorf("%d×%d: variant %v instantiated = %v, want %v", tc.r, tc.c, v, found, tc.specialis)
		}
	}
}

// TestKernelConstants checks that the constants launchers share with the kernel source
// agree: the block size (kernels/common.cuh's THREADS) and the tc-pairs entries a warp
// (kernels/galerkin_tc.cuh's GAL_PAIR_ENTRIES), which size the grids. No GPU needed.
func TestKernelConstants(t *testing.T) {
	tab := units(t)
	for name, v := range map[string]int{"THREADS": threads, "GAL_PAIR_ENTRIES": pairEntriesPerWarp} {
		def := fmt.Sprintf("#define %s %d\n", name, v)
		found := false
		for _, u := range tab.units {
			found = found || strings.Contains(u.src, def)
		}
		if !found {
			t.Errorf("the kernel sources lack %q, the launchers' value", strings.TrimSpace(def))
		}
	}
}

// TestPrepareCache checks a unit's preparation against the cache without NVRTC: a
// CUBIN in the cache file is read, not compiled, and reported as from disk.
func TestPrepareCache(t *testing.T) {
	tab := units(t)
	u := tab.units[0]
	opts := compileOptions("sm_90", false)
	key := cacheKey(u.src, opts, 13, 0, "sm_90")
	dir := t.TempDir()
	file := cacheFile(dir, u.file, key)
	img := []byte("\x7fELF a CUBIN")
	if err := writeAtomic(file, img); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".kernels-*")); len(m) != 0 {
		t.Errorf("writeAtomic left %v", m)
	}
	s := &unitState{u: u, key: key, file: file, done: make(chan struct{})}
	s.prepare(opts)
	<-s.done
	if s.err != nil || !s.fromDisk || !bytes.Equal(s.img, img) {
		t.Errorf("prepare: err %v, from disk %v, image %q; want the cache file's", s.err, s.fromDisk, s.img)
	}
}

// TestPrepareCompiles compiles a unit through prepare when NVRTC is found: the CUBIN
// is written to its cache file, and a second preparation reads it.
func TestPrepareCompiles(t *testing.T) {
	if _, err := cudadrv.LoadNVRTC(); errors.Is(err, cudadrv.ErrNoNVRTC) {
		t.Skip("no NVRTC library (set BLOCKAMG_NVRTC to test kernel compilation)")
	} else if err != nil {
		t.Fatal(err)
	}
	tab := units(t)
	u := tab.units[tab.index["scan_add"]]
	opts := compileOptions("sm_90", false)
	key := cacheKey(u.src, opts, 0, 0, "sm_90")
	file := cacheFile(t.TempDir(), u.file, key)
	var imgs [][]byte
	for i, fromDisk := range []bool{false, true} {
		s := &unitState{u: u, key: key, file: file, done: make(chan struct{})}
		s.prepare(opts)
		if s.err != nil {
			t.Fatal(s.err)
		}
		if s.fromDisk != fromDisk || s.written == fromDisk {
			t.Errorf("preparation %d: from disk %v, written %v; want from disk %v", i, s.fromDisk, s.written, fromDisk)
		}
		imgs = append(imgs, s.img)
	}
	if !bytes.Equal(imgs[0], imgs[1]) {
		t.Errorf("the cache file holds another CUBIN than the one compiled")
	}
	if got, err := cubinEntries(imgs[0]); err != nil || !slices.Equal(got, slices.Sorted(slices.Values(u.kernels))) {
		t.Errorf("kernels/%s: the CUBIN defines %v (%v), the index %v", u.file, got, err, u.kernels)
	}
}

// TestUnitErrorsNameTheFile checks that a unit's failure names its file, and that
// the failure is kept for the unit's later kernels. No GPU needed: the failure is the
// compilation's, before any driver call.
func TestUnitErrorsNameTheFile(t *testing.T) {
	tab := units(t)
	b := &Backend{}
	b.info.Arch = "sm_90"
	u := tab.units[tab.index["gal_zero"]]
	s := &unitState{u: u, done: make(chan struct{}), err: errors.New("NVRTC_ERROR_COMPILATION")}
	close(s.done)
	for range 2 {
		err := b.loadUnit(s)
		if err == nil || !strings.Contains(err.Error(), "compiling kernels/galerkin.cu for sm_90: NVRTC_ERROR_COMPILATION") {
			t.Errorf("loadUnit: %v", err)
		}
	}
}
