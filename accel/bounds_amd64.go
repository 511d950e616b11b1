//go:build !purego

package accel

import "unsafe"

// boundsAsm says whether rangeBounds and centroidBounds take refBounds.
const boundsAsm = true

// refBounds stores the bounds of the n refs at refs in *box (unless box is
// nil) and their doubled-centroid bounds in *cent, in one SSE pass: the
// box exactly as rangeBounds' Go loop folds it, the centroid bounds as
// centroidBounds' up to the sign of a zero (TestRefBoundsMatchesGo).
//
//go:noescape
func refBounds(refs *bref, n int, box *binBox, cent *centroids)

var (
	_ = [1]struct{}{}[unsafe.Sizeof(bref{})-28]
	_ = [1]struct{}{}[unsafe.Offsetof(bref{}.nmaxX)-12]
	_ = [1]struct{}{}[unsafe.Sizeof(binBox{})-32]
	_ = [1]struct{}{}[unsafe.Offsetof(binBox{}.nmaxX)-16]
	_ = [1]struct{}{}[unsafe.Sizeof(centroids{})-24]
)

// binRefsSSE is binRefs' loop over n refs from refs, stride refs apart,
// into bins and counts: the same bins, boxes bit for
// bit, and counts (TestBinRefsMatchesGo).
//
//go:noescape
func binRefsSSE(refs *bref, n, stride int, bn *binning, boxes *[3][maxBins]binBox, counts *[3][maxBins]int32)

var (
	_ = [1]struct{}{}[unsafe.Offsetof(binning{}.k)-12]
	_ = [1]struct{}{}[unsafe.Offsetof(binning{}.nb)-24]
	_ = [1]struct{}{}[maxBins-32]
)

// triRefsSSE writes the refs of the n triangles at tris to refs, ids from
// firstID, as BLAS.build's Go loop does (TestTriRefsMatchesGo): bounds
// with Go's min and max, bit for bit; a triangle with a coordinate that
// is not finite gets only the id inactiveID. It returns how many did.
//
//go:noescape
func triRefsSSE(tris *triVerts, n int, firstID uint32, refs *bref) (inactive int)

var _ = [1]struct{}{}[unsafe.Sizeof(triVerts{})-36]

// sweepSSE is sweepAxisGo in SSE: the same split and cost, bit for bit
// (TestSweepMatchesGo).
//
//go:noescape
func sweepSSE(boxes *[maxBins]binBox, counts *[maxBins]int32, idx *[maxBins]uint8, k int) (split int, cost float32)
