//go:build !purego

package accel

import (
	"unsafe"

	"github.com/raypipe/raypipe/vec"

	"golang.org/x/sys/cpu"
)

// haveAVX2 reports a processor with AVX2 and an operating system that
// saves its registers.
var haveAVX2 = cpu.X86.HasAVX2

// fusedAVX2 says whether the scalar walks run whole in AVX2 assembly
// (walkAVX2, occludeAVX2) and the other walks test nodes and leaves with
// the AVX2 kernels (slabTestAVX2, leafTestAVX2): wherever haveAVX2
// holds. Tests turn it off to compare with the SSE kernels and the Go
// loops.
var fusedAVX2 = haveAVX2

// compressSlots[m] lists the slots set in the mask m, in decreasing
// order: occludeAVX2 pushes the children a node test hits but does not
// take (reachChild), last slot first (so that it pops them in slot
// order, as the Go loops do), by
// permuting the node's references with it, without a branch per child.
var compressSlots = func() (t [256][wideWidth]uint32) {
	for m := range t {
		k := 0
		for i := wideWidth - 1; i >= 0; i-- {
			if m>>i&1 != 0 {
				t[m][k] = uint32(i)
				k++
			}
		}
	}
	return t
}()

var (
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.nrows)-24]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.slab)-40]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.wt)-48]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.limit)-64]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.h)-72]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.tMin)-80]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.cur)-88]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.sp)-96]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.first)-104]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.found)-105]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.framed)-106]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.compress)-112]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.lh)-120]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.cand)-128]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.org)-136]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.dir)-144]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.box)-152]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.root)-160]
	_ = [1]struct{}{}[unsafe.Offsetof(fusedWalk{}.began)-168]
	_ = [1]struct{}{}[unsafe.Offsetof(rayBox{}.finite)-39] // beginWalkYieldAVX2's CMPB
	_ = [1]struct{}{}[unsafe.Offsetof(leafHits{}.det)-96]
	_ = [1]struct{}{}[unsafe.Offsetof(fastHit{}.slot)-12]
	_ = [1]struct{}{}[unsafe.Offsetof(fastHit{}.front)-16]
	_ = [1]struct{}{}[unsafe.Offsetof(fastHit{}.id)-20]
	_ = [1]struct{}{}[primRowBias-0x40000000] // COMMIT's XORL
	_ = [1]struct{}{}[unsafe.Offsetof(watertightRay{}.sz)-84]
	_ = [1]struct{}{}[unsafe.Offsetof(wideNode{}.ref)-192]
	_ = [1]struct{}{}[unsafe.Offsetof(wideNode{}.n)-224] // ROOTLEAF's CMPL (the size: prefetch.go)
)

// walkAVX2 runs walkFiniteOn's loop on w: inner nodes as nodeWalk walks
// them, with the eight children of a node in one 256-bit slab test (and
// three or more hit children pushed by rank, in pushSorted's order), and
// leaves as the loop tests them, with all triangles of a leaf in one
// 256-bit leafTest; the stacks and the hits it commits are the loop's,
// bit for bit (TestNodeWalkMatchesGo, TestNodeWalkSameHits). It returns true with w.cur set to an entry it
// leaves to Go: a leaf reached before the triangle test is set up (w.wt
// nil), or an inner node past w.nwide or met with the stack above
// w.limit. (Edge cases, a triangle whose edge function is zero, it
// decides itself as intersect does: EXACTLANE.) It returns false when the walk is over:
// the stack ran empty.
//
//go:noescape
func walkAVX2(w *fusedWalk) (more bool)

// walkYieldAVX2 is walkAVX2 for a Traversal, which decides every
// candidate itself (any-hit shaders, RayQuery): it walks as walkAVX2 walks
// (w.wt must be set) and tests each leaf it reaches, but commits nothing.
// Where a leaf has candidates (triangles hit over (w.tMin, w.tMax)) it
// returns true with w.cur set to that leaf, the leaf test's values in
// w.lh and the candidates in w.cand (as leafTestAVX2 leaves them, but
// with the edge cases decided: every candidate finishes from w.lh), for
// Go to decide slot by slot; it leaves w.cand alone at the entries that
// walkAVX2 leaves to Go (an inner node past w.nwide or met with the stack
// above w.limit, a leaf whose rows are out of range). It returns false
// when the stack ran empty. Leaves without a candidate, most of those a
// ray reaches, never return to Go.
//
//go:noescape
func walkYieldAVX2(w *fusedWalk) (more bool)

