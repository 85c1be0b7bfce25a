package cudadrv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"unsafe"
)

// This file binds the part of cuSPARSE's generic API that the scalar SpGEMM baseline
// needs (backend/cuda/cusparse.go). cuSPARSE is the vendor library a user would call
// to form PᵀAP after expanding the blocks to scalars; blockamg uses it only to measure
// that alternative and check its result, never in the solver.
//
// cuSPARSE is built on the CUDA runtime, which adopts the driver context current on
// the calling thread, so its calls must come from the thread that made the backend's
// primary context current, like every driver call here; the memory it is given comes
// from MemAlloc in that context.

// ErrNoCusparse is wrapped by the error LoadCusparse returns when no cuSPARSE library
// can be opened.
var ErrNoCusparse = errors.New("no cuSPARSE library")

// Handles of cuSPARSE objects: opaque pointers owned by the library.
type (
	SparseHandle uintptr // cusparseHandle_t
	SpMatDescr   uintptr // cusparseSpMatDescr_t
	SpGEMMDescr  uintptr // cusparseSpGEMMDescr_t
)

// Enumeration values from cusparse.h and library_types.h (C ints; stable since CUDA
// 11.0, when the generic API settled).
const (
	sparseIndex32I            int32 = 2 // CUSPARSE_INDEX_32I
	sparseIndexBaseZero       int32 = 0 // CUSPARSE_INDEX_BASE_ZERO
	sparseOpNonTranspose      int32 = 0 // CUSPARSE_OPERATION_NON_TRANSPOSE
	sparseSpGEMMDefault       int32 = 0 // CUSPARSE_SPGEMM_DEFAULT
	cudaR64F                  int32 = 1 // CUDA_R_64F
	libraryPropertyMajor      int32 = 0 // MAJOR_VERSION
	libraryPropertyMinor      int32 = 1 // MINOR_VERSION
	libraryPropertyPatchLevel int32 = 2 // PATCH_LEVEL
)

// SparseStatusInvalidValue is CUSPARSE_STATUS_INVALID_VALUE, for tests.
const SparseStatusInvalidValue Result = 3

// cusp is the table of cuSPARSE entry points. Device pointers travel as uintptr (void*
// in C); sizes are size_t (uint64) and int64_t.
var cusp struct {
	once sync.Once
	err  error
	path string

	getProperty  func(prop int32, v *int32) int32
	errorName    func(s int32) string
	errorString  func(s int32) string
	create       func(h *uintptr) int32
	destroy      func(h uintptr) int32
	setStream    func(h uintptr, s uintptr) int32
	createCsr    func(d *uintptr, rows, cols, nnz int64, rowOff, colInd, vals uintptr, rowType, colType, base, valType int32) int32
	destroySpMat func(d uintptr) int32
	getSize      func(d uintptr, rows, cols, nnz *int64) int32
	setPointers  func(d uintptr, rowOff, colInd, vals uintptr) int32
	gemmCreate   func(d *uintptr) int32
	gemmDestroy  func(d uintptr) int32
	// workEstimation and compute share cusparse.h's signature:
	// (handle, opA, opB, alpha, matA, matB, beta, matC, computeType, alg, spgemmDescr,
	//  size_t* bufferSize, void* externalBuffer).
	workEstimation func(h uintptr, opA, opB int32, alpha unsafe.Pointer, a, b uintptr, beta unsafe.Pointer, c uintptr, computeType, alg int32, desc uintptr, bufSize *uint64, buf uintptr) int32
	compute        func(h uintptr, opA, opB int32, alpha unsafe.Pointer, a, b uintptr, beta unsafe.Pointer, c uintptr, computeType, alg int32, desc uintptr, bufSize *uint64, buf uintptr) int32
	copy           func(h uintptr, opA, opB int32, alpha unsafe.Pointer, a, b uintptr, beta unsafe.Pointer, c uintptr, computeType, alg int32, desc uintptr) int32
	// The reuse pipeline (cusparseSpGEMMreuse_*, cuSPARSE ≥ 11.3): the pattern once,
	// then numeric products on it.
	reuseWork    func(h uintptr, opA, opB int32, a, b, c uintptr, alg int32, desc uintptr, bufSize *uint64, buf uintptr) int32
	reuseNnz     func(h uintptr, opA, opB int32, a, b, c uintptr, alg int32, desc uintptr, s2 *uint64, b2 uintptr, s3 *uint64, b3 uintptr, s4 *uint64, b4 uintptr) int32
	reuseCopy    func(h uintptr, opA, opB int32, a, b, c uintptr, alg int32, desc uintptr, s5 *uint64, b5 uintptr) int32
	reuseCompute func(h uintptr, opA, opB int32, alpha unsafe.Pointer, a, b uintptr, beta unsafe.Pointer, c uintptr, computeType, alg int32, desc uintptr) int32
}

