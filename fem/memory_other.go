//go:build !linux

package fem

// memoryLimit is unknown (0) outside Linux: Symbolic then checks nothing.
func memoryLimit() int64 { return 0 }
