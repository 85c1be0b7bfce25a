package mpi

import (
	"runtime"
	"unsafe"
)

// Request is a posted non-blocking send or receive. Its buffer stays pinned, and must
// not be touched by the caller, until a Waitall that includes it returns.
type Request struct {
	handle uintptr
	pin    runtime.Pinner
	active bool
}

// Isend posts a send of buf to rank dest with tag. The message is counted under the
// current phase when posted.
func Isend[T Elem](c *Comm, buf []T, dest, tag int) (*Request, error) {
	return post(c, buf, dest, tag, true)
}

// Irecv posts a receive into buf from rank src with tag. A message longer than buf
// is an MPI error (MPI_ERR_TRUNCATE), fatal under the default handler.
func Irecv[T Elem](c *Comm, buf []T, src, tag int) (*Request, error) {
	return post(c, buf, src, tag, false)
}

func post[T Elem](c *Comm, buf []T, peer, tag int, send bool) (*Request, error) {
	n := checkCount(len(buf))
	dt, es := dtype[T]()
	r := &Request{}
	// MPI reads or writes the buffer after the call returns; pinning keeps the Go
	// runtime's promise that it is not moved and stays reachable until Waitall.
	if len(buf) > 0 {
		r.pin.Pin(&buf[0])
	}
	c.count(func(t *Traffic) {
		if send {
			t.Sends++
			t.BytesSent += int64(n) * es
		} else {
			t.Recvs++
			t.BytesRecv += int64(n) * es
		}
	})
	call := "MPI_Irecv"
	if send {
		call = "MPI_Isend"
	}
	err := c.timed(call, func() error {
		if send {
			return check("MPI_Isend", lib.isend(ptr(buf), n, dt, int32(peer), int32(tag), c.handle, &r.handle))
		}
		return check("MPI_Irecv", lib.irecv(ptr(buf), n, dt, int32(peer), int32(tag), c.handle, &r.handle))
	})
	if err != nil {
		r.pin.Unpin()
		return nil, err
	}
	r.active = true
	return r, nil
}

// Waitall waits for every request in reqs to complete and unpins their buffers.
// Requests already completed (or nil) are skipped.
func (c *Comm) Waitall(reqs []*Request) error {
	hs := make([]uintptr, 0, len(reqs))
	for _, r := range reqs {
		if r != nil && r.active {
			hs = append(hs, r.handle)
		}
	}
	var err error
	if len(hs) > 0 {
		err = c.timed("MPI_Waitall", func() error {
			// MPI_STATUSES_IGNORE is the null pointer in OpenMPI.
			return check("MPI_Waitall", lib.waitall(int32(len(hs)), &hs[0], nil))
		})
	}
	for _, r := range reqs {
		if r != nil && r.active {
			r.active = false
			r.pin.Unpin()
		}
	}
	return err
}

// ptrAt turns an MPI sentinel address (MPI_IN_PLACE) into the pointer type the
// bindings take.
func ptrAt(a uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a))
}