// beginWalkYieldAVX2 is setupRayAVX2 and walkYieldAVX2 in one call, for
// a Traversal entering an instance (beginWalk): it sets the ray from
// *w.org along *w.dir up into *w.box and *w.wt, tests *w.root over
// (w.tMin, w.tMax) where w.root is set, and walks from the root as
// walkYieldAVX2 does (the root's entry distance, or w.tMin, in w.cur, on
// an empty stack). w.began says how far it went: beganRefused (nothing set
// up, as setupRayAVX2 refuses), beganMissed (the root box missed),
// beganSetUp (a ray whose slab distances are not finite: set up, for the
// Go walks) or beganWalk, when it returns as walkYieldAVX2 does; it
// returns false but for beganWalk.
//
//go:noescape
func beginWalkYieldAVX2(w *fusedWalk) (more bool)

// beginOccludeYieldAVX2 is beginWalkYieldAVX2 for a first-hit walk
// (beginFirstWalk): it walks as occludeYieldAVX2 does, on w's stack of
// references.
//
//go:noescape
func beginOccludeYieldAVX2(w *fusedWalk) (more bool)

// occludeYieldAVX2 is occludeAVX2 for a Traversal with
// RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH, as walkYieldAVX2 is walkAVX2
// for the others: where a leaf has candidates it returns true with
// w.cur.node, w.lh and w.cand set for that leaf instead of ending the
// walk, and it sets neither w.found nor a hit. Its stack holds
// references (uint32), as occludeAVX2's.
//
//go:noescape
func occludeYieldAVX2(w *fusedWalk) (more bool)

// setupRayAVX2 is rayBox.setup (with slabRay.init where the ray's slab
// distances are finite) and watertightRay.setup for the ray from *o
// along *d, bit for bit (TestSetupRayAVX2MatchesGo), in one call: for a
// finite origin and a finite direction that is not zero. It sets nothing
// and returns setupRefused for any other ray. Where root is not nil it
// then tests that box over [tMin, tMax] as rayBox.hit does, bit for bit,
// and returns its entry distance, or setupMissed, with only the rayBox's
// own fields set (not its slabRay, nor w), where the ray misses it. A
// Traversal sets each ray up so, where the AVX2 walks run: in Go, the
// set-up was a seventh of an any hit ray's time through the 10k terrain.
//
//go:noescape
func setupRayAVX2(o, d *vec.Vec3, r *rayBox, w *watertightRay, root *AABB, tMin, tMax float32) (near float32, status uint8)

// The layout setupRayAVX2 writes.
var (
	_ = [1]struct{}{}[unsafe.Offsetof(rayBox{}.inv)-12]
	_ = [1]struct{}{}[unsafe.Offsetof(rayBox{}.invFar)-24]
	_ = [1]struct{}{}[unsafe.Offsetof(rayBox{}.negX)-36]
	_ = [1]struct{}{}[unsafe.Offsetof(rayBox{}.negZ)-38]
	_ = [1]struct{}{}[unsafe.Offsetof(rayBox{}.finite)-39]
	_ = [1]struct{}{}[unsafe.Offsetof(rayBox{}.nearX)-40]
	_ = [1]struct{}{}[unsafe.Offsetof(rayBox{}.nearZ)-56]
	_ = [1]struct{}{}[unsafe.Offsetof(rayBox{}.slab)-64]
	_ = [1]struct{}{}[unsafe.Offsetof(slabRay{}.iz)-80]
	_ = [1]struct{}{}[unsafe.Offsetof(slabRay{}.fzo)-232]
	_ = [1]struct{}{}[unsafe.Offsetof(watertightRay{}.kxo)-40]
	_ = [1]struct{}{}[unsafe.Offsetof(watertightRay{}.kzo)-56]
	_ = [1]struct{}{}[unsafe.Offsetof(watertightRay{}.ox)-64]
)

