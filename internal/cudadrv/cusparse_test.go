package cudadrv

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// cusparseOrSkip loads cuSPARSE or skips with the one-line reason.
func cusparseOrSkip(t *testing.T) string {
	t.Helper()
	path, err := LoadCusparse()
	if errors.Is(err, ErrNoCusparse) {
		t.Skip("no cuSPARSE library (set BLOCKAMG_CUSPARSE to test the binding)")
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCusparseLoad checks that every entry point resolved, and the two calls that need
// no device: the library's version and a status's name.
func TestCusparseLoad(t *testing.T) {
	path := cusparseOrSkip(t)
	ma, mi, pa, err := CusparseVersion()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cuSPARSE %d.%d.%d from %s", ma, mi, pa, path)
	if ma < 11 {
		t.Errorf("cuSPARSE major version %d: the generic SpGEMM API needs 11 or later", ma)
	}
	if got := SparseStatusName(SparseStatusInvalidValue); !strings.HasPrefix(got, "CUSPARSE_STATUS_INVALID_VALUE") {
		t.Errorf("SparseStatusName(3) = %q", got)
	}
	if CusparsePath() == "" {
		t.Error("CusparsePath empty after a successful load")
	}
}

// TestCusparseSpGEMM multiplies two 3×3 and 3×2 matrices with cuSPARSE on device 0,
// through the same call sequence as backend/cuda's baseline, and compares with the
// product worked by hand. It needs a driver, a device and cuSPARSE.
func TestCusparseSpGEMM(t *testing.T) {
	cusparseOrSkip(t)
	if err := Load(); err != nil {
		t.Skip(err)
	}
	if err := Init(); err != nil {
		if errors.Is(err, ErrNoDevice) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	// The context is current per thread: keep this goroutine on one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d, err := DeviceGet(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := PrimaryCtxRetain(d)
	if err != nil {
		t.Fatal(err)
	}
	defer PrimaryCtxRelease(d)
	if err := CtxSetCurrent(ctx); err != nil {
		t.Fatal(err)
	}
	// A = [1 0 2; 0 3 0; 4 0 5], B = [1 1; 0 2; 3 0], C = A·B = [7 1; 0 6; 19 4].
	aRow, aCol, aVal := []int32{0, 2, 3, 5}, []int32{0, 2, 1, 0, 2}, []float64{1, 2, 3, 4, 5}
	bRow, bCol, bVal := []int32{0, 2, 3, 4}, []int32{0, 1, 1, 0}, []float64{1, 1, 2, 3}
	wantRow, wantCol, wantVal := []int32{0, 2, 3, 5}, []int32{0, 1, 1, 0, 1}, []float64{7, 1, 6, 19, 4}

	var ptrs []DevPtr
	defer func() {
		for _, p := range ptrs {
			MemFree(p)
		}
	}()
	dev := func(p unsafe.Pointer, bytes int) DevPtr {
		t.Helper()
		q, err := MemAlloc(uint64(bytes))
		if err != nil {
			t.Fatal(err)
		}
		ptrs = append(ptrs, q)
		if p != nil {
			if err := MemcpyHtoD(q, p, uint64(bytes)); err != nil {
				t.Fatal(err)
			}
		}
		return q
	}
	dA := [3]DevPtr{dev(unsafe.Pointer(&aRow[0]), 16), dev(unsafe.Pointer(&aCol[0]), 20), dev(unsafe.Pointer(&aVal[0]), 40)}
	dB := [3]DevPtr{dev(unsafe.Pointer(&bRow[0]), 16), dev(unsafe.Pointer(&bCol[0]), 16), dev(unsafe.Pointer(&bVal[0]), 32)}
	cRowPtr := dev(nil, 16)

	h, err := SparseCreate()
	if err != nil {
		t.Fatal(err)
	}
	defer SparseDestroy(h)
	matA, err := CreateCsr32(3, 3, 5, dA[0], dA[1], dA[2])
	if err != nil {
		t.Fatal(err)
	}
	defer DestroySpMat(matA)
	matB, err := CreateCsr32(3, 2, 4, dB[0], dB[1], dB[2])
	if err != nil {
		t.Fatal(err)
	}
	defer DestroySpMat(matB)
	matC, err := CreateCsr32(3, 2, 0, cRowPtr, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer DestroySpMat(matC)
	desc, err := SpGEMMCreateDescr()
	if err != nil {
		t.Fatal(err)
	}
	defer SpGEMMDestroyDescr(desc)

	n1, err := SpGEMMWorkEstimation(h, matA, matB, matC, desc, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SpGEMMWorkEstimation(h, matA, matB, matC, desc, n1, dev(nil, int(max(n1, 8)))); err != nil {
		t.Fatal(err)
	}
	n2, err := SpGEMMCompute(h, matA, matB, matC, desc, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SpGEMMCompute(h, matA, matB, matC, desc, n2, dev(nil, int(max(n2, 8)))); err != nil {
		t.Fatal(err)
	}
	rows, cols, nnz, err := SpMatGetSize(matC)
	if err != nil {
		t.Fatal(err)
	}
	if rows != 3 || cols != 2 || nnz != 5 {
		t.Fatalf("C is %d×%d with %d nonzeros, want 3×2 with 5", rows, cols, nnz)
	}
	cCol, cVal := dev(nil, 20), dev(nil, 40)
	if err := CsrSetPointers(matC, cRowPtr, cCol, cVal); err != nil {
		t.Fatal(err)
	}
	if err := SpGEMMCopy(h, matA, matB, matC, desc); err != nil {
		t.Fatal(err)
	}
	if err := CtxSynchronize(); err != nil {
		t.Fatal(err)
	}
	gotRow, gotCol, gotVal := make([]int32, 4), make([]int32, 5), make([]float64, 5)
	for _, c := range []struct {
		dst   unsafe.Pointer
		src   DevPtr
		bytes uint64
	}{{unsafe.Pointer(&gotRow[0]), cRowPtr, 16}, {unsafe.Pointer(&gotCol[0]), cCol, 20}, {unsafe.Pointer(&gotVal[0]), cVal, 40}} {
		if err := MemcpyDtoH(c.dst, c.src, c.bytes); err != nil {
			t.Fatal(err)
		}
	}
	for i := range wantRow {
		if gotRow[i] != wantRow[i] {
			t.Fatalf("row offsets %v, want %v", gotRow, wantRow)
		}
	}
	for k := range wantCol {
		if gotCol[k] != wantCol[k] || gotVal[k] != wantVal[k] {
			t.Fatalf("columns %v values %v, want %v %v", gotCol, gotVal, wantCol, wantVal)
		}
	}
}
