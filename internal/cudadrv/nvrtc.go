package cudadrv

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// nvrtc is the table of NVRTC entry points; nvrtcProgram is an opaque pointer.
var nvrtc struct {
	once sync.Once
	err  error
	path string

	version     func(major, minor *int32) int32
	create      func(prog *uintptr, src, name string, numHeaders int32, headers, includeNames unsafe.Pointer) int32
	compile     func(prog uintptr, numOptions int32, options unsafe.Pointer) int32
	logSize     func(prog uintptr, n *uint64) int32
	log         func(prog uintptr, buf unsafe.Pointer) int32
	cubinSize   func(prog uintptr, n *uint64) int32
	cubin       func(prog uintptr, buf unsafe.Pointer) int32
	destroy     func(prog *uintptr) int32
	errorString func(r int32) string
}

// nvrtcCandidates lists where LoadNVRTC looks, in order.
func nvrtcCandidates() []string {
	var c []string
	if p := os.Getenv("BLOCKAMG_NVRTC"); p != "" {
		c = append(c, p)
	}
	c = append(c, "libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so")
	if h := os.Getenv("CUDA_HOME"); h != "" {
		c = append(c, filepath.Join(h, "lib64", "libnvrtc.so.13"), filepath.Join(h, "lib64", "libnvrtc.so"))
	}
	// Versioned toolkit directories (/usr/local/cuda-13.0), newest name last.
	more, _ := filepath.Glob("/usr/local/cuda-*/lib64/libnvrtc.so.1[3-9]")
	return append(c, more...)
}

// LoadNVRTC opens NVRTC (see the package documentation for the search order) and
// returns the path it was loaded from. Like Load, only the first call does work.
func LoadNVRTC() (string, error) {
	nvrtc.once.Do(func() { nvrtc.err = loadNVRTC() })
	return nvrtc.path, nvrtc.err
}

func loadNVRTC() error {
	h, path, failed := openFirst(nvrtcCandidates(), nil)
	if h == 0 {
		return fmt.Errorf("%w: %s (set BLOCKAMG_NVRTC to the library file)", ErrNoNVRTC, failed)
	}
	// A library found through the loader's path has no directory in its name: read
	// the real file from the process's mappings, to report it and to find the
	// builtins beside it. NVRTC opens libnvrtc-builtins by name; opening it first,
	// globally, lets that succeed when its directory is not on the loader's path.
	nvrtc.path = path
	if real := mappedPath("libnvrtc.so"); real != "" {
		nvrtc.path = real
	}
	if dir := filepath.Dir(nvrtc.path); dir != "" && dir != "." {
		preloadFirst(filepath.Join(dir, "libnvrtc-builtins.so*"))
	}
	if name, ok := bindAll(h, []symbol{
		{&nvrtc.version, "nvrtcVersion"},
		{&nvrtc.create, "nvrtcCreateProgram"},
		{&nvrtc.compile, "nvrtcCompileProgram"},
		{&nvrtc.logSize, "nvrtcGetProgramLogSize"},
		{&nvrtc.log, "nvrtcGetProgramLog"},
		{&nvrtc.cubinSize, "nvrtcGetCUBINSize"},
		{&nvrtc.cubin, "nvrtcGetCUBIN"},
		{&nvrtc.destroy, "nvrtcDestroyProgram"},
		{&nvrtc.errorString, "nvrtcGetErrorString"},
	}); !ok {
		return fmt.Errorf("%w: %s lacks %s", ErrNoNVRTC, nvrtc.path, name)
	}
	return nil
}

// mappedPath returns the file of the first mapping in /proc/self/maps whose base name
// starts with prefix, or "".
func mappedPath(prefix string) string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		p := fields[len(fields)-1]
		if strings.HasPrefix(filepath.Base(p), prefix) {
			return p
		}
	}
	return ""
}

func nvrtcLoaded() {
	if nvrtc.version == nil {
		panic("cudadrv: NVRTC call before a successful LoadNVRTC")
	}
}

func nvrtcCheck(call string, r int32) error {
	if r == 0 {
		return nil
	}
	return &Error{Call: call, Code: Result(r), Name: nvrtc.errorString(r)}
}

// NVRTCVersion returns NVRTC's version.
func NVRTCVersion() (major, minor int, err error) {
	nvrtcLoaded()
	var ma, mi int32
	err = nvrtcCheck("nvrtcVersion", nvrtc.version(&ma, &mi))
	return int(ma), int(mi), err
}

// CompileError is a failed compilation with the compiler's log.
type CompileError struct {
	Err error  // the failing NVRTC call
	Log string // the compiler's messages
}

func (e *CompileError) Error() string { return fmt.Sprintf("%v:\n%s", e.Err, e.Log) }
func (e *CompileError) Unwrap() error { return e.Err }

// CompileCUBIN compiles CUDA C source (name is used in messages) with the given
// options, e.g. "--gpu-architecture=sm_90", and returns the CUBIN and the compiler's
// log. A compilation error is a *CompileError holding the log.
func CompileCUBIN(src, name string, options []string) (cubin []byte, log string, err error) {
	nvrtcLoaded()
	var prog uintptr
	if err := nvrtcCheck("nvrtcCreateProgram", nvrtc.create(&prog, src, name, 0, nil, nil)); err != nil {
		return nil, "", err
	}
	defer nvrtc.destroy(&prog)
	opts := make([][]byte, len(options))
	ptrs := make([]*byte, len(options)+1)
	for i, o := range options {
		opts[i] = cString(o)
		ptrs[i] = &opts[i][0]
	}
	cerr := nvrtcCheck("nvrtcCompileProgram", nvrtc.compile(prog, int32(len(options)), unsafe.Pointer(&ptrs[0])))
	runtime.KeepAlive(opts)
	runtime.KeepAlive(ptrs)
	var n uint64
	if nvrtc.logSize(prog, &n) == 0 && n > 1 {
		buf := make([]byte, n)
		if nvrtc.log(prog, unsafe.Pointer(&buf[0])) == 0 {
			log = strings.TrimRight(string(buf[:n-1]), "\x00\n")
		}
	}
	if cerr != nil {
		return nil, log, &CompileError{Err: cerr, Log: log}
	}
	if err := nvrtcCheck("nvrtcGetCUBINSize", nvrtc.cubinSize(prog, &n)); err != nil {
		return nil, log, err
	}
	cubin = make([]byte, n)
	if n > 0 {
		if err := nvrtcCheck("nvrtcGetCUBIN", nvrtc.cubin(prog, unsafe.Pointer(&cubin[0]))); err != nil {
			return nil, log, err
		}
	}
	return cubin, log, nil
}

// PrefetchNVRTC reads the NVRTC library LoadNVRTC opened, and the builtins library
// beside it, from start to end once, returning the bytes read. On a machine's first
// run their pages are not yet in memory, and the compilations that NVRTC runs in
// parallel then fault them in one page at a time, out of order, from a cold disk;
// one sequential read first is far cheaper. It is worth calling only before
// compiling (a run that finds its kernels cached never touches most of NVRTC).
func PrefetchNVRTC() int64 {
	if nvrtc.path == "" {
		return 0
	}
	files := []string{nvrtc.path}
	if dir := filepath.Dir(nvrtc.path); dir != "" && dir != "." {
		m, _ := filepath.Glob(filepath.Join(dir, "libnvrtc-builtins.so*"))
		files = append(files, m...)
	}
	var n int64
	buf := make([]byte, 4<<20)
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			continue
		}
		for {
			k, err := r.Read(buf)
			n += int64(k)
			if err != nil {
				break
			}
		}
		r.Close()
	}
	return n
}
