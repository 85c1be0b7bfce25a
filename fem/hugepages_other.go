//go:build !linux

package fem

// adviseHugePages is a no-op outside Linux.
func adviseHugePages([]float64) {}
