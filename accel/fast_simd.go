//go:build goexperiment.simd && amd64

package accel

import (
	"math/bits"
	"simd/archsimd"
	"unsafe"
)

// walkFiniteOnSIMD is walkFiniteOn with vector node and leaf tests
// (nodeRay.hitWide, leafCandidates). It visits the same nodes in the same
// order and commits the same hits, so both builds answer identically
// (TestSIMDWalkMatchesScalar).
func (b *BLAS) walkFiniteOnSIMD(o *objectRay, tMin float32, tMax *float32, h *fastHit, st *walkState, stack []stackEntry) bool {
	sp := st.sp
	found := st.found
	wide, tris, rows := b.wide, b.tris, b.rows
	leaves := b.leafLines()
	var q nodeRay
	q.init(&o.rb, tMin)
	var lh leafHits
	tm := *tMax
	tmFar := tm * robustScale // the far bound, kept with tm (scalar: see nodeRay)
	cur := st.cur             // passed the e.near > tMax check
	for {
		if !isLeafRef(cur.node) {
			if sp > len(stack)-wideWidth {
				st.cur, st.sp, st.found = cur, sp, found
				*tMax = tm
				return false
			}
			n := &wide[cur.node]
			// q.hitWide, written out: the inliner would not take it.
			p := unsafe.Pointer(&n.b)
			nr := q.tMin.Max(q.load(p, q.nxo).Sub(q.ox).Mul(q.ix)).Max(q.load(p, q.nyo).Sub(q.oy).Mul(q.iy)).Max(q.load(p, q.nzo).Sub(q.oz).Mul(q.iz))
			fr := archsimd.BroadcastFloat32x8(tmFar).Min(q.load(p, q.fxo).Sub(q.ox).Mul(q.fx)).Min(q.load(p, q.fyo).Sub(q.oy).Mul(q.fy)).Min(q.load(p, q.fzo).Sub(q.oz).Mul(q.fz))
			var near wideRow
			nr.Store(&near)
			mask := uint(nr.LessEqual(fr).ToBits())
			// The upper register halves are cleared before the scalar (SSE) code
			// that follows, in each branch: before the branch, the compiler
			// could schedule it ahead of the test.
			if mask == 0 {
				archsimd.ClearAVXUpperBits()
			} else {
				archsimd.ClearAVXUpperBits()
				i0 := bits.TrailingZeros(mask)
				m := mask & (mask - 1)
				if m == 0 {
					cur = stackEntry{n.ref[i0&wideMask], near[i0&wideMask]}
				} else if i1 := bits.TrailingZeros(m); m&(m-1) == 0 {
					a, c := stackEntry{n.ref[i0&wideMask], near[i0&wideMask]}, stackEntry{n.ref[i1&wideMask], near[i1&wideMask]}
					if c.near < a.near {
						a, c = c, a
					}
					stack[sp] = c
					prefetchChild(wide, leaves, c.node)
					sp++
					cur = a
				} else {
					base := sp
					sp = pushSorted(n, mask, &near, stack, sp) - 1
					cur = stack[sp]
					for j := base; j < sp; j++ {
						prefetchChild(wide, leaves, stack[j].node)
					}
				}
				if cur.near <= tm {
					continue
				}
			}
		} else {
			lo, hi := leafRange(cur.node)
			cand, edge := o.tri().leafCandidates(rows, lo, hi-lo, tMin, tm, &lh)
			for m := cand; m != 0; m &= m - 1 {
				k := bits.TrailingZeros(m)
				s := lo + uint32(k)
				var t, u, v float32
				var front, ok bool
				if edge&(1<<k) != 0 {
					t, u, v, front, ok = o.tri().intersect(&tris[s], tMin, tm)
				} else {
					t, u, v, front, ok = lh.hit(k, tMin, tm)
				}
				if !ok {
					continue
				}
				tm, tmFar = t, t*robustScale
				*h = fastHit{t, u, v, s, front, b.primID(s)}
				found = true
			}
		}
		for {
			if sp == 0 {
				*tMax = tm
				st.found = found
				return true
			}
			sp--
			cur = stack[sp]
			if cur.near <= tm {
				break
			}
		}
	}
}

