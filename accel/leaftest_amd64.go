//go:build !purego

package accel

import "unsafe"

// leafAsm says whether leafTest is the assembly one: the scalar walks
// then test a leaf's triangles four at a time from the leaf rows, which
// every BLAS keeps (leafRows).
const leafAsm = true

// leafTest is watertightRay.leafCandidates with SSE, four triangles per
// register, for the scalar walks: the same operations in the same order
// on the leaf rows at leaf (the leaf's first row; n triangles, 1 to 8),
// so its answers are intersect's bit for bit (TestLeafTestMatchesIntersect).
//
//go:noescape
func leafTest(w *watertightRay, leaf unsafe.Pointer, n int, tMin, tMax float32, out *leafHits) (cand, edge uint)

// The assembly hard-codes these offsets.
var (
	_ = [1]struct{}{}[unsafe.Offsetof(watertightRay{}.kx)-16]
	_ = [1]struct{}{}[unsafe.Offsetof(watertightRay{}.ky)-24]
	_ = [1]struct{}{}[unsafe.Offsetof(watertightRay{}.kz)-32]
	_ = [1]struct{}{}[unsafe.Offsetof(watertightRay{}.ox)-64]
	_ = [1]struct{}{}[unsafe.Offsetof(watertightRay{}.sx)-76]
	_ = [1]struct{}{}[unsafe.Offsetof(watertightRay{}.sz)-84]
	_ = [1]struct{}{}[unsafe.Offsetof(leafHits{}.ev)-32]
	_ = [1]struct{}{}[unsafe.Offsetof(leafHits{}.det)-96]
)
