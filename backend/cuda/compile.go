package cuda

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/blockamg/blockamg/internal/cudadrv"
)

//go:embed kernels/*.cu kernels/*.cuh
var kernelFS embed.FS

// Source returns the translation unit NVRTC compiles: kernels/common.cuh, then every
// kernels/*.cu in name order, each preceded by a #line directive so that messages name
// the original file.
func Source() string {
	var sb strings.Builder
	add := func(name string) {
		b, err := kernelFS.ReadFile("kernels/" + name)
		if err != nil {
			panic(err) // embedded at build time: cannot fail
		}
		fmt.Fprintf(&sb, "#line 1 \"%s\"\n%s\n", name, b)
	}
	add("common.cuh")
	names, _ := fs.Glob(kernelFS, "kernels/*.cu")
	sort.Strings(names)
	for _, n := range names {
		add(filepath.Base(n))
	}
	return sb.String()
}

// compileOptions returns NVRTC's options for arch ("sm_90"). No fast-math: results
// must match the CPU to rounding.
func compileOptions(arch string, debug bool) []string {
	o := []string{"--gpu-architecture=" + arch, "-std=c++17"}
	if debug {
		o = append(o, "-lineinfo")
	}
	return o
}

// cacheKey hashes everything the CUBIN depends on.
func cacheKey(src string, opts []string, nvMajor, nvMinor int, arch string) string {
	h := sha256.New()
	fmt.Fprintf(h, "blockamg-kernels\x00%s\x00%s\x00nvrtc %d.%d\x00%s", src, strings.Join(opts, "\x00"), nvMajor, nvMinor, arch)
	return hex.EncodeToString(h.Sum(nil))[:24]
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

// loadKernels compiles (or reads from the cache) the CUBIN for this device, loads it
// and resolves every kernel. It runs on the worker.
func (b *Backend) loadKernels(cacheOpt string) error {
	path, err := cudadrv.LoadNVRTC()
	if err != nil {
		return err
	}
	in := &b.info
	in.NVRTCPath = path
	if in.NVRTCMajor, in.NVRTCMinor, err = cudadrv.NVRTCVersion(); err != nil {
		return err
	}
	in.Arch = fmt.Sprintf("sm_%d%d", in.CCMajor, in.CCMinor)
	src := Source()
	opts := compileOptions(in.Arch, in.Debug)
	dir := cacheDir(cacheOpt)
	file := ""
	if dir != "" {
		file = filepath.Join(dir, "kernels-"+cacheKey(src, opts, in.NVRTCMajor, in.NVRTCMinor, in.Arch)+".cubin")
		if img, err := os.ReadFile(file); err == nil {
			if mod, err := cudadrv.ModuleLoadData(img); err == nil {
				b.mod = mod
				in.KernelCache, in.KernelsFromDisk = file, true
			}
		}
	}
	if b.mod == 0 {
		img, _, err := cudadrv.CompileCUBIN(src, "blockamg.cu", opts)
		if err != nil {
			return fmt.Errorf("cuda: compiling kernels for %s: %w", in.Arch, err)
		}
		if b.mod, err = cudadrv.ModuleLoadData(img); err != nil {
			return fmt.Errorf("cuda: loading kernels: %w", err)
		}
		if file != "" && writeAtomic(file, img) == nil {
			in.KernelCache = file
		}
	}
	return b.k.resolve(b.mod)
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