// occludeAVX2 is walkAVX2 for occludesFiniteOn: it walks as occludeWalk
// (taking the child whose crossing reaches farthest, pushing the others at once, in
// slot order, through w.compress) and tests leaves as the loop does, and returns false when it has the
// answer (w.found: a triangle hits) or true at an entry it leaves to Go,
// as walkAVX2 (w.cur.node; the stack holds references).
//
//go:noescape
func occludeAVX2(w *fusedWalk) (more bool)

// Results of rayWalkAVX2 and rayOccludeAVX2.
const (
	rayMiss   = 0 // no triangle hits
	rayHit    = 1 // h holds the hit (closest, or the first committed)
	rayGoMust = 2 // Go must walk: a deep stack (and, in a TLAS walk, a BLAS without rows or a placed ray the walks cannot take)
	// rayAnswered marks a batch's ray that Go has answered already
	// (batchResults.walkCoherent); the walks never return it.
	rayAnswered = 3
	// rayNotFinite: the ray's inverse direction has an infinite component
	// (a zero or tiny direction component), which the batches leave to
	// their NaN variants (batchWalkNaNAVX2), and which rayTLASOccludeAVX2
	// with first leaves to Go; the one-call queries hand such a ray to
	// their NaN variants themselves.
	rayNotFinite = 4
)

// rayWalkAVX2 is a whole query of a BLAS (its blasArrays, as separate
// arguments: see BLAS.queryAVX2) for the ray from org along dir
// over (tMin, tMax), in its object space, in one call: it sets the ray up
// as objectRay.setupPlaced and watertightRay.setup do, bit for bit, and
// runs walkAVX2's steps (first-hit queries take rayOccludeAVX2's) from
// the root on a stack in its own frame, so that a query costs one call. The
// caller has checked the ray (rayUsable, TMin <= TMax) and the BLAS (a
// root box, leaf rows). Where walkAVX2 would leave an entry to Go it
// returns rayGoMust and the caller walks the ray from the start in Go:
// the answer does not depend on where a walk was started
// (TestRayAVX2MatchesWalk). A ray with a zero or tiny direction
// component it hands over to rayWalkNaNAVX2, which takes the same
// arguments, in a tail call: Go code that kept its arguments across the
// call to retry itself cost a ray that misses the root 4-5 ns more on an
// AMD Zen 3 (22 against 27 ns on the 10k terrain), which no instruction
// of its own explains.
//
//go:noescape
func rayWalkAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, org, dir *vec.Vec3, tMin, tMax float32, h *fastHit) (status int)

// rayOccludeAVX2 is rayWalkAVX2 for occludeAVX2's steps: rayHit when a
// triangle hits, which, with first, it commits into h (firstHit's walk).
//
//go:noescape
func rayOccludeAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, org, dir *vec.Vec3, tMin, tMax float32, first bool, h *fastHit) (status int)

// rayIntersectAVX2 is rayWalkAVX2 for the Ray at r in the BLAS's own
// space, as BLAS.Intersect places it, checked (rayUsable, TMin <= TMax)
// by the routine itself: rays that fail the checks come back rayGoMust.
//
//go:noescape
func rayIntersectAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, r *Ray, h *fastHit) (status int)

// rayOccludedAVX2 is rayOccludeAVX2 for the Ray at r, as
// rayIntersectAVX2.
//
//go:noescape
func rayOccludedAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, r *Ray, first bool, h *fastHit) (status int)

// rayWalkNaNAVX2, rayOccludeNaNAVX2, rayIntersectNaNAVX2 and
// rayOccludedNaNAVX2 are the one-call queries for the rays the others
// hand over to them: rays whose inverse direction has infinite
// components, whose slab distances are NaN where the origin lies on a
// child's plane. Their node test (SLAB8NAN) takes the distances as
// rayBox.hitWide takes them for such rays, passing over NaN ones (the
// origin counts as inside that slab), and their occlusion walks take each
// node's first child hit first, as BLAS.firstHit does for them: every
// answer is the Go walks' bit for bit (TestRayAVX2NaNMatchesWalk). An
// axis-aligned ray, a height query straight down say, took the Go walk
// before, at about a third of the rate of its tilted neighbours. Rays
// they cannot take come back rayGoMust.
//
//go:noescape
func rayWalkNaNAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, org, dir *vec.Vec3, tMin, tMax float32, h *fastHit) (status int)