// occludesFiniteOnSIMD is occludesFiniteOn with vector node and leaf tests.
func (b *BLAS) occludesFiniteOnSIMD(o *objectRay, tMin, tMax float32, stack []uint32, h *fastHit) (hit, done bool) {
	sp := 0
	cur := uint32(0)
	wide, rows := b.wide, b.rows
	leaves := b.leafLines()
	var q nodeRay
	q.init(&o.rb, tMin)
	tMaxFar := tMax * robustScale // the far bound (scalar: see nodeRay)
	var near, far wideRow
	for {
		if !isLeafRef(cur) {
			if sp > len(stack)-(wideWidth-1) {
				return false, false
			}
			n := &wide[cur]
			// q.hitWide without the entry distances, written out. tMax
			// is broadcast here, not once before the loop: a vector
			// live across the loop stays in a register whose upper half
			// the scalar code below then runs with (slow), restored
			// after each ClearAVXUpperBits.
			p := unsafe.Pointer(&n.b)
			nr := q.tMin.Max(q.load(p, q.nxo).Sub(q.ox).Mul(q.ix)).Max(q.load(p, q.nyo).Sub(q.oy).Mul(q.iy)).Max(q.load(p, q.nzo).Sub(q.oz).Mul(q.iz))
			fr := archsimd.BroadcastFloat32x8(tMaxFar).Min(q.load(p, q.fxo).Sub(q.ox).Mul(q.fx)).Min(q.load(p, q.fyo).Sub(q.oy).Mul(q.fy)).Min(q.load(p, q.fzo).Sub(q.oz).Mul(q.fz))
			mask := uint(nr.LessEqual(fr).ToBits())
			// The upper register halves are cleared before the scalar (SSE) code
			// that follows, in each branch: before the branch, the compiler
			// could schedule it ahead of the test.
			if mask == 0 {
				archsimd.ClearAVXUpperBits()
			} else {
				nr.Store(&near)
				fr.Store(&far)
				archsimd.ClearAVXUpperBits()
				take := reachChild(mask, &near, &far)
				for m := mask &^ (1 << take); m != 0; {
					var i int
					i, m = lastSlot(m)
					stack[sp] = n.ref[i&wideMask]
					prefetchChild(wide, leaves, stack[sp])
					sp++
				}
				cur = n.ref[take]
				continue
			}
		} else {
			lo, hi := leafRange(cur)
			var lh leafHits
			cand, edge := o.tri().leafCandidates(rows, lo, hi-lo, tMin, tMax, &lh)
			if leafOccludes(b, o.tri(), lo, cand, edge, &lh, tMin, tMax, h) {
				return true, true
			}
		}
		if sp == 0 {
			return false, true
		}
		sp--
		cur = stack[sp]
	}
}

