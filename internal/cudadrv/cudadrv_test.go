package cudadrv

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoad checks that Load either finds a driver and a device or reports the one-line
// reason; on a machine with a GPU it also checks a few device queries.
func TestLoad(t *testing.T) {
	err := Load()
	if errors.Is(err, ErrNoDriver) {
		if err.Error() != "no CUDA driver: libcuda.so.1 not found" {
			t.Fatalf("no-driver error text = %q", err)
		}
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := Init(); err != nil {
		if errors.Is(err, ErrNoDevice) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	v, err := DriverVersion()
	if err != nil || v < 11000 {
		t.Fatalf("driver version %d, %v", v, err)
	}
	d, err := DeviceGet(0)
	if err != nil {
		t.Fatal(err)
	}
	name, err := DeviceName(d)
	if err != nil || name == "" {
		t.Fatalf("device name %q, %v", name, err)
	}
	major, err := DeviceAttr(d, AttrComputeCapabilityMajor)
	if err != nil || major < 3 {
		t.Fatalf("compute capability major %d, %v", major, err)
	}
	if got := ErrorName(ErrorOutOfMemory); got != "CUDA_ERROR_OUT_OF_MEMORY" {
		t.Errorf("ErrorName(2) = %q", got)
	}
}

// TestCompile compiles a small kernel with NVRTC when one can be found (set
// BLOCKAMG_NVRTC on machines without a CUDA toolkit) and checks that the result is an
// ELF image, and that a syntax error comes back with the compiler's log.
func TestCompile(t *testing.T) {
	path, err := LoadNVRTC()
	if errors.Is(err, ErrNoNVRTC) {
		t.Skip("no NVRTC library (set BLOCKAMG_NVRTC to test compilation)")
	}
	if err != nil {
		t.Fatal(err)
	}
	ma, mi, err := NVRTCVersion()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("NVRTC %d.%d from %s", ma, mi, path)
	src := `extern "C" __global__ void twice(long long n, double* x) {
		long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
		if (i < n) x[i] *= 2.0;
	}`
	cubin, _, err := CompileCUBIN(src, "twice.cu", []string{"--gpu-architecture=sm_80"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(cubin, []byte("\x7fELF")) {
		t.Fatalf("CUBIN does not start with the ELF magic: % x", cubin[:min(8, len(cubin))])
	}
	_, log, err := CompileCUBIN("this is not C", "bad.cu", []string{"--gpu-architecture=sm_80"})
	var ce *CompileError
	if !errors.As(err, &ce) || !strings.Contains(log, "bad.cu") {
		t.Fatalf("bad source: err %v, log %q", err, log)
	}
}

// TestPrefetchNVRTC checks that the prefetch reads the NVRTC library and the builtins
// beside it whole (files standing in for them; no NVRTC needed), and nothing when no
// library was opened.
func TestPrefetchNVRTC(t *testing.T) {
	saved := nvrtc.path
	defer func() { nvrtc.path = saved }()
	nvrtc.path = ""
	if n := PrefetchNVRTC(); n != 0 {
		t.Errorf("no library: read %d bytes", n)
	}
	dir := t.TempDir()
	lib, builtins := filepath.Join(dir, "libnvrtc.so.13"), filepath.Join(dir, "libnvrtc-builtins.so.13.0")
	if err := os.WriteFile(lib, bytes.Repeat([]byte{1}, 9<<20+7), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(builtins, bytes.Repeat([]byte{2}, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	nvrtc.path = lib
	if n, want := PrefetchNVRTC(), int64(9<<20+7+1000); n != want {
		t.Errorf("read %d bytes, want %d", n, want)
	}
}
