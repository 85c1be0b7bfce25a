package dist

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/blockamg/blockamg/bsr"
	"github.com/blockamg/blockamg/dist/mpi"
)

// ErrMismatch is wrapped by the error of Agree when the ranks of a launch do not hold
// the same thing: another program, other options or other inputs on some rank.
var ErrMismatch = errors.New("dist: the ranks of the launch differ")

// Digest is a 64-bit hash of numbers and strings, the same on every machine for the
// same sequence of values (unlike hash/maphash, whose seed is per process), for
// ranks to compare what they hold with Agree. It is not cryptographic: it catches
// launches that differ by mistake, not by design. The zero value is ready to use.
type Digest struct {
	lanes [4]uint64
	n     uint64 // words added
}

// digestPrime is FNV-1a's 64-bit prime; each lane multiplies by it after each word.
const digestPrime = 1099511628211

// word adds one 64-bit word.
func (d *Digest) word(w uint64) {
	l := &d.lanes[d.n&3]
	*l = (*l ^ w ^ 0x9e3779b97f4a7c15) * digestPrime
	d.n++
}

// words adds ws, four lanes at a time: a long slice (a matrix's values) hashes at
// memory speed rather than at one multiply's latency per word.
func (d *Digest) words(ws []uint64) {
	d.word(uint64(len(ws)))
	for len(ws) > 0 && d.n&3 != 0 {
		d.word(ws[0])
		ws = ws[1:]
	}
	a, b, c, e := d.lanes[0], d.lanes[1], d.lanes[2], d.lanes[3]
	k := len(ws) &^ 3
	for i := 0; i < k; i += 4 {
		a = (a ^ ws[i] ^ 0x9e3779b97f4a7c15) * digestPrime
		b = (b ^ ws[i+1] ^ 0x9e3779b97f4a7c15) * digestPrime
		c = (c ^ ws[i+2] ^ 0x9e3779b97f4a7c15) * digestPrime
		e = (e ^ ws[i+3] ^ 0x9e3779b97f4a7c15) * digestPrime
	}
	d.lanes = [4]uint64{a, b, c, e}
	d.n += uint64(k)
	for _, w := range ws[k:] {
		d.word(w)
	}
}

// Int adds one integer.
func (d *Digest) Int(v int) { d.word(uint64(v)) }

// Float64s adds v's values bit for bit (so -0 and 0, or two NaNs, may differ).
func (d *Digest) Float64s(v []float64) {
	d.words(unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(v))), len(v)))
}

// Int64s adds v's values.
func (d *Digest) Int64s(v []int64) {
	d.words(unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(v))), len(v)))
}

// Int32s adds v's values, two to a word.
func (d *Digest) Int32s(v []int32) {
	d.word(uint64(len(v)))
	for ; len(v) >= 2; v = v[2:] {
		d.word(uint64(uint32(v[0])) | uint64(uint32(v[1]))<<32)
	}
	if len(v) == 1 {
		d.word(uint64(uint32(v[0])))
	}
}

// Bytes adds b, eight bytes to a word (little-endian, so the same on every machine).
func (d *Digest) Bytes(b []byte) {
	d.word(uint64(len(b)))
	for ; len(b) >= 8; b = b[8:] {
		d.word(binary.LittleEndian.Uint64(b))
	}
	var w uint64
	for i, c := range b {
		w |= uint64(c) << (8 * i)
	}
	d.word(w)
}

// String adds s as Bytes would.
func (d *Digest) String(s string) { d.Bytes([]byte(s)) }

// Matrix adds a's shape, pattern and values.
func (d *Digest) Matrix(a *bsr.Matrix) {
	d.Int(a.BlockRows)
	d.Int(a.BlockCols)
	d.Int(a.R)
	d.Int(a.C)
	d.Int64s(a.RowPtr)
	d.Int32s(a.ColIdx)
	d.Float64s(a.Val)
}

// Sum returns the digest of what was added.
func (d *Digest) Sum() uint64 {
	h := d.n * digestPrime
	for _, l := range d.lanes {
		h = (h ^ l) * digestPrime
		h ^= h >> 29
	}
	return h
}

// Agree checks that every rank of comm passed the same sum, what naming it in the
// error ("options", "inputs"): one Allgather, so every rank must call it together,
// and every rank returns the same answer: nil, or an error wrapping ErrMismatch that
// lists the ranks whose sum differs from rank 0's. A launch check calls it first,
// before any plan is agreed: ranks that hold different matrices would agree halo
// plans that do not fit together, which can hang or give a wrong answer.
func Agree(comm *mpi.Comm, what string, sum uint64) error {
	all := make([]int64, comm.Size())
	if err := comm.AllgatherInt64([]int64{int64(sum)}, all); err != nil {
		return err
	}
	var odd []string
	for r, s := range all {
		if s != all[0] {
			odd = append(odd, fmt.Sprint(r))
		}
	}
	if len(odd) == 0 {
		return nil
	}
	who := "rank " + odd[0]
	if len(odd) > 1 {
		who = "ranks " + strings.Join(odd, ", ")
	}
	return fmt.Errorf("%w: the %s of %s differ from rank 0's (%d of %d ranks; every rank must run the same program on the same input)",
		ErrMismatch, what, who, len(odd), comm.Size())
}