// cusparseCandidates lists where LoadCusparse looks, in order: BLOCKAMG_CUSPARSE, the
// loader's search path (CUDA 13 ships cuSPARSE 12, soname libcusparse.so.12), the
// toolkit's directories, the NVIDIA Python wheels' directories, and last the CUDA 11
// library of Linux distributions (same generic API).
func cusparseCandidates() []string {
	var c []string
	if p := os.Getenv("BLOCKAMG_CUSPARSE"); p != "" {
		c = append(c, p)
	}
	c = append(c, "libcusparse.so.13", "libcusparse.so.12", "libcusparse.so")
	for _, dir := range []string{"/usr/local/cuda/lib64", filepath.Join(os.Getenv("CUDA_HOME"), "lib64")} {
		if dir == "lib64" { // CUDA_HOME unset
			continue
		}
		c = append(c, filepath.Join(dir, "libcusparse.so.13"), filepath.Join(dir, "libcusparse.so.12"), filepath.Join(dir, "libcusparse.so"))
	}
	for _, pat := range []string{
		"/usr/local/cuda-*/lib64/libcusparse.so.1[2-9]",
		"/usr/local/cuda-*/targets/x86_64-linux/lib/libcusparse.so.1[2-9]",
		"/opt/*/.venv/lib/python3*/site-packages/nvidia/cu1[3-9]/lib/libcusparse.so.1[2-9]",
		"/opt/*/.venv/lib/python3*/site-packages/nvidia/cusparse/lib/libcusparse.so.1[2-9]",
		"/usr/local/lib/python3*/dist-packages/nvidia/cu1[3-9]/lib/libcusparse.so.1[2-9]",
		"/usr/local/lib/python3*/dist-packages/nvidia/cusparse/lib/libcusparse.so.1[2-9]",
		"/usr/lib/python3/dist-packages/nvidia/cusparse/lib/libcusparse.so.1[2-9]",
	} {
		m, _ := filepath.Glob(pat)
		c = append(c, m...)
	}
	return append(c, "libcusparse.so.11")
}

// LoadCusparse opens cuSPARSE (see cusparseCandidates for the search order) and returns
// the file it was loaded from. Only the first call does work. Without a library the
// error wraps ErrNoCusparse and lists what was tried, with the loader's reason for any
// file that exists but would not open (a missing libnvJitLink, typically).
func LoadCusparse() (string, error) {
	cusp.once.Do(func() { cusp.err = loadCusparse() })
	return cusp.path, cusp.err
}

