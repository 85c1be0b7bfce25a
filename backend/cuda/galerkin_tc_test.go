package cuda

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/blockamg/blockamg/bsr"
)

// This file emulates the tensor-core kernels of kernels/galerkin.cu on the host, lane
// by lane, with the mma.m8n8k4.f64 fragment layout of the PTX ISA (lane l, g = l>>2,
// t = l&3: A[g][t], B[t][g], C[g][2t+i]). The emulation mirrors the kernels' index
// arithmetic (fragment offsets, 32-entry metadata chunks, the warp prefix sum of slot
// words, windows of NW output blocks, slot bytes), so a wrong offset or schedule shows
// here without a GPU; the device tests then check the kernels themselves.

// dmmaEmu is one mma.m8n8k4.f64: c += A·B with a, b, c in fragment layout.
func dmmaEmu(c *[32][2]float64, a, b *[32]float64) {
	var A [8][4]float64
	var B [4][8]float64
	for l := 0; l < 32; l++ {
		A[l>>2][l&3] = a[l]
		B[l&3][l>>2] = b[l]
	}
	for l := 0; l < 32; l++ {
		g, t := l>>2, l&3
		for i := 0; i < 2; i++ {
			col := 2*t + i
			s := c[l][i]
			for k := 0; k < 4; k++ {
				s += A[g][k] * B[k][col]
			}
			c[l][i] = s
		}
	}
}

// fragEmu mirrors GalFrag: lane offsets of X[g][4q+t] and Y[4q+t][g].
type fragEmu struct {
	xoff, yoff [32][2]int64
	xok, yok   [32][2]bool
}

func newFragEmu(rows, K, cols, kch int, xTransposed bool) *fragEmu {
	f := &fragEmu{}
	for l := 0; l < 32; l++ {
		g, t := l>>2, l&3
		for q := 0; q < 2; q++ {
			k := 4*q + t
			f.xok[l][q] = q < kch && g < rows && k < K
			if xTransposed {
				f.xoff[l][q] = int64(k*rows + g)
			} else {
				f.xoff[l][q] = int64(g*K + k)
			}
			f.yok[l][q] = q < kch && k < K && g < cols
			f.yoff[l][q] = int64(k*cols + g)
		}
	}
	return f
}

// load gathers a fragment: lane l gets val[base + off[l][q]] where ok, else 0.
func (f *fragEmu) load(val []float64, base int64, x bool, q int, in bool) *[32]float64 {
	var r [32]float64
	for l := 0; l < 32; l++ {
		ok, off := f.yok[l][q], f.yoff[l][q]
		if x {
			ok, off = f.xok[l][q], f.xoff[l][q]
		}
		if in && ok {
			r[l] = val[base+off]
		}
	}
	return &r
}

// storeEmu mirrors the kernels' stores of an accumulator: row g < rows, columns 2t,
// 2t+1 < C of the C-wide block at out[base:].
func storeEmu(acc *[32][2]float64, out []float64, base int64, rows, C int) {
	for l := 0; l < 32; l++ {
		g, t := l>>2, l&3
		if g >= rows {
			continue
		}
		if 2*t < C {
			out[base+int64(g*C+2*t)] = acc[l][0]
		}
		if 2*t+1 < C {
			out[base+int64(g*C+2*t+1)] = acc[l][1]
		}
	}
}

// warpExcl mirrors gal_warp_excl.
func warpExcl(v *[32]int) (excl [32]int, total int) {
	s := 0
	for l := 0; l < 32; l++ {
		excl[l] = s
		s += v[l]
	}
	return excl, s
}

