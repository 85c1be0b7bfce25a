package par

import (
	"runtime"
	"sync"
)

// Workers returns the default worker count: GOMAXPROCS.
func Workers() int { return runtime.GOMAXPROCS(0) }

// For calls body(lo, hi) on disjoint contiguous chunks that cover [0, n), using at most
// workers goroutines (workers <= 0 means Workers()). Chunks are at least grain long so
// that tiny loops stay serial. body must only write state owned by its chunk.
func For(n, workers, grain int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if workers <= 0 {
		workers = Workers()
	}
	if grain < 1 {
		grain = 1
	}
	chunks := min(workers, (n+grain-1)/grain)
	if chunks <= 1 {
		body(0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Add(chunks)
	for c := 0; c < chunks; c++ {
		lo, hi := Split(n, chunks, c)
		go func() {
			defer wg.Done()
			body(lo, hi)
		}()
	}
	wg.Wait()
}

// ForWeighted is For with chunk boundaries chosen so that each chunk holds about the
// same total weight, where prefix is a non-decreasing prefix sum of per-index weights
// (len n+1, prefix[0] == 0), such as a CSR row pointer. This balances rows of unequal
// length; the boundaries still depend only on prefix and the worker count.
func ForWeighted(prefix []int64, workers int, minWeight int64, body func(lo, hi int)) {
	n := len(prefix) - 1
	if n <= 0 {
		return
	}
	if workers <= 0 {
		workers = Workers()
	}
	total := prefix[n] - prefix[0] + int64(n) // +1 per row so empty rows still count
	if minWeight < 1 {
		minWeight = 1
	}
	chunks := int(min(int64(workers), (total+minWeight-1)/minWeight))
	if chunks <= 1 {
		body(0, n)
		return
	}
	bounds := make([]int, chunks+1)
	bounds[chunks] = n
	row := 0
	for c := 1; c < chunks; c++ {
		target := total * int64(c) / int64(chunks)
		for row < n && prefix[row]-prefix[0]+int64(row) < target {
			row++
		}
		bounds[c] = row
	}
	var wg sync.WaitGroup
	for c := 0; c < chunks; c++ {
		lo, hi := bounds[c], bounds[c+1]
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(lo, hi)
		}()
	}
	wg.Wait()
}

// Split returns the bounds of chunk c when [0, n) is cut into chunks near-equal parts.
func Split(n, chunks, c int) (lo, hi int) {
	q, r := n/chunks, n%chunks
	lo = c*q + min(c, r)
	hi = lo + q
	if c < r {
		hi++
	}
	return lo, hi
}
