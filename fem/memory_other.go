//go:build !linux

package fem

import "errors"

// noSystem knows no limit: outside Linux MemoryLimits is empty and nothing is checked.
type noSystem struct{}

func hostSystem() system { return noSystem{} }

func (noSystem) ReadFile(string) ([]byte, error) { return nil, errors.New("fem: not on Linux") }

func (noSystem) Getrlimit(rlimit) (uint64, bool) { return 0, false }
