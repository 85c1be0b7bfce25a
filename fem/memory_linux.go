package fem

import (
	"os"
	"syscall"
)

// linuxSystem reads the real /proc, /sys and resource limits.
type linuxSystem struct{}

func hostSystem() system { return linuxSystem{} }

func (linuxSystem) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

func (linuxSystem) Getrlimit(r rlimit) (uint64, bool) {
	res := syscall.RLIMIT_AS
	if r == rlimitData {
		res = syscall.RLIMIT_DATA
	}
	var l syscall.Rlimit
	if err := syscall.Getrlimit(res, &l); err != nil || l.Cur == ^uint64(0) { // RLIM_INFINITY
		return 0, false
	}
	return l.Cur, true
}
