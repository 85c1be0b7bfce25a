package fem

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
)

// ErrTooLarge is wrapped by the error Symbolic returns when the matrix would not fit in
// the machine's memory, and by CheckMemory's.
var ErrTooLarge = errors.New("fem: problem too large for this machine's memory")

// MatrixBytes returns the memory of the assembled stiffness matrix: int64 row
// pointers, int32 block columns and float64 3×3 blocks. Along each axis the stencil
// spans of the nn nodes add up to 3·nn−2, so the 27-point pattern stores (3·nn−2)³
// blocks in all.
func (b *Box) MatrixBytes() int64 {
	nn := int64(b.nn)
	nnzb := b.NNZBlocks()
	return (nn*nn*nn+1)*8 + nnzb*4 + nnzb*9*8
}

// checkMemory refuses an assembly whose matrix and per-element moduli do not fit under
// every memory limit of this process (MemoryLimits), before anything is allocated:
// otherwise a mistyped ne ends in the Go runtime's fatal "out of memory" (not an
// error, not recoverable) minutes into the symbolic phase. Where no limit is known
// nothing is checked.
func (b *Box) checkMemory() error {
	need := b.MatrixBytes() + int64(b.Elements())*8
	return CheckMemory(fmt.Sprintf("the ex56 matrix for ne = %d (%d unknowns)", b.ne, b.Unknowns()), need, MemoryLimits())
}

// MemoryLimit is one bound on the memory this process can still allocate.
type MemoryLimit struct {
	// Name says which bound it is and where it was read, e.g. "MemAvailable
	// (/proc/meminfo)", "cgroup v1 memory.limit_in_bytes (/sys/fs/cgroup/memory/…)",
	// "RLIMIT_AS (ulimit -v)".
	Name string
	// Limit is the bound itself in bytes (for MemAvailable, the machine's MemTotal).
	Limit int64
	// Available is what the bound leaves to this process now, in bytes: MemAvailable;
	// a cgroup's limit less its usage (page cache that can be dropped not counted);
	// an address-space or data-segment rlimit less what the process maps already.
	Available int64
}

// MemoryLimits returns every memory limit that applies to this process now: the
// machine's available memory (/proc/meminfo's MemAvailable), the memory limits of its
// cgroup and the cgroups above it (v2 memory.max and v1 memory.limit_in_bytes, found
// through /proc/self/cgroup and /proc/self/mountinfo), and the RLIMIT_AS and
// RLIMIT_DATA resource limits (ulimit -v, ulimit -d; Linux counts Go's heap mappings
// against both). Unlimited and unreadable ones are left out; outside Linux the list
// is empty.
func MemoryLimits() []MemoryLimit { return readLimits(hostSystem()) }

// CheckMemory returns nil when need bytes fit under every limit (each limit's
// Available), else an error wrapping ErrTooLarge that says what needs the memory, how
// much, and the tightest limit with what it leaves and its size. what names the
// requester in the message ("ex56 ne = 200 (24361803 unknowns), set-up and solve").
func CheckMemory(what string, need int64, limits []MemoryLimit) error {
	tight := -1
	for i, l := range limits {
		if need > l.Available && (tight < 0 || l.Available < limits[tight].Available) {
			tight = i
		}
	}
	if tight < 0 {
		return nil
	}
	l := limits[tight]
	return fmt.Errorf("%w: %s needs about %s, but %s leaves %s (limit %s)",
		ErrTooLarge, what, FormatBytes(need), l.Name, FormatBytes(l.Available), FormatBytes(l.Limit))
}

// FormatBytes writes n bytes with three significant digits in MB, GB or TB (10⁶, 10⁹,
// 10¹²).
func FormatBytes(n int64) string {
	switch v := math.Abs(float64(n)); {
	case v < 1e9:
		return fmt.Sprintf("%.3g MB", float64(n)/1e6)
	case v < 1e12:
		return fmt.Sprintf("%.3g GB", float64(n)/1e9)
	}
	return fmt.Sprintf("%.3g TB", float64(n)/1e12)
}

// system is what readLimits reads: files of /proc and /sys, and resource limits. The
// real one is hostSystem(); tests inject others.
type system interface {
	ReadFile(name string) ([]byte, error)
	// Getrlimit returns the soft limit of resource r; ok is false where it is unknown
	// or unlimited.
	Getrlimit(r rlimit) (cur uint64, ok bool)
}

// rlimit is a resource limit readLimits checks.
type rlimit int

const (
	rlimitAS   rlimit = iota // RLIMIT_AS: the address space
	rlimitData               // RLIMIT_DATA: data segment and private writable mappings
)

// unlimited is where a cgroup v1 limit means none: the kernel writes PAGE_COUNTER_MAX
// pages (9223372036854771712 with 4 kB pages) for "no limit".
const unlimited = 1 << 62

// readLimits collects the limits of sys (see MemoryLimits).
func readLimits(sys system) []MemoryLimit {
	var out []MemoryLimit
	if data, err := sys.ReadFile("/proc/meminfo"); err == nil {
		kv := keyValues(data, ":")
		if avail, ok := kv["MemAvailable"]; ok {
			total := kv["MemTotal"]
			out = append(out, MemoryLimit{Name: "MemAvailable (/proc/meminfo)", Limit: total * 1024, Available: avail * 1024})
		}
	}
	out = append(out, cgroupLimits(sys)...)
	status, _ := sys.ReadFile("/proc/self/status")
	st := keyValues(status, ":")
	for _, r := range []struct {
		r     rlimit
		name  string
		field string // the /proc/self/status field of what the process maps already (kB)
	}{{rlimitAS, "RLIMIT_AS (ulimit -v)", "VmSize"}, {rlimitData, "RLIMIT_DATA (ulimit -d)", "VmData"}} {
		cur, ok := sys.Getrlimit(r.r)
		if !ok || cur >= unlimited {
			continue
		}
		out = append(out, MemoryLimit{Name: r.name, Limit: int64(cur), Available: max(int64(cur)-st[r.field]*1024, 0)})
	}
	return out
}

