package cuda

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/blockamg/blockamg/internal/cudadrv"
)

//go:embed kernels/*.cu kernels/*.cuh
var kernelFS embed.FS

// compileOptions returns NVRTC's options for arch ("sm_90"). No fast-math: results
// must match the CPU to rounding.
func compileOptions(arch string, debug bool) []string {
	o := []string{"--gpu-architecture=" + arch, "-std=c++17"}
	if debug {
		o = append(o, "-lineinfo")
	}
	return o
}

// cacheKey hashes everything a unit's CUBIN depends on: its source (the headers it
// includes inlined, its file named by the #line directives), the options, the NVRTC
// version and the architecture.
func cacheKey(src string, opts []string, nvMajor, nvMinor int, arch string) string {
	h := sha256.New()
	fmt.Fprintf(h, "blockamg-kernels\x00%s\x00%s\x00nvrtc %d.%d\x00%s", src, strings.Join(opts, "\x00"), nvMajor, nvMinor, arch)
	return hex.EncodeToString(h.Sum(nil))[:24]
}

// cacheFile is the name of a unit's CUBIN in the cache directory: the file's stem
// for whoever looks at the directory, the key for the rest.
func cacheFile(dir, file, key string) string {
	return filepath.Join(dir, "kernels-"+strings.TrimSuffix(file, ".cu")+"-"+key+".cubin")
}

// cacheDir resolves Options.CacheDir.
func cacheDir(opt string) string {
	switch opt {
	case "-":
		return ""
	case "":
		d, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(d, "blockamg")
	}
	return opt
}

// unitState is one unit's CUBIN for one backend: prepared (read from the cache, or
// compiled and written to it) on a goroutine of its own, then loaded as a module on
// the device thread, which alone touches mod.
type unitState struct {
	u    *kernelUnit
	key  string
	file string        // the cache file, "" without a cache
	done chan struct{} // closed when the fields below are set
	// Set by prepare before done closes.
	img      []byte
	fromDisk bool
	written  bool
	err      error
	// The device thread's.
	mod     cudadrv.Module
	loadErr error
}

// kernelSet is what a backend knows of its kernels' units.
type kernelSet struct {
	tab   *unitTable
	units []*unitState // as tab.units
	opts  []string
}

// compileSlots bounds the NVRTC programs compiling at once in the process: each
// holds a few hundred MB while it runs, and more programs than cores only share them.
var compileSlots = make(chan struct{}, max(1, runtime.NumCPU()))

// inflight lets backends of one process that need the same CUBIN (the same key)
// at the same time share its compilation.
var inflight = struct {
	sync.Mutex
	m map[string]*compileCall
}{m: map[string]*compileCall{}}

type compileCall struct {
	done chan struct{}
	img  []byte
	err  error
}

// compileUnit compiles u (cache key key) with NVRTC, or waits for the compilation of
// the same key that is running already.
func compileUnit(u *kernelUnit, key string, opts []string) ([]byte, error) {
	inflight.Lock()
	if c, ok := inflight.m[key]; ok {
		inflight.Unlock()
		<-c.done
		return c.img, c.err
	}
	c := &compileCall{done: make(chan struct{})}
	inflight.m[key] = c
	inflight.Unlock()
	compileSlots <- struct{}{}
	c.img, _, c.err = cudadrv.CompileCUBIN(u.src, u.file, opts)
	<-compileSlots
	inflight.Lock()
	delete(inflight.m, key)
	inflight.Unlock()
	close(c.done)
	return c.img, c.err
}

// prepare reads s's CUBIN from the cache or compiles it (and writes it to the
// cache). It runs on a goroutine of its own: NVRTC is thread-safe, and a unit's
// program is single-threaded, so the units compile in parallel.
func (s *unitState) prepare(opts []string) {
	defer close(s.done)
	if s.file != "" {
		if img, err := os.ReadFile(s.file); err == nil && len(img) > 0 {
			s.img, s.fromDisk = img, true
			return
		}
	}
	s.img, s.err = compileUnit(s.u, s.key, opts)
	if s.err == nil && s.file != "" {
		s.written = writeAtomic(s.file, s.img) == nil
	}
}