// stepClosestSIMD is stepClosest with the vector tests of walkFiniteOnSIMD.
func (b *BLAS) stepClosestSIMD(w *batchWalk) bool {
	cur, sp, tm := w.cur, w.sp, w.tMax
	if !isLeafRef(cur.node) {
		if sp > batchStackLimit {
			w.overflow = true
			return false
		}
		wide, leaves := b.wide, b.leafLines()
		n := &wide[cur.node]
		q := &w.q
		p := unsafe.Pointer(&n.b)
		nr := q.tMin.Max(q.load(p, q.nxo).Sub(q.ox).Mul(q.ix)).Max(q.load(p, q.nyo).Sub(q.oy).Mul(q.iy)).Max(q.load(p, q.nzo).Sub(q.oz).Mul(q.iz))
		fr := archsimd.BroadcastFloat32x8(tm).Mul(q.robust).Min(q.load(p, q.fxo).Sub(q.ox).Mul(q.fx)).Min(q.load(p, q.fyo).Sub(q.oy).Mul(q.fy)).Min(q.load(p, q.fzo).Sub(q.oz).Mul(q.fz))
		var near wideRow
		nr.Store(&near)
		mask := uint(nr.LessEqual(fr).ToBits())
		// The upper register halves are cleared before the scalar (SSE) code
		// that follows, in each branch: before the branch, the compiler
		// could schedule it ahead of the test.
		if mask == 0 {
			archsimd.ClearAVXUpperBits()
		} else {
			archsimd.ClearAVXUpperBits()
			i0 := bits.TrailingZeros(mask)
			m := mask & (mask - 1)
			if m == 0 {
				cur = stackEntry{n.ref[i0&wideMask], near[i0&wideMask]}
			} else if i1 := bits.TrailingZeros(m); m&(m-1) == 0 {
				a, c := stackEntry{n.ref[i0&wideMask], near[i0&wideMask]}, stackEntry{n.ref[i1&wideMask], near[i1&wideMask]}
				if c.near < a.near {
					a, c = c, a
				}
				w.stack[sp] = c
				prefetchChild(wide, leaves, c.node)
				sp++
				cur = a
			} else {
				base := sp
				sp = pushSorted(n, mask, &near, w.stack[:], sp) - 1
				cur = w.stack[sp]
				for j := base; j < sp; j++ {
					prefetchChild(wide, leaves, w.stack[j].node)
				}
			}
			if cur.near <= tm {
				prefetchChild(wide, leaves, cur.node)
				w.cur, w.sp = cur, sp
				return true
			}
			w.sp = sp
		}
	} else {
		lo, hi := leafRange(cur.node)
		var lh leafHits
		cand, edge := w.o.tri().leafCandidates(b.rows, lo, hi-lo, w.tMin, tm, &lh)
		for m := cand; m != 0; m &= m - 1 {
			k := bits.TrailingZeros(m)
			s := lo + uint32(k)
			var t, u, v float32
			var front, ok bool
			if edge&(1<<k) != 0 {
				t, u, v, front, ok = w.o.tri().intersect(&b.tris[s], w.tMin, tm)
			} else {
				t, u, v, front, ok = lh.hit(k, w.tMin, tm)
			}
			if !ok {
				continue
			}
			tm = t
			w.h = fastHit{t, u, v, s, front, b.primID(s)}
			w.found = true
		}
		w.tMax = tm
	}
	return w.pop()
}

// stepOccludedSIMD is stepOccluded with the vector tests of
// occludesFiniteOnSIMD.
func (b *BLAS) stepOccludedSIMD(w *batchWalk, record bool) bool {
	cur := w.cur.node
	if !isLeafRef(cur) {
		if w.sp > batchStackLimit {
			w.overflow = true
			return false
		}
		wide, leaves := b.wide, b.leafLines()
		n := &wide[cur]
		q := &w.q
		p := unsafe.Pointer(&n.b)
		nr := q.tMin.Max(q.load(p, q.nxo).Sub(q.ox).Mul(q.ix)).Max(q.load(p, q.nyo).Sub(q.oy).Mul(q.iy)).Max(q.load(p, q.nzo).Sub(q.oz).Mul(q.iz))
		fr := archsimd.BroadcastFloat32x8(w.tMax).Mul(q.robust).Min(q.load(p, q.fxo).Sub(q.ox).Mul(q.fx)).Min(q.load(p, q.fyo).Sub(q.oy).Mul(q.fy)).Min(q.load(p, q.fzo).Sub(q.oz).Mul(q.fz))
		mask := uint(nr.LessEqual(fr).ToBits())
		// The upper register halves are cleared before the scalar (SSE) code
		// that follows, in each branch: before the branch, the compiler
		// could schedule it ahead of the test.
		if mask == 0 {
			archsimd.ClearAVXUpperBits()
		} else {
			var near, far wideRow
			nr.Store(&near)
			fr.Store(&far)
			archsimd.ClearAVXUpperBits()
			take := reachChild(mask, &near, &far)
			for m := mask &^ (1 << take); m != 0; {
				var i int
				i, m = lastSlot(m)
				w.stack[w.sp] = stackEntry{node: n.ref[i&wideMask]}
				prefetchChild(wide, leaves, w.stack[w.sp].node)
				w.sp++
			}
			w.cur.node = n.ref[take]
			prefetchChild(wide, leaves, w.cur.node)
			return true
		}
	} else {
		lo, hi := leafRange(cur)
		var lh leafHits
		cand, edge := w.o.tri().leafCandidates(b.rows, lo, hi-lo, w.tMin, w.tMax, &lh)
		if w.occludeLeaf(b, lo, cand, edge, &lh, record) {
			return false
		}
	}
	if w.sp == 0 {
		return false
	}
	w.sp--
	w.cur = w.stack[w.sp]
	return true
}