func loadCusparse() error {
	// cuSPARSE 12 needs libnvJitLink; outside the loader's path it sits beside it
	// (toolkit) or in a sibling wheel directory (…/nvidia/nvjitlink/lib).
	deps := func(dir string) {
		preloadFirst(filepath.Join(dir, "libnvJitLink.so*"), filepath.Join(dir, "..", "..", "nvjitlink", "lib", "libnvJitLink.so*"))
	}
	h, path, failed := openFirst(cusparseCandidates(), deps)
	if h == 0 {
		return fmt.Errorf("%w: %s (set BLOCKAMG_CUSPARSE to the library file)", ErrNoCusparse, failed)
	}
	cusp.path = path
	if real := mappedPath("libcusparse.so"); real != "" {
		cusp.path = real
	}
	if name, ok := bindAll(h, []symbol{
		{&cusp.getProperty, "cusparseGetProperty"},
		{&cusp.errorName, "cusparseGetErrorName"},
		{&cusp.errorString, "cusparseGetErrorString"},
		{&cusp.create, "cusparseCreate"},
		{&cusp.destroy, "cusparseDestroy"},
		{&cusp.setStream, "cusparseSetStream"},
		{&cusp.createCsr, "cusparseCreateCsr"},
		{&cusp.destroySpMat, "cusparseDestroySpMat"},
		{&cusp.getSize, "cusparseSpMatGetSize"},
		{&cusp.setPointers, "cusparseCsrSetPointers"},
		{&cusp.gemmCreate, "cusparseSpGEMM_createDescr"},
		{&cusp.gemmDestroy, "cusparseSpGEMM_destroyDescr"},
		{&cusp.workEstimation, "cusparseSpGEMM_workEstimation"},
		{&cusp.compute, "cusparseSpGEMM_compute"},
		{&cusp.copy, "cusparseSpGEMM_copy"},
		{&cusp.reuseWork, "cusparseSpGEMMreuse_workEstimation"},
		{&cusp.reuseNnz, "cusparseSpGEMMreuse_nnz"},
		{&cusp.reuseCopy, "cusparseSpGEMMreuse_copy"},
		{&cusp.reuseCompute, "cusparseSpGEMMreuse_compute"},
	}); !ok {
		return fmt.Errorf("%w: %s lacks %s", ErrNoCusparse, cusp.path, name)
	}
	return nil
}

// CusparsePath returns the file cuSPARSE was loaded from, or "" before LoadCusparse
// succeeds.
func CusparsePath() string { return cusp.path }

func cuspLoaded() {
	if cusp.create == nil {
		panic("cudadrv: cuSPARSE call before a successful LoadCusparse")
	}
}

// sparseCheck turns a cusparseStatus_t into nil or an *Error naming call, e.g.
// "cusparseSpGEMM_compute: CUSPARSE_STATUS_INSUFFICIENT_RESOURCES (11): <description>".
func sparseCheck(call string, r int32) error {
	if r == 0 {
		return nil
	}
	return &Error{Call: call, Code: Result(r), Name: SparseStatusName(Result(r))}
}

// SparseStatusName returns the symbolic name and description of a cusparseStatus_t.
func SparseStatusName(s Result) string {
	if cusp.errorName == nil {
		return fmt.Sprintf("CUSPARSE_STATUS_%d", int32(s))
	}
	name := cusp.errorName(int32(s))
	if d := cusp.errorString(int32(s)); d != "" && d != name {
		name += ": " + d
	}
	return name
}

// CusparseVersion returns cuSPARSE's version (cusparseGetProperty); it needs no device.
func CusparseVersion() (major, minor, patch int, err error) {
	cuspLoaded()
	var v [3]int32
	for i, p := range []int32{libraryPropertyMajor, libraryPropertyMinor, libraryPropertyPatchLevel} {
		if err := sparseCheck("cusparseGetProperty", cusp.getProperty(p, &v[i])); err != nil {
			return 0, 0, 0, err
		}
	}
	return int(v[0]), int(v[1]), int(v[2]), nil
}

// SparseCreate creates a cuSPARSE handle on the current thread's context.
func SparseCreate() (SparseHandle, error) {
	cuspLoaded()
	var h uintptr
	return SparseHandle(h), sparseCheck("cusparseCreate", cusp.create(&h))
}

// SparseDestroy destroys a handle.
func SparseDestroy(h SparseHandle) error {
	cuspLoaded()
	return sparseCheck("cusparseDestroy", cusp.destroy(uintptr(h)))
}

// SparseSetStream makes the handle's work go to stream s.
func SparseSetStream(h SparseHandle, s Stream) error {
	cuspLoaded()
	return sparseCheck("cusparseSetStream", cusp.setStream(uintptr(h), uintptr(s)))
}

// CreateCsr32 describes a zero-based CSR matrix with int32 row offsets and column
// indices and float64 values at the given device addresses (cusparseCreateCsr with
// CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F). colInd and vals may be 0
// for the empty result of an SpGEMM.
func CreateCsr32(rows, cols, nnz int64, rowOff, colInd, vals DevPtr) (SpMatDescr, error) {
	cuspLoaded()
	var d uintptr
	r := cusp.createCsr(&d, rows, cols, nnz, uintptr(rowOff), uintptr(colInd), uintptr(vals),
		sparseIndex32I, sparseIndex32I, sparseIndexBaseZero, cudaR64F)
	if err := sparseCheck("cusparseCreateCsr", r); err != nil {
		return 0, fmt.Errorf("%w (%d×%d, %d nonzeros)", err, rows, cols, nnz)
	}
	return SpMatDescr(d), nil
}

