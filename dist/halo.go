package dist

import (
	"fmt"

	"github.com/blockamg/blockamg/dist/mpi"
)

// Tags of the set-up and of the halo exchange, distinct so that a set-up message can
// never be taken for a halo one.
const (
	tagSetup = 26001
	tagHalo  = 26002
)

// Neighbour is one peer of the halo exchange with the blocks that travel to or from it.
type Neighbour struct {
	Rank int
	// For a send: the owned block rows (local numbers) whose x blocks the peer needs,
	// ascending. For a receive: the range [Lo, Hi) of ghost indices the peer fills.
	Rows   []int32
	Lo, Hi int
}

// Halo is the exchange plan of a distributed matrix, built once with its pattern:
// which owned x blocks every neighbour needs and which ghost blocks come from whom.
// Ghosts are numbered in ascending global order and owners hold contiguous ranges,
// so each neighbour's ghosts are one contiguous slice of the ghost vector and are
// received in place.
type Halo struct {
	Send []Neighbour // in ascending rank order
	Recv []Neighbour // in ascending rank order
	C    int         // scalars per block

	sendBuf []float64 // the packed send blocks, neighbour after neighbour
	sendOff []int     // block offset of each Send neighbour in sendBuf, len(Send)+1
}

// SendBlocks returns the number of blocks one exchange sends.
func (h *Halo) SendBlocks() int { return h.sendOff[len(h.Send)] }

// RecvBlocks returns the number of blocks one exchange receives (the ghost count).
func (h *Halo) RecvBlocks() int {
	n := 0
	for _, r := range h.Recv {
		n += r.Hi - r.Lo
	}
	return n
}

// SendBytes and RecvBytes return the payload of one exchange.
func (h *Halo) SendBytes() int64 { return int64(h.SendBlocks()) * int64(h.C) * 8 }

// RecvBytes returns the payload one exchange receives.
func (h *Halo) RecvBytes() int64 { return int64(h.RecvBlocks()) * int64(h.C) * 8 }

// buildHalo agrees the plan with the owners: every rank tells each owner how many and
// which of its blocks it needs (an all-to-all of counts, then the lists), and each
// owner checks and localises the rows asked of it.
func buildHalo(comm *mpi.Comm, l Layout, ghosts []int32, c int) (*Halo, error) {
	size, me := comm.Size(), comm.Rank()
	h := &Halo{C: c}
	need := make([]int64, size)
	for i := 0; i < len(ghosts); {
		o := l.Owner(int(ghosts[i]))
		j := i
		for j < len(ghosts) && int(ghosts[j]) < l.Offsets[o+1] {
			j++
		}
		need[o] = int64(j - i)
		h.Recv = append(h.Recv, Neighbour{Rank: o, Lo: i, Hi: j})
		i = j
	}
	asked := make([]int64, size)
	if err := comm.AlltoallInt64(need, asked); err != nil {
		return nil, err
	}
	var reqs []*mpi.Request
	for _, nb := range h.Recv {
		q, err := mpi.Isend(comm, ghosts[nb.Lo:nb.Hi], nb.Rank, tagSetup)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, q)
	}
	for r := 0; r < size; r++ {
		if asked[r] == 0 {
			continue
		}
		if r == me {
			return nil, fmt.Errorf("%w: rank %d asks itself for %d ghost blocks", ErrLayout, me, asked[r])
		}
		nb := Neighbour{Rank: r, Rows: make([]int32, asked[r])}
		q, err := mpi.Irecv(comm, nb.Rows, r, tagSetup)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, q)
		h.Send = append(h.Send, nb)
	}
	if err := comm.Waitall(reqs); err != nil {
		return nil, err
	}
	lo, hi := l.Range(me)
	h.sendOff = make([]int, len(h.Send)+1)
	for k, nb := range h.Send {
		for t, g := range nb.Rows {
			if int(g) < lo || int(g) >= hi {
				return nil, fmt.Errorf("%w: rank %d asks rank %d for block %d outside its rows [%d,%d)", ErrLayout, nb.Rank, me, g, lo, hi)
			}
			nb.Rows[t] = g - int32(lo)
		}
		h.sendOff[k+1] = h.sendOff[k] + len(nb.Rows)
	}
	h.sendBuf = make([]float64, h.sendOff[len(h.Send)]*c)
	return h, nil
}

// exchange is one halo exchange in flight.
type exchange struct {
	reqs []*mpi.Request
}

// start packs the owned blocks of x the neighbours need and posts every receive (into
// ghost, in place) and send. The caller must not touch ghost until finish.
func (h *Halo) start(comm *mpi.Comm, x, ghost []float64) (*exchange, error) {
	c := h.C
	e := &exchange{reqs: make([]*mpi.Request, 0, len(h.Send)+len(h.Recv))}
	for _, nb := range h.Recv {
		q, err := mpi.Irecv(comm, ghost[nb.Lo*c:nb.Hi*c], nb.Rank, tagHalo)
		if err != nil {
			return nil, err
		}
		e.reqs = append(e.reqs, q)
	}
	for k, nb := range h.Send {
		buf := h.sendBuf[h.sendOff[k]*c : h.sendOff[k+1]*c]
		for t, row := range nb.Rows {
			copy(buf[t*c:(t+1)*c], x[int(row)*c:(int(row)+1)*c])
		}
		q, err := mpi.Isend(comm, buf, nb.Rank, tagHalo)
		if err != nil {
			return nil, err
		}
		e.reqs = append(e.reqs, q)
	}
	return e, nil
}

// finish waits for the exchange: ghost then holds the neighbours' blocks.
func (e *exchange) finish(comm *mpi.Comm) error { return comm.Waitall(e.reqs) }