//go:noescape
func rayOccludeNaNAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, org, dir *vec.Vec3, tMin, tMax float32, first bool, h *fastHit) (status int)

//go:noescape
func rayIntersectNaNAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, r *Ray, h *fastHit) (status int)

//go:noescape
func rayOccludedNaNAVX2(wide unsafe.Pointer, nwide int, rows unsafe.Pointer, nrows int, r *Ray, first bool, h *fastHit) (status int)

// topHit is what rayTLASWalkAVX2 reports of its hit: the triangle's
// (fastHit), the instance's leaf slot (TLAS.slots) and the ray placed in
// it.
type topHit struct {
	h        fastHit
	slot     uint32
	org, dir vec.Vec3
}

// rayTLASWalkAVX2 is TLAS.IntersectTo's walk for a finite world ray,
// top level and instances, in one call (see the assembly): rayHit with
// out set, rayMiss, or rayGoMust where Go must walk the ray (a BLAS
// without rows, a deep stack). A world or placed ray with an infinite
// inverse component it hands over to rayTLASWalkNaNAVX2 in a tail call,
// as rayWalkAVX2 does. Every answer is intersectTopAVX2's bit for bit
// (TestTLASTopLevelAVX2MatchesTraversal): the same nodes in the same
// order, the ray placed with the same roundings.
//
//go:noescape
func rayTLASWalkAVX2(wide unsafe.Pointer, nwide int, slots unsafe.Pointer, nslots int, r *Ray, mask uint32, out *topHit) (status int)

// rayTLASOccludeAVX2 is rayTLASWalkAVX2 for TLAS.firstHit's walk
// (occludedTopAVX2's, each instance's that of rayOccludeAVX2, with
// first): rayHit as soon as a triangle hits, committed into out with
// first. Rays with an infinite inverse component go on in
// rayTLASOccludeNaNAVX2 without first, and come back rayNotFinite with
// it (that walk's order would stop at another hit than the Go loops').
//
//go:noescape
func rayTLASOccludeAVX2(wide unsafe.Pointer, nwide int, slots unsafe.Pointer, nslots int, r *Ray, mask uint32, first bool, out *topHit) (status int)

// rayTLASWalkNaNAVX2 is rayTLASWalkAVX2 for the rays it hands over (a
// world or placed ray with an infinite inverse component), with the NaN
// walks' node test at both levels: the answers of the Go loops for any
// ray.
//
//go:noescape
func rayTLASWalkNaNAVX2(wide unsafe.Pointer, nwide int, slots unsafe.Pointer, nslots int, r *Ray, mask uint32, out *topHit) (status int)

// rayTLASOccludeNaNAVX2 is rayTLASOccludeAVX2 for the rays it hands
// over, taking each node's first child hit first: whether a
// triangle hits (first must be false: which one it stops at is not the
// Go loops').
//
//go:noescape
func rayTLASOccludeNaNAVX2(wide unsafe.Pointer, nwide int, slots unsafe.Pointer, nslots int, r *Ray, mask uint32, first bool, out *topHit) (status int)

// The layouts rayTLASWalkAVX2 reads (SLOTW2O and the others in
// fused_amd64.s).
var (
	_ = [1]struct{}{}[unsafe.Sizeof(topSlot{})-64]
	_ = [1]struct{}{}[unsafe.Offsetof(topSlot{}.placeCols)]
	_ = [1]struct{}{}[unsafe.Offsetof(topSlot{}.blas)-48]
	_ = [1]struct{}{}[unsafe.Offsetof(topSlot{}.mask)-60]
	_ = [1]struct{}{}[unsafe.Offsetof(BLAS{}.typ)-4]
	_ = [1]struct{}{}[unsafe.Sizeof(BLAS{}.typ)-1]
	_ = [1]struct{}{}[GeometryTriangles]
	_ = [1]struct{}{}[unsafe.Offsetof(BLAS{}.wide)-56]
	_ = [1]struct{}{}[unsafe.Offsetof(BLAS{}.rows)-104]
	_ = [1]struct{}{}[unsafe.Offsetof(topHit{}.slot)-24]
	_ = [1]struct{}{}[unsafe.Offsetof(topHit{}.org)-28]
	_ = [1]struct{}{}[unsafe.Offsetof(topHit{}.dir)-40]
)

