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

// TestStartUpload: an upload started on the copy stream, queued behind long work on
// the main stream and waited for before a kernel reads the vector, delivers the
// values (a dot product and a download see them), from page-locked memory and, by the
// synchronous fallback, from an ordinary slice; the bytes are counted once.
func TestStartUpload(t *testing.T) {
	b := device(t)
	const n = 1 << 22
	pinned, err := b.HostAlloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer b.HostFree(pinned)
	plain := make([]float64, n)
	for i := range pinned {
		pinned[i] = math.Cos(float64(i))
		plain[i] = math.Sin(float64(i))
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	v, err := b.NewVector(n)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Free()
	w, err := b.NewVector(n)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Free()
	u, err := b.NewVector(n)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Free()
	b.Upload(w, ones)
	prev := b.SetPhase("start upload test")
	defer b.SetPhase(prev)
	for _, src := range [][]float64{pinned, plain} {
		before := b.Counters().Phase("start upload test")
		b.Zero(v)
		for range 20 { // work on the main stream while the copy runs (w unchanged)
			b.Axpby(1, w, 0, u)
			b.Axpby(0.5, u, 0, u)
		}
		wait := b.StartUpload(v, src)
		wait()
		var want float64
		for _, x := range src {
			want += x
		}
		if got := b.Dot(v, w); math.Abs(got-want) > 1e-9*float64(n) {
			t.Errorf("pinned %v: Σv after the upload = %v, want %v", &src[0] == &pinned[0], got, want)
		}
		out := make([]float64, n)
		b.Download(out, v)
		for i := range out {
			if out[i] != src[i] {
				t.Fatalf("pinned %v: entry %d = %v, want %v", &src[0] == &pinned[0], i, out[i], src[i])
			}
		}
		if up := b.Counters().Phase("start upload test").H2DBytes - before.H2DBytes; up != n*8 {
			t.Errorf("pinned %v: %d bytes counted up, want %d", &src[0] == &pinned[0], up, n*8)
		}
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
}