// DestroySpMat destroys a matrix descriptor (not the memory it points to).
func DestroySpMat(d SpMatDescr) error {
	cuspLoaded()
	return sparseCheck("cusparseDestroySpMat", cusp.destroySpMat(uintptr(d)))
}

// SpMatGetSize returns a descriptor's dimensions and number of nonzeros.
func SpMatGetSize(d SpMatDescr) (rows, cols, nnz int64, err error) {
	cuspLoaded()
	err = sparseCheck("cusparseSpMatGetSize", cusp.getSize(uintptr(d), &rows, &cols, &nnz))
	return rows, cols, nnz, err
}

// CsrSetPointers points a CSR descriptor at new arrays.
func CsrSetPointers(d SpMatDescr, rowOff, colInd, vals DevPtr) error {
	cuspLoaded()
	return sparseCheck("cusparseCsrSetPointers", cusp.setPointers(uintptr(d), uintptr(rowOff), uintptr(colInd), uintptr(vals)))
}

// SpGEMMCreateDescr creates the state of one SpGEMM.
func SpGEMMCreateDescr() (SpGEMMDescr, error) {
	cuspLoaded()
	var d uintptr
	return SpGEMMDescr(d), sparseCheck("cusparseSpGEMM_createDescr", cusp.gemmCreate(&d))
}

// SpGEMMDestroyDescr destroys an SpGEMM descriptor.
func SpGEMMDestroyDescr(d SpGEMMDescr) error {
	cuspLoaded()
	return sparseCheck("cusparseSpGEMM_destroyDescr", cusp.gemmDestroy(uintptr(d)))
}

// spgemmScalars are α = 1 and β = 0 in host memory (the handle's default pointer
// mode), where the library reads them during each call. They live in a package
// variable, so the collector never moves or frees them.
var spgemmScalars = [2]float64{1, 0}

// SpGEMMWorkEstimation is cusparseSpGEMM_workEstimation for C = A·B with α = 1, β = 0,
// float64, CUSPARSE_SPGEMM_DEFAULT and no transposes. With buf == 0 it only returns the
// buffer size it needs; with a buffer of that size it does the work.
func SpGEMMWorkEstimation(h SparseHandle, a, b, c SpMatDescr, d SpGEMMDescr, bufSize uint64, buf DevPtr) (uint64, error) {
	cuspLoaded()
	n := bufSize
	r := cusp.workEstimation(uintptr(h), sparseOpNonTranspose, sparseOpNonTranspose,
		unsafe.Pointer(&spgemmScalars[0]), uintptr(a), uintptr(b), unsafe.Pointer(&spgemmScalars[1]), uintptr(c),
		cudaR64F, sparseSpGEMMDefault, uintptr(d), &n, uintptr(buf))
	runtime.KeepAlive(&n)
	return n, sparseCheck("cusparseSpGEMM_workEstimation", r)
}

// SpGEMMCompute is cusparseSpGEMM_compute with SpGEMMWorkEstimation's settings; like it,
// a call with buf == 0 returns the buffer size needed.
func SpGEMMCompute(h SparseHandle, a, b, c SpMatDescr, d SpGEMMDescr, bufSize uint64, buf DevPtr) (uint64, error) {
	cuspLoaded()
	n := bufSize
	r := cusp.compute(uintptr(h), sparseOpNonTranspose, sparseOpNonTranspose,
		unsafe.Pointer(&spgemmScalars[0]), uintptr(a), uintptr(b), unsafe.Pointer(&spgemmScalars[1]), uintptr(c),
		cudaR64F, sparseSpGEMMDefault, uintptr(d), &n, uintptr(buf))
	runtime.KeepAlive(&n)
	return n, sparseCheck("cusparseSpGEMM_compute", r)
}

