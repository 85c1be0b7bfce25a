package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/blockamg/blockamg/backend/cuda"
	"github.com/blockamg/blockamg/internal/cudadrv"
)

func init() {
	register("gpu-info", "show the CUDA device, driver and NVRTC, and measure its copy bandwidth", runGPUInfo)
}

// errNoDriver is what gpu-info reports on a machine without an NVIDIA driver.
var errNoDriver = errors.New("no CUDA driver found")

func runGPUInfo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("gpu-info", "[flags]", stderr)
	device := fs.Int("device", 0, "device ordinal")
	mib := fs.Int("mib", 1024, "size of each copy buffer in MiB for the bandwidth probe (0 skips it)")
	reps := fs.Int("reps", 20, "timed copies; the median is reported")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("unexpected argument %q", pos[0])
	}
	if *mib < 0 || *reps < 1 {
		return fmt.Errorf("--mib must be ≥ 0 and --reps ≥ 1")
	}
	be, err := cuda.New(cuda.Options{Device: *device})
	if errors.Is(err, cudadrv.ErrNoDriver) {
		return errNoDriver
	}
	if err != nil {
		return err
	}
	defer be.Close()
	in := be.Info()
	fmt.Fprintf(stdout, "device %d:          %s\n", in.Ordinal, in.Name)
	fmt.Fprintf(stdout, "compute capability: %d.%d (kernels built for %s)\n", in.CCMajor, in.CCMinor, in.Arch)
	fmt.Fprintf(stdout, "multiprocessors:    %d\n", in.SMs)
	fmt.Fprintf(stdout, "L2 cache:           %.1f MiB\n", float64(in.L2Bytes)/(1<<20))
	fmt.Fprintf(stdout, "memory:             %.1f GiB total, %.1f GiB free\n", float64(in.TotalMem)/(1<<30), float64(in.FreeMem)/(1<<30))
	if in.MemClockKHz > 0 && in.BusWidthBits > 0 {
		// DDR: two transfers per clock.
		peak := 2 * float64(in.MemClockKHz) * 1e3 * float64(in.BusWidthBits) / 8 / 1e9
		fmt.Fprintf(stdout, "memory bus:         %d bit at %d MHz (theoretical %.0f GB/s)\n", in.BusWidthBits, in.MemClockKHz/1000, peak)
	}
	fmt.Fprintf(stdout, "driver:             CUDA %d.%d\n", in.DriverVersion/1000, in.DriverVersion%1000/10)
	fmt.Fprintf(stdout, "NVRTC:              %d.%d (%s)\n", in.NVRTCMajor, in.NVRTCMinor, in.NVRTCPath)
	cache := in.KernelCache
	switch {
	case cache == "":
		cache = "none (compiled in memory)"
	case in.KernelsFromDisk:
		cache += " (loaded)"
	default:
		cache += " (compiled and written: " + strings.Join(in.KernelsCompiled, " ") + ")"
	}
	fmt.Fprintf(stdout, "kernel cache:       %s\n", cache)
	fmt.Fprintf(stdout, "kernels:            the start set ready in %.2f s, of which %.2f s opening NVRTC (the other files load on first use)\n", in.KernelTime.Seconds(), in.NVRTCLoadTime.Seconds())
	if in.Debug {
		fmt.Fprintf(stdout, "debug:              BLOCKAMG_CUDA_DEBUG=1, every launch is synchronised and checked\n")
	}
	if *mib > 0 {
		bw, err := be.CopyBandwidth(int64(*mib)<<20, *reps)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "copy bandwidth:     %.0f GB/s cuMemcpyDtoD, %.0f GB/s copy kernel (read+write bytes / median of %d, %d MiB buffers)\n",
			bw.MemcpyGBs, bw.KernelGBs, *reps, *mib)
	}
	return be.Err()
}