// emuTCBlock runs gal_w_tcb and gal_ac_tcb on the host.
func emuTCBlock(s *hostSchedule, A, P *bsr.Matrix) []float64 {
	R, C := P.R, P.C
	kch := (R + 3) / 4
	RR, RC := int64(R*R), int64(R*C)
	W := make([]float64, int64(len(s.wcol))*RC)
	fw := newFragEmu(R, R, C, kch, false)
	for w := range s.wcol {
		var acc [32][2]float64
		for t := s.wptr[w]; t < s.wptr[w+1]; t++ {
			a, p := int64(s.wabs[2*t]), int64(s.wabs[2*t+1])
			for q := 0; q < kch; q++ {
				dmmaEmu(&acc, fw.load(A.Val, a*RR, true, q, true), fw.load(P.Val, p*RC, false, q, true))
			}
		}
		storeEmu(&acc, W, int64(w)*RC, R, C)
	}
	Ac := make([]float64, int64(len(s.accol))*int64(C*C))
	fa := newFragEmu(C, R, C, kch, true)
	for b := range s.accol {
		var acc [32][2]float64
		for t := s.acptr[b]; t < s.acptr[b+1]; t++ {
			p, w := int64(s.acabs[2*t]), int64(s.acabs[2*t+1])
			for q := 0; q < kch; q++ {
				dmmaEmu(&acc, fa.load(P.Val, p*RC, true, q, true), fa.load(W, w*RC, false, q, true))
			}
		}
		storeEmu(&acc, Ac, int64(b*C*C), C, C)
	}
	return Ac
}

// emuTCRows runs gal_w_tcr<NW> and gal_ac_tcr<NW> on the host.
func emuTCRows(s *hostSchedule, A, P *bsr.Matrix, nwin int) []float64 {
	R, C := P.R, P.C
	kch := (R + 3) / 4
	RR, RC := int64(R*R), int64(R*C)
	n, m := A.BlockRows, P.BlockCols
	W := make([]float64, int64(len(s.wcol))*RC)
	f := newFragEmu(R, R, C, kch, false)
	for row := 0; row < n; row++ {
		a0, a1 := A.RowPtr[row], A.RowPtr[row+1]
		wb := s.wrp[row]
		nw := int(s.wrp[row+1] - wb)
		for s0 := 0; s0 < nw; s0 += nwin {
			acc := make([][32][2]float64, nwin)
			word := s.wsw0[row]
			for ab := a0; ab < a1; ab += 32 {
				cnt := int(min(32, a1-ab))
				var pbl, npl, gl [32]int
				for l := 0; l < cnt; l++ {
					j := A.ColIdx[ab+int64(l)]
					pbl[l] = int(P.RowPtr[j])
					npl[l] = int(P.RowPtr[j+1] - P.RowPtr[j])
					gl[l] = (npl[l] + 7) >> 3
				}
				excl, total := warpExcl(&gl)
				for k := 0; k < cnt; k++ {
					a := ab + int64(k)
					pb, np := pbl[k], npl[k]
					wo := word + int64(excl[k])
					var av [2]*[32]float64
					for q := 0; q < 2; q++ {
						av[q] = f.load(A.Val, a*RR, true, q, true)
					}
					for pc := 0; pc < np; pc += 4 {
						sw := uint64(s.wslw[wo+int64(pc>>3)]) >> (8 * (pc & 7))
						for u := 0; u < 4; u++ {
							if pc+u >= np {
								continue
							}
							ls := int((sw>>(8*u))&0xff) - s0
							if ls < 0 || ls >= nwin {
								continue
							}
							for q := 0; q < kch; q++ {
								dmmaEmu(&acc[ls], av[q], f.load(P.Val, int64(pb+pc+u)*RC, false, q, true))
							}
						}
					}
				}
				word += int64(total)
			}
			for sl := 0; sl < nwin && s0+sl < nw; sl++ {
				storeEmu(&acc[sl], W, (wb+int64(s0+sl))*RC, R, C)
			}
		}
	}
	Ac := make([]float64, int64(len(s.accol))*int64(C*C))
	fa := newFragEmu(C, R, C, kch, true)
	for row := 0; row < m; row++ {
		e0, e1 := s.ptrp[row], s.ptrp[row+1]
		b0 := s.acrp[row]
		nac := int(s.acrp[row+1] - b0)
		for s0 := 0; s0 < nac; s0 += nwin {
			acc := make([][32][2]float64, nwin)
			word := s.asw0[row]
			for eb := e0; eb < e1; eb += 32 {
				cnt := int(min(32, e1-eb))
				var pl, wbl, nwl, gl [32]int
				for l := 0; l < cnt; l++ {
					pl[l] = int(s.ptidx[eb+int64(l)])
					i := s.ptrow[eb+int64(l)]
					wbl[l] = int(s.wrp[i])
					nwl[l] = int(s.wrp[i+1] - s.wrp[i])
					gl[l] = (nwl[l] + 7) >> 3
				}
				excl, total := warpExcl(&gl)
				for k := 0; k < cnt; k++ {
					p, wbk, nwk := pl[k], wbl[k], nwl[k]
					wo := word + int64(excl[k])
					var av [2]*[32]float64
					for q := 0; q < 2; q++ {
						av[q] = fa.load(P.Val, int64(p)*RC, true, q, true)
					}
					for wc := 0; wc < nwk; wc += 4 {
						sw := uint64(s.aslw[wo+int64(wc>>3)]) >> (8 * (wc & 7))
						for u := 0; u < 4; u++ {
							if wc+u >= nwk {
								continue
							}
							ls := int((sw>>(8*u))&0xff) - s0
							if ls < 0 || ls >= nwin {
								continue
							}
							for q := 0; q < kch; q++ {
								dmmaEmu(&acc[ls], av[q], fa.load(W, int64(wbk+wc+u)*RC, false, q, true))
							}
						}
					}
				}
				word += int64(total)
			}
			for sl := 0; sl < nwin && s0+sl < nac; sl++ {
				storeEmu(&acc[sl], Ac, (b0+int64(s0+sl))*int64(C*C), C, C)
			}
		}
	}
	return Ac
}