// keyValues parses "Key<sep> value [kB]" lines (/proc/meminfo, /proc/self/status with
// sep ":"; memory.stat with sep " ") into the first number of each value.
func keyValues(data []byte, sep string) map[string]int64 {
	m := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), sep)
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			m[strings.TrimSpace(k)] = n
		}
	}
	return m
}

// cgroupLimits returns the memory limits of this process's cgroup and of those above
// it, v2 and v1: a parent's limit binds its children. The cgroup comes from
// /proc/self/cgroup, the mount point of each hierarchy from /proc/self/mountinfo;
// where those cannot be read, the usual mount points (/sys/fs/cgroup for v2,
// /sys/fs/cgroup/memory for v1) are read as the process's own cgroup, as in a
// container.
func cgroupLimits(sys system) []MemoryLimit {
	type hierarchy struct {
		v1         bool
		mount      string // where it is mounted
		root       string // the cgroup at the mount point
		cgroupPath string // this process's cgroup in it
	}
	var hs []hierarchy
	self, err1 := sys.ReadFile("/proc/self/cgroup")
	mounts, err2 := sys.ReadFile("/proc/self/mountinfo")
	if err1 == nil && err2 == nil {
		paths := map[bool]string{} // v1 (memory controller) → path
		for _, line := range strings.Split(string(self), "\n") {
			f := strings.SplitN(line, ":", 3)
			if len(f) != 3 {
				continue
			}
			switch {
			case f[0] == "0" && f[1] == "":
				paths[false] = f[2]
			case hasField(f[1], ",", "memory"):
				paths[true] = f[2]
			}
		}
		for _, line := range strings.Split(string(mounts), "\n") {
			// id parent major:minor root mountpoint options [optional…] - fstype source superoptions
			pre, post, ok := strings.Cut(line, " - ")
			if !ok {
				continue
			}
			a, b := strings.Fields(pre), strings.Fields(post)
			if len(a) < 5 || len(b) < 1 {
				continue
			}
			h := hierarchy{mount: unescapeMount(a[4]), root: unescapeMount(a[3])}
			switch {
			case b[0] == "cgroup2":
			case b[0] == "cgroup" && len(b) >= 3 && hasField(b[2], ",", "memory"):
				h.v1 = true
			default:
				continue
			}
			p, ok := paths[h.v1]
			if !ok {
				continue
			}
			h.cgroupPath = p
			hs = append(hs, h)
		}
	}
	if len(hs) == 0 {
		hs = []hierarchy{{mount: "/sys/fs/cgroup", root: "/", cgroupPath: "/"},
			{v1: true, mount: "/sys/fs/cgroup/memory", root: "/", cgroupPath: "/"}}
	}
	var out []MemoryLimit
	for _, h := range hs {
		// The process's cgroup relative to the mount's root; a cgroup outside it (a
		// namespaced view) is read at the mount point itself.
		rel, cg, root := "/", path.Clean(h.cgroupPath), path.Clean(h.root)
		switch {
		case root == "/":
			rel = cg
		case cg == root || strings.HasPrefix(cg, root+"/"):
			rel = path.Clean("/" + cg[len(root):])
		}
		for dir := rel; ; dir = path.Dir(dir) {
			if l, ok := cgroupLimit(sys, path.Join(h.mount, dir), h.v1); ok {
				out = append(out, l)
			}
			if dir == "/" {
				break
			}
		}
	}
	return out
}

// cgroupLimit reads the memory limit of the cgroup directory dir, v1 or v2; ok is
// false when it has none or it cannot be read.
func cgroupLimit(sys system, dir string, v1 bool) (MemoryLimit, bool) {
	limitFile, usageFile, inactive, version := "memory.max", "memory.current", "inactive_file", "v2"
	if v1 {
		limitFile, usageFile, inactive, version = "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file", "v1"
	}
	data, err := sys.ReadFile(path.Join(dir, limitFile))
	if err != nil {
		return MemoryLimit{}, false
	}
	limit, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || limit <= 0 || limit >= unlimited { // "max" (v2) fails to parse
		return MemoryLimit{}, false
	}
	l := MemoryLimit{Name: fmt.Sprintf("cgroup %s %s (%s)", version, limitFile, dir), Limit: limit, Available: limit}
	if data, err := sys.ReadFile(path.Join(dir, usageFile)); err == nil {
		if used, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil {
			// Inactive page cache is reclaimed before the cgroup runs out.
			if st, err := sys.ReadFile(path.Join(dir, "memory.stat")); err == nil {
				used -= min(keyValues(st, " ")[inactive], used)
			}
			l.Available = max(limit-used, 0)
		}
	}
	return l, true
}

// hasField reports whether the sep-separated list s holds f.
func hasField(s, sep, f string) bool {
	for _, x := range strings.Split(s, sep) {
		if x == f {
			return true
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space, …).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// NNZBlocks returns the number of 3×3 blocks of the assembled matrix: the 27-point
// stencil of every node, clipped at the faces.
func (b *Box) NNZBlocks() int64 {
	s := 3*int64(b.nn) - 2
	return s * s * s
}
