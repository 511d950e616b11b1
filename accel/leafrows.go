package accel

import (
	"cmp"
	"math"
	"slices"
)

// leafRows lays the triangles of every leaf out as structure-of-arrays
// rows for the leaf tests that take a whole leaf at once (leafCandidates
// with GOEXPERIMENT=simd, the assembly leafTest of the scalar walks): the
// leaf with slots [first, first+n) owns rows[rowsPerSlot*first :
// rowsPerSlot*(first+n)], row 3*vertex+axis holding that component of that
// vertex for its n triangles, so one load fetches a component for a whole
// leaf (at most maxLeafCount = 8 triangles, one 8-lane vector), and row 9
// the primitive ids of its slots (BLAS.primID, as float32 bits), which a
// hit reads from the leaf it was just tested in rather than from primIndex
// and primGeom, whose lines would be cache misses of their own after the
// walk (the 1M terrain's incoherent single rays lost 8% to primIndex's).
// Because leaves cover the slots exactly, the rows take 40 bytes per
// triangle; 8 floats of padding at the end let a load read past the last
// leaf (the extra lanes are masked off).
//
// BLASes keep rows where a walk tests leaves from them: the vector walks
// (simdAvailable) and, on amd64, the scalar walks' assembly leaf test
// (leafAsm); elsewhere rows are nil.
func (b *BLAS) leafRows() []float32 {
	return b.leafRowsInto(newLeafRows(len(b.tris)))
}

// rowsPerSlot is the number of leaf rows, so of floats a triangle slot
// takes in them: nine coordinates and its primitive id.
const rowsPerSlot = 10

// primRowBias is XORed into the primitive ids in the leaf rows, so that
// as floats they are not subnormal (it sets bit 30 of every id, which
// maxPrimitives keeps below 2^28, so that the exponent is at least 128,
// or the value an infinity or NaN): the leaf tests load eight lanes of
// every row, so for a leaf of fewer than eight triangles the last rows'
// loads reach into its primitive id row, and arithmetic on subnormal
// floats in those (masked-off) lanes takes a microcode assist: the soups'
// shadow rays ran at 0.7-0.8x with the indices stored as they are.
const primRowBias = 1 << 30

// newLeafRows returns zero rows for n triangles where BLASes keep rows,
// else nil.
func newLeafRows(n int) []float32 {
	if !(simdAvailable || leafAsm) || n == 0 {
		return nil
	}
	return hugeSlice[float32](leafRowsLen(n), leafRowsLen(n))
}

// leafRowsLen is the length of the leaf rows of n slots: rowsPerSlot
// floats a slot and eight of padding.
func leafRowsLen(n int) int { return rowsPerSlot*n + 8 }

// leafRowsInto is leafRows into rows from newLeafRows(len(b.tris)).
func (b *BLAS) leafRowsInto(rows []float32) []float32 {
	if rows == nil {
		return nil
	}
	eachLeaf(b.nodes, func(n *node) { b.putLeafRows(rows, int(n.first), int(n.count), true) })
	return rows
}

// putLeafRows lays out the rows of the leaf of slots [first, first+cnt)
// in rows, the primitive ids' row too where ids: the coordinates with
// leafRowsAVX where leafRowsFast (an 8x8 transpose in registers; the Go
// loop's scattered stores took a quarter of a 10k-triangle update).
func (b *BLAS) putLeafRows(rows []float32, first, cnt int, ids bool) {
	block := rows[rowsPerSlot*first : rowsPerSlot*(first+cnt)]
	if ids {
		for k := range cnt {
			block[9*cnt+k] = math.Float32frombits(b.primID(uint32(first+k)) ^ primRowBias)
		}
	}
	if leafRowsFast && cnt >= 1 && cnt <= maxLeafCount {
		leafRowsAVX(&b.tris[first], cnt, &block[0], nil)
		return
	}
	for k, t := range b.tris[first : first+cnt] {
		// Row by row, last first: one bounds check covers the rest.
		block[8*cnt+k] = t[2].Z
		block[7*cnt+k] = t[2].Y
		block[6*cnt+k] = t[2].X
		block[5*cnt+k] = t[1].Z
		block[4*cnt+k] = t[1].Y
		block[3*cnt+k] = t[1].X
		block[2*cnt+k] = t[0].Z
		block[cnt+k] = t[0].Y
		block[k] = t[0].X
	}
}

// primID returns the primitive id of slot s: the index of its primitive
// among all of b's, geometry by geometry (primitive p of geometry g is
// geoms[g].first + p), which a hit carries (fastHit.id) and splitID takes
// apart.
func (b *BLAS) primID(s uint32) uint32 {
	if len(b.geoms) == 1 {
		return b.primIndex[s]
	}
	return b.geoms[b.primGeom[s]].first + b.primIndex[s]
}

// splitID returns the geometry and primitive index of primitive id id
// (primID).
func (b *BLAS) splitID(id uint32) (g, p uint32) {
	if len(b.geoms) == 1 {
		return 0, id
	}
	// The last geometry whose first id is at most id, as geomOf finds it:
	// geometries without primitives share their first id with the next,
	// and hold none of them.
	i, _ := slices.BinarySearchFunc(b.geoms, id+1, func(e geomInfo, t uint32) int { return cmp.Compare(e.first, t) })
	return uint32(i - 1), id - b.geoms[i-1].first
}

// leafRowsGrain is the number of binary nodes leafRows lays out per
// chunk: a leaf writes 10 rows of up to 8 floats, so nodes are cheap to
// skip and dear to lay out, and a tree of 100k triangles has only 33k-50k
// nodes (with workGrain it would stay on one goroutine; with 4096, eight
// chunks for 16 processors).
const leafRowsGrain = 1 << 11

// leafHits holds, per triangle of a leaf test, the values the float32 path
// of intersect ends with.
type leafHits struct {
	t, ev, ew, det [8]float32
}

// hit returns intersect's answer for triangle k of the leaf test that
// filled h, over (tMin, tMax), when none of its edge functions is zero
// (those take intersect's exact path): the same operations on the same
// values.
func (h *leafHits) hit(k int, tMin, tMax float32) (t, u, v float32, front, ok bool) {
	t = h.t[k&7]
	if !(t > tMin && t < tMax) {
		return 0, 0, 0, false, false
	}
	det := h.det[k&7]
	inv := 1 / det
	return t, h.ev[k&7] * inv, h.ew[k&7] * inv, det > 0, true
}

// candidate returns the answer for candidate k of a leaf test over (tMin,
// tMax), the leaf's first slot being lo: intersect's for an edge case (a
// bit of edge), else the one the test left in lh (hit). The closest-hit
// walks' leaf loops write it out: it is not inlined, and a call per
// candidate cost the 386 walks' closest-hit rays 1-6%.
func (lh *leafHits) candidate(w *watertightRay, tris []triVerts, lo uint32, k int, edge uint, tMin, tMax float32) (t, u, v float32, front, ok bool) {
	if edge&(1<<k) != 0 {
		return w.intersect(&tris[lo+uint32(k)], tMin, tMax)
	}
	return lh.hit(k, tMin, tMax)
}
