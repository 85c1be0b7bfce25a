package cuda

import (
	"math"
	"testing"
)

// TestHostAllocRoundTrip uploads from and downloads into page-locked host memory and
// checks the values, zeroing, the counters and that HostFree ignores foreign slices.
func TestHostAllocRoundTrip(t *testing.T) {
	b := device(t)
	const n = 1 << 20
	src, err := b.HostAlloc(n)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := b.HostAlloc(n)
	if err != nil {
		t.Fatal(err)
	}
	for i := range src {
		if src[i] != 0 {
			t.Fatalf("HostAlloc: entry %d is %v, want 0", i, src[i])
		}
		src[i] = math.Sin(float64(i))
		dst[i] = math.NaN()
	}
	v, err := b.NewVector(n)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Free()
	prev := b.SetPhase("pinned test")
	defer b.SetPhase(prev)
	before := b.Counters().Phase("pinned test")
	b.Upload(v, src)
	b.Download(dst, v)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	for i := range src {
		if dst[i] != src[i] {
			t.Fatalf("entry %d: %v after the round trip, want %v", i, dst[i], src[i])
		}
	}
	tr := b.Counters().Phase("pinned test")
	if tr.H2DBytes-before.H2DBytes != n*8 || tr.D2HBytes-before.D2HBytes != n*8 {
		t.Errorf("counters: %d up, %d down; want %d each", tr.H2DBytes-before.H2DBytes, tr.D2HBytes-before.D2HBytes, n*8)
	}
	b.HostFree(make([]float64, 3)) // not ours: ignored
	b.HostFree(src)
	b.HostFree(dst)
	b.HostFree(dst) // twice: ignored
}
