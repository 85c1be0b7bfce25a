package fem

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// TestMatrixBytes checks the closed form against the assembled matrix.
func TestMatrixBytes(t *testing.T) {
	for ne := 1; ne <= 5; ne++ {
		b := mustBox(t, Ex56(ne))
		a := mustSymbolic(t, b, 1)
		if got, want := b.MatrixBytes(), a.Matrix.Bytes(); got != want {
			t.Errorf("ne=%d: MatrixBytes %d, assembled matrix %d", ne, got, want)
		}
	}
}

// TestSymbolicTooLarge checks that a mesh whose matrix exceeds the machine's memory is
// refused with an error before anything is allocated (at MaxNe the matrix takes 4.4 TB;
// allocating it would end the test binary with a fatal out-of-memory).
func TestSymbolicTooLarge(t *testing.T) {
	b := mustBox(t, Ex56(MaxNe))
	limits := MemoryLimits()
	if len(limits) == 0 {
		t.Skip("memory size unknown on this system: nothing is checked")
	}
	if CheckMemory("", b.MatrixBytes(), limits) == nil {
		t.Skipf("this machine has room for ne = %d: %+v", MaxNe, limits)
	}
	if _, err := b.Symbolic(1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ne = %d: Symbolic returned %v, want ErrTooLarge", MaxNe, err)
	}
	if _, err := b.Assemble(1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ne = %d: Assemble returned %v, want ErrTooLarge", MaxNe, err)
	}
}

// fakeSystem is a system of given files and resource limits.
type fakeSystem struct {
	files  map[string]string
	limits map[rlimit]uint64
}

func (f fakeSystem) ReadFile(name string) ([]byte, error) {
	if s, ok := f.files[name]; ok {
		return []byte(s), nil
	}
	return nil, fs.ErrNotExist
}

func (f fakeSystem) Getrlimit(r rlimit) (uint64, bool) {
	v, ok := f.limits[r]
	return v, ok
}

const testMeminfo = `MemTotal:       24683548 kB
MemFree:        21836272 kB
MemAvailable:   22239068 kB
Buffers:           12345 kB
`

// find returns the limit whose name contains s.
func find(t *testing.T, ls []MemoryLimit, s string) MemoryLimit {
	t.Helper()
	for _, l := range ls {
		if strings.Contains(l.Name, s) {
			return l
		}
	}
	t.Fatalf("no limit named like %q in %+v", s, ls)
	return MemoryLimit{}
}