// SpGEMMCopy is cusparseSpGEMM_copy: it writes the product into the arrays c points to
// (CsrSetPointers after SpMatGetSize).
func SpGEMMCopy(h SparseHandle, a, b, c SpMatDescr, d SpGEMMDescr) error {
	cuspLoaded()
	r := cusp.copy(uintptr(h), sparseOpNonTranspose, sparseOpNonTranspose,
		unsafe.Pointer(&spgemmScalars[0]), uintptr(a), uintptr(b), unsafe.Pointer(&spgemmScalars[1]), uintptr(c),
		cudaR64F, sparseSpGEMMDefault, uintptr(d))
	return sparseCheck("cusparseSpGEMM_copy", r)
}

// SpGEMMReuseWorkEstimation is cusparseSpGEMMreuse_workEstimation, the first step of
// the reuse pipeline for C = A·B (no transposes, CUSPARSE_SPGEMM_DEFAULT): with
// buf == 0 it returns the size of buffer 1, with a buffer of that size it does the work.
func SpGEMMReuseWorkEstimation(h SparseHandle, a, b, c SpMatDescr, d SpGEMMDescr, bufSize uint64, buf DevPtr) (uint64, error) {
	cuspLoaded()
	n := bufSize
	r := cusp.reuseWork(uintptr(h), sparseOpNonTranspose, sparseOpNonTranspose, uintptr(a), uintptr(b), uintptr(c),
		sparseSpGEMMDefault, uintptr(d), &n, uintptr(buf))
	runtime.KeepAlive(&n)
	return n, sparseCheck("cusparseSpGEMMreuse_workEstimation", r)
}

// SpGEMMReuseNnz is cusparseSpGEMMreuse_nnz, the reuse pipeline's second step: with
// the three buffers 0 it returns the sizes of buffers 2, 3 and 4; with buffers of those
// sizes it computes C's row offsets (then SpMatGetSize gives C's nonzeros).
func SpGEMMReuseNnz(h SparseHandle, a, b, c SpMatDescr, d SpGEMMDescr, size [3]uint64, buf [3]DevPtr) ([3]uint64, error) {
	cuspLoaded()
	n := size
	r := cusp.reuseNnz(uintptr(h), sparseOpNonTranspose, sparseOpNonTranspose, uintptr(a), uintptr(b), uintptr(c),
		sparseSpGEMMDefault, uintptr(d), &n[0], uintptr(buf[0]), &n[1], uintptr(buf[1]), &n[2], uintptr(buf[2]))
	runtime.KeepAlive(&n)
	return n, sparseCheck("cusparseSpGEMMreuse_nnz", r)
}

// SpGEMMReuseCopy is cusparseSpGEMMreuse_copy, the third step: with buf == 0 it returns
// the size of buffer 5; with a buffer of that size it writes C's column indices into
// the arrays c points to (CsrSetPointers after SpMatGetSize).
func SpGEMMReuseCopy(h SparseHandle, a, b, c SpMatDescr, d SpGEMMDescr, bufSize uint64, buf DevPtr) (uint64, error) {
	cuspLoaded()
	n := bufSize
	r := cusp.reuseCopy(uintptr(h), sparseOpNonTranspose, sparseOpNonTranspose, uintptr(a), uintptr(b), uintptr(c),
		sparseSpGEMMDefault, uintptr(d), &n, uintptr(buf))
	runtime.KeepAlive(&n)
	return n, sparseCheck("cusparseSpGEMMreuse_copy", r)
}

// SpGEMMReuseCompute is cusparseSpGEMMreuse_compute: C's values for the current values
// of A and B on the pattern the first three steps made (α = 1, β = 0, float64). It
// needs buffers 4 and 5 of those steps, still allocated.
func SpGEMMReuseCompute(h SparseHandle, a, b, c SpMatDescr, d SpGEMMDescr) error {
	cuspLoaded()
	r := cusp.reuseCompute(uintptr(h), sparseOpNonTranspose, sparseOpNonTranspose,
		unsafe.Pointer(&spgemmScalars[0]), uintptr(a), uintptr(b), unsafe.Pointer(&spgemmScalars[1]), uintptr(c),
		cudaR64F, sparseSpGEMMDefault, uintptr(d))
	return sparseCheck("cusparseSpGEMMreuse_compute", r)
}