// loadKernels starts preparing every unit, loads the start set (the units every run
// uses; see laterUnits) and resolves the kernels the launchers keep. It runs on the
// worker; the other units load on first use (function).
func (b *Backend) loadKernels(cacheOpt string) error {
	start := time.Now()
	path, err := cudadrv.LoadNVRTC()
	if err != nil {
		return err
	}
	in := &b.info
	in.NVRTCLoadTime = time.Since(start)
	in.NVRTCPath = path
	if in.NVRTCMajor, in.NVRTCMinor, err = cudadrv.NVRTCVersion(); err != nil {
		return err
	}
	in.Arch = fmt.Sprintf("sm_%d%d", in.CCMajor, in.CCMinor)
	tab, err := kernelUnits()
	if err != nil {
		return err
	}
	ks := &b.kern
	ks.tab, ks.opts = tab, compileOptions(in.Arch, in.Debug)
	dir := cacheDir(cacheOpt)
	var first, later []*unitState
	for _, u := range tab.units {
		s := &unitState{u: u, key: cacheKey(u.src, ks.opts, in.NVRTCMajor, in.NVRTCMinor, in.Arch), done: make(chan struct{})}
		if dir != "" {
			s.file = cacheFile(dir, u.file, s.key)
		}
		ks.units = append(ks.units, s)
		if u.start {
			first = append(first, s)
		} else {
			later = append(later, s)
		}
	}
	// The longest compilations first, so that they are not the last to start.
	bySize := func(ss []*unitState) []*unitState {
		o := append([]*unitState(nil), ss...)
		sort.SliceStable(o, func(i, j int) bool { return len(o[i].u.src) > len(o[j].u.src) })
		return o
	}
	for _, s := range first {
		if _, err := os.Stat(s.file); s.file == "" || err != nil {
			// A compilation is coming: bring NVRTC into memory in one read first.
			cudadrv.PrefetchNVRTC()
			break
		}
	}
	for _, s := range bySize(first) {
		go s.prepare(ks.opts)
	}
	cached, fromDisk := dir != "", true
	for _, s := range first {
		if err := b.loadUnit(s); err != nil {
			return err
		}
		if !s.fromDisk {
			fromDisk = false
			in.KernelsCompiled = append(in.KernelsCompiled, s.u.file)
		}
		cached = cached && (s.fromDisk || s.written)
	}
	in.KernelsFromDisk = fromDisk
	if cached {
		in.KernelCache = dir
	}
	in.KernelTime = time.Since(start)
	// Started only now, so that they do not take cores from the start set.
	for _, s := range bySize(later) {
		go s.prepare(ks.opts)
	}
	return b.k.resolve(b.function)
}

// loadUnit loads s's module, waiting for its CUBIN if need be; it runs on the device
// thread. A failure is kept: later kernels of the unit report it again.
func (b *Backend) loadUnit(s *unitState) error {
	if s.mod != 0 || s.loadErr != nil {
		return s.loadErr
	}
	<-s.done
	if s.err != nil {
		s.loadErr = fmt.Errorf("cuda: compiling kernels/%s for %s: %w", s.u.file, b.info.Arch, s.err)
		return s.loadErr
	}
	mod, err := cudadrv.ModuleLoadData(s.img)
	if err != nil && s.fromDisk {
		// A damaged or foreign cache file: compile the unit and replace the file.
		img, cerr := compileUnit(s.u, s.key, b.kern.opts)
		if cerr != nil {
			s.loadErr = fmt.Errorf("cuda: compiling kernels/%s for %s: %w", s.u.file, b.info.Arch, cerr)
			return s.loadErr
		}
		s.img, s.fromDisk = img, false
		s.written = s.file != "" && writeAtomic(s.file, img) == nil
		mod, err = cudadrv.ModuleLoadData(img)
	}
	if err != nil {
		s.loadErr = fmt.Errorf("cuda: loading kernels/%s: %w", s.u.file, err)
		return s.loadErr
	}
	s.mod, s.img = mod, nil
	return nil
}

// findKernel returns the kernel called name from the module of the unit that the
// index says defines it, loading the unit if need be. A name the index lacks is
// looked up in every unit, the loaded ones first, so that a kernel defined in a way
// the index cannot see (kernelNames) is still found, at the price of loading units.
// It runs on the device thread.
func (b *Backend) findKernel(name string) (cudadrv.Function, error) {
	ks := &b.kern
	if i, ok := ks.tab.index[name]; ok {
		s := ks.units[i]
		if err := b.loadUnit(s); err != nil {
			return 0, err
		}
		f, err := cudadrv.ModuleGetFunction(s.mod, name)
		if err != nil {
			return 0, fmt.Errorf("kernels/%s: %w", s.u.file, err)
		}
		return f, nil
	}
	order := make([]*unitState, 0, len(ks.units))
	for _, s := range ks.units {
		if s.mod != 0 {
			order = append(order, s)
		}
	}
	for _, s := range ks.units {
		if s.mod == 0 {
			order = append(order, s)
		}
	}
	for _, s := range order {
		if err := b.loadUnit(s); err != nil {
			return 0, err
		}
		f, err := cudadrv.ModuleGetFunction(s.mod, name)
		var ce *cudadrv.Error
		switch {
		case err == nil:
			return f, nil
		case !errors.As(err, &ce) || ce.Code != cudadrv.ErrorNotFound:
			return 0, fmt.Errorf("kernels/%s: %w", s.u.file, err)
		}
	}
	return 0, fmt.Errorf("no kernels/*.cu defines it")
}

// unloadKernels unloads every loaded module; it runs on the worker.
func (b *Backend) unloadKernels() {
	for _, s := range b.kern.units {
		if s.mod != 0 {
			cudadrv.ModuleUnload(s.mod)
			s.mod = 0
		}
	}
}

// writeAtomic writes data to a temporary file beside path and renames it into place,
// so that concurrent processes never read a partial CUBIN. Failures only lose the
// cache.
func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".kernels-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}
