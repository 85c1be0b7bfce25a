package fem

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// memoryLimit returns the memory this process may use in bytes: the physical memory,
// or the cgroup (v2) limit of its container when that is lower; 0 when unknown.
func memoryLimit() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	limit := int64(uint64(si.Totalram) * uint64(si.Unit))
	if data, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && v > 0 && v < limit {
			limit = v
		}
	}
	return limit
}