// batchQuery is a batch for batchWalkAVX2 or batchOccludeAVX2: the
// BLAS's arrays, the rays, where their results go and the walk's mode. The
// assembly hard-codes its layout (asserted below).
type batchQuery struct {
	blasArrays
	rays   *Ray     // the batch's rays
	n      int      // one past the last ray the lanes take
	next   int      // the next ray a lane takes: the first at the call
	status *uint8   // n results: rayMiss, rayHit or rayGoMust
	hits   *fastHit // n hits, set for each rayHit
	first  bool     // batchOccludeAVX2: commit each ray's hit into hits (firstHit's walks)
	// placed: the rays are in the BLAS's object space already (an
	// instance's); else they are placed as BLAS.Intersect places them.
	placed bool
	// steps counts the steps (nodes and leaves) the walks took, added to
	// at the end of each call.
	steps int
}

var (
	_ = [1]struct{}{}[unsafe.Offsetof(batchQuery{}.rays)-40]
	_ = [1]struct{}{}[unsafe.Offsetof(batchQuery{}.status)-64]
	_ = [1]struct{}{}[unsafe.Offsetof(batchQuery{}.hits)-72]
	_ = [1]struct{}{}[unsafe.Offsetof(batchQuery{}.first)-80]
	_ = [1]struct{}{}[unsafe.Offsetof(batchQuery{}.placed)-81]
	_ = [1]struct{}{}[unsafe.Offsetof(batchQuery{}.steps)-88]
	_ = [1]struct{}{}[unsafe.Sizeof(fastHit{})-24]
	_ = [1]struct{}{}[unsafe.Sizeof(Ray{})-32]
)

// batchWalkAVX2 runs walkAVX2's walk (rayWalkAVX2's) for each
// of q's rays, placed as BLAS.Intersect places them (the origin plus +0)
// unless q.placed,
// eight walks at a time, one node or leaf of each in turn: a walk yields
// to the next once it has prefetched its next node or leaf, so that the
// walks' cache misses overlap (the Go batch walks' interleaving, without
// leaving the assembly). Each walk takes its single-ray steps, so every
// answer is rayWalkAVX2's bit for bit (TestBatchAVX2MatchesRayAVX2). Rays that
// are not rayUsable, with TMin > TMax, or that Go must walk get
// rayGoMust.
//
//go:noescape
func batchWalkAVX2(q *batchQuery)

// batchOccludeAVX2 is batchWalkAVX2 for occludeAVX2's walks
// (rayOccludeAVX2's): rayHit for a ray that hits a triangle.
//
//go:noescape
func batchOccludeAVX2(q *batchQuery)

// batchWalkNaNAVX2 and batchOccludeNaNAVX2 are batchWalkAVX2 and
// batchOccludeAVX2 for the rays those answer rayNotFinite, with the walks
// of rayWalkNaNAVX2 and rayOccludeNaNAVX2: every answer is theirs bit for
// bit (TestBatchAVX2MatchesRayAVX2). They must not take other rays, whose
// occlusion walks take the child whose crossing reaches farthest first.
//
//go:noescape
func batchWalkNaNAVX2(q *batchQuery)

//go:noescape
func batchOccludeNaNAVX2(q *batchQuery)

// slabTestAVX2 is slabTest with all eight children in one 256-bit test
// (walkAVX2's): the same mask and entry distances up to the sign of a
// zero (TestSlabTestMatchesScalarLoop). Callers check fusedAVX2.
//
//go:noescape
func slabTestAVX2(n *wideNode, q *slabRay, tMin, tMax float32, near *wideRow) (mask uint)

// leafTestAVX2 is leafTest with all triangles of the leaf in one 256-bit
// test (walkAVX2's): the same answers bit for bit
// (TestLeafTestMatchesIntersect). Callers check fusedAVX2.
//
//go:noescape
func leafTestAVX2(w *watertightRay, leaf unsafe.Pointer, n int, tMin, tMax float32, out *leafHits) (cand, edge uint)
