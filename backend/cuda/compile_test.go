package cuda

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestKernelsCompile compiles the embedded kernels for sm_90 with NVRTC, when a library
// is found (no GPU needed: set BLOCKAMG_NVRTC on a machine without a toolkit), and
// checks that the CUBIN defines every kernel the launchers resolve.
func TestKernelsCompile(t *testing.T) {
	img := compileSM90(t, Source(), "blockamg.cu")
	// A CUBIN is an ELF file whose version field debug/elf rejects; its string table
	// holds each kernel's name between NUL bytes.
	if !bytes.HasPrefix(img, []byte("\x7fELF")) {
		t.Fatalf("CUBIN does not start with the ELF magic")
	}
	have := func(name string) bool { return bytes.Contains(img, []byte("\x00"+name+"\x00")) }
	want := []string{"bsr_spmv_generic", "blockdiag_apply", "vec_axpby", "vec_scale", "vec_vmul", "dot_partial", "dot_final", "copy_kernel"}
	for s, vs := range spmvVariants {
		for _, v := range vs {
			want = append(want, spmvKernelName(s, v))
		}
	}
	for _, name := range want {
		if !have(name) {
			t.Errorf("kernel %s missing from the CUBIN", name)
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
// (kernels/galerkin.cu's GAL_PAIR_ENTRIES), which size the grids. No GPU needed.
func TestKernelConstants(t *testing.T) {
	src := Source()
	for name, v := range map[string]int{"THREADS": threads, "GAL_PAIR_ENTRIES": pairEntriesPerWarp} {
		if def := fmt.Sprintf("#define %s %d\n", name, v); !strings.Contains(src, def) {
			t.Errorf("the kernel source lacks %q, the launchers' value", strings.TrimSpace(def))
		}
	}
}

// TestAssemblyKernelsCompile compiles kernels/assembly.cu on its own (after common.cuh)
// for sm_90 when an NVRTC library is found (no GPU needed), and checks that both of its
// kernels are in the CUBIN.
func TestAssemblyKernelsCompile(t *testing.T) {
	var src strings.Builder
	for _, name := range []string{"common.cuh", "assembly.cu"} {
		b, err := kernelFS.ReadFile("kernels/" + name)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&src, "#line 1 \"%s\"\n%s\n", name, b)
	}
	img := compileSM90(t, src.String(), "assembly.cu")
	for _, name := range []string{"asm_numeric", "asm_check_pattern"} {
		if !bytes.Contains(img, []byte("\x00"+name+"\x00")) {
			t.Errorf("kernel %s missing from the CUBIN", name)
		}
	}
}
