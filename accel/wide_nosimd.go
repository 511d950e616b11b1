//go:build !(goexperiment.simd && amd64)

package accel

// useSIMD is false without GOEXPERIMENT=simd on amd64: the scalar walks
// are the default.
const useSIMD = false

func (r *rayBox) hitWideSIMD(n *wideNode, tMin, tMax float32, near *wideRow) uint {
	panic("unreachable")
}

// simdAvailable is false without GOEXPERIMENT=simd on amd64: no BLAS keeps
// leaf rows for the vector leaf test.
const simdAvailable = false

func (b *BLAS) walkFiniteOnSIMD(o *objectRay, tMin float32, tMax *float32, h *fastHit, st *walkState, stack []stackEntry) bool {
	panic("unreachable")
}

func (b *BLAS) occludesFiniteOnSIMD(o *objectRay, tMin, tMax float32, stack []uint32, h *fastHit) (hit, done bool) {
	panic("unreachable")
}

// nodeRay holds the vector walks' slab constants; the scalar build has none.
type nodeRay struct{}

func (q *nodeRay) init(r *rayBox, tMin float32) {}

func (b *BLAS) stepClosestSIMD(w *batchWalk) bool { panic("unreachable") }

func (b *BLAS) stepOccludedSIMD(w *batchWalk, record bool) bool { panic("unreachable") }

func (w *watertightRay) leafCandidates(rows []float32, first, n uint32, tMin, tMax float32, out *leafHits) (cand, edge uint) {
	panic("unreachable")
}