// TestMemoryLimits checks every limit MemoryLimits reads, from injected /proc and
// /sys files and resource limits: MemAvailable, cgroup v1 (which the old check did
// not read at all) and v2 limits of the process's cgroup and of its parents, and
// RLIMIT_AS / RLIMIT_DATA (ulimit -v / -d, which the old check ignored: the run then
// died in the Go runtime).
func TestMemoryLimits(t *testing.T) {
	t.Run("meminfo", func(t *testing.T) {
		ls := readLimits(fakeSystem{files: map[string]string{"/proc/meminfo": testMeminfo}})
		l := find(t, ls, "MemAvailable")
		if l.Available != 22239068*1024 || l.Limit != 24683548*1024 || len(ls) != 1 {
			t.Errorf("MemAvailable: %+v (of %d limits)", l, len(ls))
		}
	})
	t.Run("cgroup-v1", func(t *testing.T) {
		base := "/sys/fs/cgroup/memory"
		ls := readLimits(fakeSystem{files: map[string]string{
			"/proc/self/cgroup": "9:name=systemd:/\n4:memory:/process_api/abc\n0::/\n",
			"/proc/self/mountinfo": "30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n" +
				"34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" +
				"31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n",
			base + "/memory.limit_in_bytes":                    "9223372036854771712\n", // unlimited
			base + "/process_api/memory.limit_in_bytes":        "8000000000\n",
			base + "/process_api/memory.usage_in_bytes":        "3000000000\n",
			base + "/process_api/memory.stat":                  "cache 5\ninactive_file 7\ntotal_inactive_file 1000000000\n",
			base + "/process_api/abc/memory.limit_in_bytes":    "9223372036854771712\n",
			base + "/process_api/abc/memory.usage_in_bytes":    "100\n",
			"/sys/fs/cgroup/cpu/process_api/abc/cpu.shares":    "1024\n",
			"/sys/fs/cgroup/memory.max":                        "1\n", // not a v2 mount here: not read
			"/sys/fs/cgroup/memory/process_api/abc/memory.max": "2\n",
		}})
		if len(ls) != 1 {
			t.Fatalf("limits %+v, want the parent's v1 limit only", ls)
		}
		l := find(t, ls, "cgroup v1 memory.limit_in_bytes (/sys/fs/cgroup/memory/process_api)")
		if l.Limit != 8e9 || l.Available != 8e9-2e9 {
			t.Errorf("v1: %+v, want limit 8e9, available 8e9 − (3e9 used − 1e9 inactive cache)", l)
		}
	})
	t.Run("cgroup-v1-fallback", func(t *testing.T) {
		// No /proc/self/cgroup: the container's own cgroup at the usual mount point.
		ls := readLimits(fakeSystem{files: map[string]string{
			"/sys/fs/cgroup/memory/memory.limit_in_bytes": "4294967296\n",
		}})
		if l := find(t, ls, "cgroup v1"); l.Limit != 4<<30 || l.Available != 4<<30 {
			t.Errorf("v1 fallback: %+v", l)
		}
	})
	t.Run("cgroup-v2", func(t *testing.T) {
		ls := readLimits(fakeSystem{files: map[string]string{
			"/proc/self/cgroup":                              "0::/user.slice/job 7\n",
			"/proc/self/mountinfo":                           `29 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate` + "\n",
			"/sys/fs/cgroup/user.slice/job 7/memory.max":     "max\n",
			"/sys/fs/cgroup/user.slice/memory.max":           "2147483648\n",
			"/sys/fs/cgroup/user.slice/memory.current":       "1073741824\n",
			"/sys/fs/cgroup/user.slice/memory.stat":          "anon 1\ninactive_file 536870912\n",
			"/sys/fs/cgroup/memory.max":                      "max\n",
			"/sys/fs/cgroup/memory/memory.limit_in_bytes":    "1\n", // no v1 mount: not read
			"/sys/fs/cgroup/user.slice/job 7/memory.current": "5\n",
		}})
		if len(ls) != 1 {
			t.Fatalf("limits %+v, want the parent's v2 limit only", ls)
		}
		if l := find(t, ls, "cgroup v2 memory.max (/sys/fs/cgroup/user.slice)"); l.Limit != 2<<30 || l.Available != 2<<30-(1<<30-512<<20) {
			t.Errorf("v2: %+v", l)
		}
	})
	t.Run("cgroup-v2-namespaced", func(t *testing.T) {
		// A cgroup namespace: the mount's root is the process's cgroup itself.
		ls := readLimits(fakeSystem{files: map[string]string{
			"/proc/self/cgroup":         "0::/\n",
			"/proc/self/mountinfo":      `29 23 0:26 /kubepods/pod1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw` + "\n",
			"/sys/fs/cgroup/memory.max": "1000000000\n",
		}})
		if l := find(t, ls, "cgroup v2"); l.Limit != 1e9 {
			t.Errorf("namespaced v2: %+v", l)
		}
	})
	t.Run("rlimits", func(t *testing.T) {
		ls := readLimits(fakeSystem{
			files:  map[string]string{"/proc/self/status": "Name:\tblockamg\nVmPeak:\t 1700000 kB\nVmSize:\t 1600000 kB\nVmData:\t  100000 kB\n"},
			limits: map[rlimit]uint64{rlimitAS: 2000000 * 1024, rlimitData: 1 << 63},
		})
		if len(ls) != 1 {
			t.Fatalf("limits %+v, want RLIMIT_AS only (RLIMIT_DATA is unlimited)", ls)
		}
		if l := find(t, ls, "RLIMIT_AS"); l.Limit != 2000000*1024 || l.Available != 400000*1024 {
			t.Errorf("RLIMIT_AS: %+v, want 2000000 kB less the 1600000 kB mapped", l)
		}
		ls = readLimits(fakeSystem{files: map[string]string{"/proc/self/status": "VmData:\t  100 kB\n"},
			limits: map[rlimit]uint64{rlimitData: 1 << 30}})
		if l := find(t, ls, "RLIMIT_DATA"); l.Available != 1<<30-100*1024 {
			t.Errorf("RLIMIT_DATA: %+v", l)
		}
	})
	t.Run("this-machine", func(t *testing.T) {
		for _, l := range MemoryLimits() {
			t.Logf("%s: %s available of %s", l.Name, FormatBytes(l.Available), FormatBytes(l.Limit))
			if l.Available < 0 || l.Available > l.Limit || l.Limit <= 0 {
				t.Errorf("implausible limit %+v", l)
			}
		}
	})
}

// TestCheckMemory checks that the tightest limit that does not fit is named, with the
// figures: what is needed, what the limit leaves, the limit itself.
func TestCheckMemory(t *testing.T) {
	ls := []MemoryLimit{
		{Name: "MemAvailable (/proc/meminfo)", Limit: 24e9, Available: 22e9},
		{Name: "RLIMIT_AS (ulimit -v)", Limit: 2.048e9, Available: 0.4e9},
	}
	if err := CheckMemory("x", 0.3e9, ls); err != nil {
		t.Errorf("0.3 GB: %v", err)
	}
	err := CheckMemory("ex56 ne = 80", 2.4e9, ls)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("2.4 GB: %v", err)
	}
	for _, want := range []string{"ex56 ne = 80", "needs about 2.4 GB", "RLIMIT_AS (ulimit -v) leaves 400 MB", "limit 2.05 GB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if err := CheckMemory("y", 30e9, ls); err == nil || !strings.Contains(err.Error(), "RLIMIT_AS") {
		t.Errorf("30 GB: %v (want the tightest limit named)", err)
	}
	if err := CheckMemory("z", 1<<50, nil); err != nil {
		t.Errorf("no limits known: %v", err)
	}
}

// TestEx56SystemTooLarge checks that Ex56System refuses a system beyond the
// process's memory before allocating it.
func TestEx56SystemTooLarge(t *testing.T) {
	b := mustBox(t, Ex56(MaxNe))
	if CheckMemory("", b.SystemBytes(), MemoryLimits()) == nil {
		t.Skip("no limit, or room for the largest mesh")
	}
	if _, _, _, err := Ex56System(MaxNe, 1); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "needs about") {
		t.Errorf("Ex56System(%d): %v, want ErrTooLarge with the figures", MaxNe, err)
	}
	if A, _, _, err := Ex56System(3, 1); err != nil || A.Rows() != 3*4*4*4 {
		t.Errorf("Ex56System(3): %v", err)
	}
}