// TestGalerkinTCHost checks the tensor-core schedules and fragment arithmetic on the
// host: every shape R, C in 1..6, windows of 4, 16 and 32 blocks, rows of A longer
// than one 32-entry chunk and P rows longer than one slot word; each against the CPU
// package to 1e-13.
func TestGalerkinTCHost(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 4))
	type tcase struct{ n, m, r, c, perA, perP int }
	var cases []tcase
	for r := 1; r <= 6; r++ {
		for c := 1; c <= 6; c++ {
			cases = append(cases, tcase{30 + rng.IntN(30), 5 + rng.IntN(25), r, c, 7, 4})
		}
	}
	cases = append(cases, tcase{200, 60, 3, 6, 40, 12}, tcase{150, 90, 6, 6, 20, 10})
	for _, tc := range cases {
		A := randomPattern(rng, tc.n, tc.n, tc.r, tc.r, tc.perA, true)
		P := randomPattern(rng, tc.n, tc.m, tc.r, tc.c, tc.perP, false)
		want := cpuGalerkin(t, A, P)
		s, err := galerkinSchedule(A, P)
		if err != nil {
			t.Fatal(err)
		}
		s.absolute(A, P)
		if !s.rowSlots(A, P) {
			t.Fatalf("%d×%d: no slot words for rows of at most %d blocks", tc.r, tc.c, max(maxRow(s.wrp), maxRow(s.acrp)))
		}
		label := fmt.Sprintf("%d×%d n=%d m=%d", tc.r, tc.c, tc.n, tc.m)
		if e := frobRel(emuTCBlock(s, A, P), want.Val); !(e <= 1e-13) {
			t.Errorf("%s tc-block: relative error %.3g", label, e)
		}
		for _, nwin := range []int{4, 16, 32} {
			if e := frobRel(emuTCRows(s, A, P, nwin), want.Val); !(e <= 1e-13) {
				t.Errorf("%s tc-rows window %d: relative error %.3g", label, nwin, e)
			}
		}
	}
}

// TestGalerkinRowSlotsLimit: a W row of more than 256 blocks has no slot bytes, so the
// tc-rows variants are not offered (and the others still are).
func TestGalerkinRowSlotsLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	A := randomPattern(rng, 40, 40, 1, 1, 3, true)
	// One dense P row makes W rows of every A row that reaches it 300 blocks long.
	rp := make([]int64, 41)
	var ci []int32
	for i := 0; i < 40; i++ {
		if i == 0 {
			for c := int32(0); c < 300; c++ {
				ci = append(ci, c)
			}
		} else {
			ci = append(ci, int32(i))
		}
		rp[i+1] = int64(len(ci))
	}
	P, err := bsr.New(40, 300, 1, 2, rp, ci)
	if err != nil {
		t.Fatal(err)
	}
	s, err := galerkinSchedule(A, P)
	if err != nil {
		t.Fatal(err)
	}
	if s.rowSlots(A, P) {
		t.Fatalf("slot words built for W rows of %d blocks", maxRow(s.wrp))
	}
	if s.wslw != nil || s.aslw != nil {
		t.Errorf("slot words left behind")
	}
	pl := &GalerkinPlan{kernels: map[GalerkinVariant]galerkinKernel{}}
	for _, e := range galerkinTable {
		pl.kernels[e.name] = e.kernel
	}
	if pl.Available(GalerkinTCRows16) || pl.Available(GalerkinTCRows32) || !pl.Available(GalerkinTCBlock) {
		t.Errorf("availability without slot words: rows16 %v rows32 %v block %v", pl.Available(GalerkinTCRows16), pl.Available(GalerkinTCRows32), pl.Available(GalerkinTCBlock))
	}
}

