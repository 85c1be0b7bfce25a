package mpi_test

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/blockamg/blockamg/dist/internal/mpitest"
	"github.com/blockamg/blockamg/dist/mpi"
)

func TestMissingLibraryIsErrNoMPI(t *testing.T) {
	// Load runs once per process, so the missing library is tried in a child.
	if os.Getenv("MPI_TEST_MISSING") == "1" {
		err := mpi.Load()
		if !errors.Is(err, mpi.ErrNoMPI) {
			t.Fatalf("Load with no library: %v, want ErrNoMPI", err)
		}
		if _, err2 := mpi.Init(); !errors.Is(err2, mpi.ErrNoMPI) {
			t.Fatalf("Init with no library: %v, want ErrNoMPI", err2)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("error is not one line: %q", err)
		}
		if p := mpi.LibraryPath(); p != "" {
			t.Fatalf("LibraryPath after a failed Load: %q, want none", p)
		}
		t.Logf("error: %v", err)
		return
	}
	if os.Getenv("BLOCKAMG_MPITEST_RUN") != "" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMissingLibraryIsErrNoMPI$", "-test.v")
	cmd.Env = append(os.Environ(), "MPI_TEST_MISSING=1", "BLOCKAMG_LIBMPI=/nonexistent/libmpi.so.40")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "error: no MPI library") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func TestSingleton(t *testing.T) {
	mpitest.RunAlone(t, func(t *testing.T, c *mpi.Comm) {
		if c.Rank() != 0 || c.Size() != 1 {
			t.Fatalf("singleton: rank %d size %d", c.Rank(), c.Size())
		}
		if p := mpi.LibraryPath(); !strings.Contains(p, "libmpi") {
			t.Errorf("LibraryPath %q: not the libmpi that was opened", p)
		}
		v := []float64{1.5, -2}
		if err := c.AllreduceFloat64(mpi.Sum, v); err != nil || v[0] != 1.5 || v[1] != -2 {
			t.Fatalf("allreduce on one rank: %v %v", v, err)
		}
	})
}

func TestCollectives(t *testing.T) {
	mpitest.Run(t, []int{2, 3}, func(t *testing.T, c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		// Values with many significant bits, so that a sum in another order would show.
		val := func(rank, i int) float64 { return math.Sqrt(float64(rank+2)) * float64(i+1) / 7 }
		buf := make([]float64, 5)
		for i := range buf {
			buf[i] = val(r, i)
		}
		if err := c.AllreduceFloat64(mpi.Sum, buf); err != nil {
			t.Fatal(err)
		}
		for i := range buf {
			s := 0.0
			for q := 0; q < n; q++ {
				s += val(q, i)
			}
			if math.Abs(buf[i]-s) > 1e-15*math.Abs(s) {
				t.Errorf("sum[%d] = %v, serial %v", i, buf[i], s)
			}
		}
		mx := []float64{val(r, 0), -val(r, 1)}
		if err := c.AllreduceFloat64(mpi.Max, mx); err != nil {
			t.Fatal(err)
		}
		if mx[0] != val(n-1, 0) || mx[1] != -val(0, 1) {
			t.Errorf("max = %v, want %v %v", mx, val(n-1, 0), -val(0, 1))
		}
		iv := []int64{int64(r + 1), int64(1) << 40 * int64(r)}
		if err := c.AllreduceInt64(mpi.Sum, iv); err != nil {
			t.Fatal(err)
		}
		if iv[0] != int64(n*(n+1)/2) || iv[1] != int64(1)<<40*int64(n*(n-1)/2) {
			t.Errorf("int64 sum = %v", iv)
		}
		im := []int64{int64(10 * r)}
		if err := c.AllreduceInt64(mpi.Max, im); err != nil || im[0] != int64(10*(n-1)) {
			t.Errorf("int64 max = %v (%v)", im, err)
		}
		all := make([]int64, n)
		if err := c.AllgatherInt64([]int64{int64(r * r)}, all); err != nil {
			t.Fatal(err)
		}
		for q := range all {
			if all[q] != int64(q*q) {
				t.Errorf("allgather[%d] = %d", q, all[q])
			}
		}
		send, recv := make([]int64, n), make([]int64, n)
		for q := range send {
			send[q] = int64(100*r + q)
		}
		if err := c.AlltoallInt64(send, recv); err != nil {
			t.Fatal(err)
		}
		for q := range recv {
			if recv[q] != int64(100*q+r) {
				t.Errorf("alltoall[%d] = %d", q, recv[q])
			}
		}
		w0 := c.Wtime()
		time.Sleep(20 * time.Millisecond)
		if w1 := c.Wtime(); w1-w0 < 0.01 || w1-w0 > 5 {
			t.Errorf("Wtime went from %v to %v over a 20 ms sleep", w0, w1)
		}
	})
}

func TestRingExchangeAndCounters(t *testing.T) {
	mpitest.Run(t, []int{2, 3}, func(t *testing.T, c *mpi.Comm) {
		r, n := c.Rank(), c.Size()
		next, prev := (r+1)%n, (r+n-1)%n
		c.SetPhase("ring")
		sf := []float64{float64(r), 0.5}
		si := []int32{int32(r), -1, 7}
		sl := []int64{int64(r) << 33}
		rf, ri, rl := make([]float64, 2), make([]int32, 3), make([]int64, 1)
		var reqs []*mpi.Request
		for _, f := range []func() (*mpi.Request, error){
			func() (*mpi.Request, error) { return mpi.Irecv(c, rf, prev, 1) },
			func() (*mpi.Request, error) { return mpi.Irecv(c, ri, prev, 2) },
			func() (*mpi.Request, error) { return mpi.Irecv(c, rl, prev, 3) },
			func() (*mpi.Request, error) { return mpi.Isend(c, sf, next, 1) },
			func() (*mpi.Request, error) { return mpi.Isend(c, si, next, 2) },
			func() (*mpi.Request, error) { return mpi.Isend(c, sl, next, 3) },
		} {
			q, err := f()
			if err != nil {
				t.Fatal(err)
			}
			reqs = append(reqs, q)
		}
		if err := c.Waitall(reqs); err != nil {
			t.Fatal(err)
		}
		c.SetPhase("")
		if rf[0] != float64(prev) || rf[1] != 0.5 || ri[0] != int32(prev) || ri[2] != 7 || rl[0] != int64(prev)<<33 {
			t.Errorf("received %v %v %v from %d", rf, ri, rl, prev)
		}
		tr := c.Traffic("ring")
		want := int64(2*8 + 3*4 + 8)
		if tr.Sends != 3 || tr.Recvs != 3 || tr.BytesSent != want || tr.BytesRecv != want || tr.Time <= 0 {
			t.Errorf("ring traffic %+v, want 3 messages and %d bytes each way", tr, want)
		}
		if len(c.Counters()) == 0 || c.Counters()[0].Phase != "ring" {
			t.Errorf("counters %+v", c.Counters())
		}
	})
}
