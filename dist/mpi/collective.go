package mpi

import (
	"fmt"
	"math"
)

// Op is a reduction operation.
type Op int

// Reductions of AllreduceFloat64 and AllreduceInt64.
const (
	Sum Op = iota
	Max
	Min
)

func (op Op) handle() uintptr {
	switch op {
	case Sum:
		return lib.opSum
	case Max:
		return lib.opMax
	case Min:
		return lib.opMin
	}
	panic(fmt.Sprintf("mpi: unknown Op %d", int(op)))
}

// checkCount panics for a slice longer than an MPI count (int32) can describe: the
// caller must split it.
func checkCount(n int) int32 {
	if n > math.MaxInt32 {
		panic("mpi: more than 2³¹-1 elements in one call")
	}
	return int32(n)
}

// AllreduceFloat64 replaces buf, on every rank, by the element-wise reduction of all
// ranks' buf; every rank must pass the same length. The order in which MPI combines
// the ranks is its own, so a sum's last bits may depend on the rank count: code that
// needs bits independent of MPI's algorithm gathers with AllgatherFloat64 and adds in
// rank order.
func (c *Comm) AllreduceFloat64(op Op, buf []float64) error {
	return allreduce(c, op, buf)
}

// AllreduceInt64 is AllreduceFloat64 for int64 values (exact for every op).
func (c *Comm) AllreduceInt64(op Op, buf []int64) error {
	return allreduce(c, op, buf)
}

func allreduce[T Elem](c *Comm, op Op, buf []T) error {
	n := checkCount(len(buf))
	dt, es := dtype[T]()
	h := op.handle()
	c.count(func(t *Traffic) { t.Collectives++; t.CollectiveBytes += int64(n) * es })
	return c.timed("MPI_Allreduce", func() error {
		return check("MPI_Allreduce", lib.allreduce(ptrAt(inPlace), ptr(buf), n, dt, h, c.handle))
	})
}

// AllgatherFloat64 gathers every rank's send (the same length on every rank) into
// recv, rank r's values at recv[r*len(send):]; recv must hold Size()*len(send) values.
func (c *Comm) AllgatherFloat64(send, recv []float64) error { return allgather(c, send, recv) }

// AllgatherInt64 is AllgatherFloat64 for int64 values.
func (c *Comm) AllgatherInt64(send, recv []int64) error { return allgather(c, send, recv) }

func allgather[T Elem](c *Comm, send, recv []T) error {
	if len(recv) != c.size*len(send) {
		panic("mpi: Allgather: recv must hold Size()*len(send) values")
	}
	n := checkCount(len(send))
	dt, es := dtype[T]()
	c.count(func(t *Traffic) { t.Collectives++; t.CollectiveBytes += int64(n) * es })
	return c.timed("MPI_Allgather", func() error {
		return check("MPI_Allgather", lib.allgather(ptr(send), n, dt, ptr(recv), n, dt, c.handle))
	})
}

// AlltoallInt64 sends send[r] to rank r and receives rank r's value into recv[r]; both
// hold Size() values. Set-up code uses it to tell each rank how much it will get.
func (c *Comm) AlltoallInt64(send, recv []int64) error {
	if len(send) != c.size || len(recv) != c.size {
		panic("mpi: AlltoallInt64: send and recv must hold Size() values")
	}
	dt, es := dtype[int64]()
	c.count(func(t *Traffic) { t.Collectives++; t.CollectiveBytes += int64(c.size) * es })
	return c.timed("MPI_Alltoall", func() error {
		return check("MPI_Alltoall", lib.alltoall(ptr(send), 1, dt, ptr(recv), 1, dt, c.handle))
	})
}