// TestGalerkinModelTC pins the model's terms for the tensor-core variants on a
// synthetic pattern (no GPU): tc-rows' A·P bytes are A, P and W plus the slot words
// and their row pointers; tc-block's equal the inspector's; a line rate low enough
// makes the time lines/L1Rate; the chooser skips tc-rows without slot words.
func TestGalerkinModelTC(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 2))
	A := randomPattern(rng, 400, 400, 3, 3, 20, true)
	P := randomPattern(rng, 400, 40, 3, 6, 5, false)
	s, err := galerkinSchedule(A, P)
	if err != nil {
		t.Fatal(err)
	}
	if !s.rowSlots(A, P) {
		t.Fatal("no slot words")
	}
	st := GalerkinStats{N: 400, M: 40, R: 3, C: 6, NnzA: A.NNZBlocks(), NnzP: P.NNZBlocks(), NnzW: int64(len(s.wcol)),
		NnzAc: int64(len(s.accol)), ProdAP: int64(len(s.wlist)), ProdPW: int64(len(s.aclist)), ProdAPFused: s.prodFused,
		ScheduleWAbs: int64(len(s.wlist))*8 + int64(len(s.wcol)+1)*8, ScheduleAcAbs: int64(len(s.aclist))*8 + int64(len(s.accol)+1)*8,
		RowSlots: true, SlotWordsW: int64(len(s.wslw)), SlotWordsAc: int64(len(s.aslw)), RewalkW16: s.rewalkW16, RewalkAc16: s.rewalkAc16}
	mc := GalerkinMachine{L2Bytes: 1 << 30, Bandwidth: 4e12, FMARate: 3e13, SMs: 132, TCRate: 6e13}
	if got, want := PredictGalerkin(st, mc, GalerkinTCRows16, StageAP).Bytes, st.bytesA()+st.bytesP()+st.bytesWVal()+8*int64(len(s.wslw))+8*401; got != want {
		t.Errorf("tc-rows16 A·P bytes %d, want %d", got, want)
	}
	if a, b := PredictGalerkin(st, mc, GalerkinTCBlock, StageAll).Bytes, PredictGalerkin(st, mc, GalerkinInspector, StageAll).Bytes; a != b {
		t.Errorf("tc-block predicts %d B, inspector %d B (same lists, W in L2)", a, b)
	}
	p := PredictGalerkin(st, mc, GalerkinTCBlock, StageAll)
	if want := (st.ProdAP + st.ProdPW); p.MMAs != want {
		t.Errorf("tc-block: %d mma, want one per product (%d)", p.MMAs, want)
	}
	mc.L1Rate = 1e3
	p = PredictGalerkin(st, mc, GalerkinTCRows32, StageAll)
	if p.Lines <= 0 || p.Seconds != float64(p.Lines)/mc.L1Rate {
		t.Errorf("tc-rows32 at a low line rate: %g s for %d lines", p.Seconds, p.Lines)
	}
	for _, v := range []GalerkinVariant{GalerkinInspector, GalerkinTCBlock, GalerkinTCRows16} {
		if q := PredictGalerkin(st, mc, v, StageAll); q.Lines < st.ProdAP+st.ProdPW {
			t.Errorf("%s: %d lines for %d products, want at least one each", v, q.Lines, st.ProdAP+st.ProdPW)
		}
	}
	st.RowSlots = false
	if v := ChooseGalerkin(st, mc); v == GalerkinTCRows16 || v == GalerkinTCRows32 {
		t.Errorf("chooser picked %s without slot words", v)
	}
}
