package accel

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/raypipe/raypipe/vec"
)

// Ray is the HLSL RayDesc: t is measured in units of the (unnormalized)
// direction.
//
// Every hit the watertight triangle test gives within [TMin, TMax] is found
// (the node tests are conservative) for TMin >= 0, as Vulkan requires. A
// negative TMin finds hits behind the origin, but a box there thinner
// along the ray than float32 resolves can be culled (FuzzRayQueries,
// docs/performance.md).
type Ray struct {
	Origin    vec.Vec3
	TMin      float32
	Direction vec.Vec3
	TMax      float32
}

// CandidateKind says what a Hit describes.
type CandidateKind uint8

const (
	// KindNone: no hit (a miss, or nothing committed yet).
	KindNone CandidateKind = iota
	// KindTriangle: a triangle intersection.
	KindTriangle
	// KindProcedural: a procedural primitive (its AABB was entered; the
	// intersection shader decides).
	KindProcedural
)

// HitKind values of the HLSL HitKind() intrinsic for triangles.
const (
	HitKindTriangleFrontFace uint8 = 0xFE
	HitKindTriangleBackFace  uint8 = 0xFF
)

// Hit describes a candidate or committed intersection.
type Hit struct {
	Kind CandidateKind
	// T is the ray parameter of the hit. For a procedural candidate it is
	// the entry distance into the AABB (clamped to TMin), a hint only.
	// For a triangle it is the watertight test's scaled distance over its
	// determinant (Woop, Benthin and Wald), whose float32 rounding a long
	// thin triangle magnifies: on meshgen.Pipes' slivers it was off the
	// exact plane distance by up to 4.2e-5 of the ray's scale (the hit
	// itself is exact). Where distances must be closer, intersect the
	// triangle's plane again from TrianglePositions.
	T float32
	// U and V are the barycentrics of vertices 1 and 2 in the original
	// vertex order (BuiltInTriangleIntersectionAttributes.barycentrics).
	U, V float32
	// FrontFace reports the facing after instance flags
	// (HIT_KIND_TRIANGLE_FRONT_FACE).
	FrontFace bool
	// Opaque is the opacity after geometry, instance and ray flags.
	Opaque         bool
	InstanceIndex  uint32
	GeometryIndex  uint32
	PrimitiveIndex uint32
	// ObjectRayOrigin and ObjectRayDirection are the ray in the
	// instance's object space.
	ObjectRayOrigin    vec.Vec3
	ObjectRayDirection vec.Vec3

	inst *instance
	slot uint32
}

// InstanceID returns the hit instance's 24-bit InstanceID.
func (h *Hit) InstanceID() uint32 { return h.inst.id }

// InstanceContributionToHitGroupIndex returns the hit instance's 24-bit
// contribution to the hit group record index.
func (h *Hit) InstanceContributionToHitGroupIndex() uint32 { return h.inst.contribution }

// ObjectToWorld returns the instance transform (ObjectToWorld3x4).
func (h *Hit) ObjectToWorld() vec.Mat3x4 { return h.inst.objectToWorld }

// WorldToObject returns the inverse instance transform (WorldToObject3x4).
func (h *Hit) WorldToObject() vec.Mat3x4 { return h.inst.worldToObject }

// GeometryFlags returns the flags of the hit geometry.
func (h *Hit) GeometryFlags() GeometryFlags { return h.inst.blas.geoms[h.GeometryIndex].flags }

// HitKind returns HitKindTriangleFrontFace or HitKindTriangleBackFace for
// triangles and 0 otherwise (procedural hit kinds come from ReportHit).
func (h *Hit) HitKind() uint8 {
	if h.Kind != KindTriangle {
		return 0
	}
	if h.FrontFace {
		return HitKindTriangleFrontFace
	}
	return HitKindTriangleBackFace
}

// BLAS returns the bottom-level structure of the hit instance.
func (h *Hit) BLAS() *BLAS {
	if h.inst == nil {
		return nil
	}
	return h.inst.blas
}

// TrianglePositions returns the hit triangle's three vertices in object
// space (after the geometry transform, without the instance transform), in
// the original vertex order — the data of hlsl-0041 position fetch. It
// fails unless the hit is a triangle in a BLAS built with
// BuildAllowDataAccess.
func (h *Hit) TrianglePositions() ([3]vec.Vec3, error) {
	if h.Kind != KindTriangle {
		return [3]vec.Vec3{}, ErrNoTriangle
	}
	b := h.inst.blas
	if b.flags&BuildAllowDataAccess == 0 {
		return [3]vec.Vec3{}, ErrNoDataAccess
	}
	if h.slot == noSlot {
		return [3]vec.Vec3{}, ErrNoTriangle
	}
	return b.tris[h.slot], nil
}

// stackSize bounds the traversal stack: the stacks of the two trees.
const stackSize = 2*stackSizeWide + 4

type stackEntry struct {
	node uint32
	near float32
}

// rayBox holds a ray prepared for slab tests.
type rayBox struct {
	org vec.Vec3
	inv vec.Vec3
	// invFar is inv times robustScale, for the far planes.
	invFar vec.Vec3
	negX   bool
	negY   bool
	negZ   bool
	// finite: the origin and every inverse direction component are finite
	// and the latter nonzero, so no slab distance can be NaN.
	finite bool
	// Rows of wideNode.b holding the near plane of each axis (the far plane
	// is the other row of the pair).
	nearX, nearY, nearZ int
	// slab holds the constants of the assembly slab test (slabAsm).
	slab slabRay
}

func (r *rayBox) setup(o, d vec.Vec3) {
	r.org = o
	if min(abs32(d.X), abs32(d.Y), abs32(d.Z)) < 0x1p-22 { // else nothing to flush (RAYINVFINITE)
		d = unshearable(d)
	}
	r.inv = vec.V3(inverse(d.X), inverse(d.Y), inverse(d.Z))
	r.invFar = vec.V3(r.inv.X*robustScale, r.inv.Y*robustScale, r.inv.Z*robustScale)
	r.negX, r.negY, r.negZ = r.inv.X < 0, r.inv.Y < 0, r.inv.Z < 0
	// Without branches: incoherent rays' signs would mispredict them.
	r.nearX, r.nearY, r.nearZ = int(b2u(r.negX)), 2+int(b2u(r.negY)), 4+int(b2u(r.negZ))
	fin := func(x float32) bool { return abs32(x) <= math.MaxFloat32 }
	finInv := func(x float32) bool { return abs32(x) <= maxFiniteInverse }
	r.finite = fin(o.X) && fin(o.Y) && fin(o.Z) && finInv(r.inv.X) && finInv(r.inv.Y) && finInv(r.inv.Z) &&
		r.inv.X != 0 && r.inv.Y != 0 && r.inv.Z != 0
	if slabAsm && !useSIMD && r.finite {
		r.slab.init(r)
	}
}

// unshearable returns d with each component that the watertight test's
// shear takes as zero set to a zero of its sign, for the slab tests: the
// shear d[kx]/d[kz] of a component whose ratio to the largest one is at
// most 2^-150 rounds to zero in float32 (exactly: |x|*2^150 <= max|d|,
// the two products by 2^75 exact or infinite), so the triangle test runs
// the ray parallel to that axis, and so must the slab test. Where it took
// the true slope instead, a ray from a point on a box's plane left the box
// at t = 0 and culled it, while the triangle test, running the ray along
// that plane, gave it by the top-left rule to a triangle of that box on
// the edge it shares with one across the plane: FuzzRayQueries found such
// a ray on 2026-11-29 (TestRayUnshearableComponent). Both tests now run
// such a ray parallel; it differs from the true one by at most 2^-150 of
// its length along the dominant axis. The assembly set-ups flush the same
// components (DIRFLUSH): SETUPRAYIN itself, the one-call queries' and
// batches' by leaving such a ray to their NaN walks (RAYINVFINITE).
func unshearable(d vec.Vec3) vec.Vec3 {
	m := max(abs32(d.X), abs32(d.Y), abs32(d.Z))
	flush := func(x float32) float32 {
		keep := uint32(b2u(abs32(x)*0x1p75*0x1p75 > m)) // without a branch: zero components are common
		return math.Float32frombits(math.Float32bits(x) & (1<<31 | keep*(1<<31-1)))
	}
	return vec.V3(flush(d.X), flush(d.Y), flush(d.Z))
}

// inverse returns 1/x for a slab test's near planes. Where x is not zero
// but so small (subnormal) that 1/x overflows, it returns the largest
// float32 of x's sign instead of an infinity, which the walks would take
// for a ray parallel to that axis: the ray does cross the axis' planes, at
// distances too large for float32 but finite. A near distance taken with
// the smaller inverse is no larger than the exact one for a plane ahead
// (and one behind is below tMin >= 0 anyway), and the far planes' inverse,
// that times robustScale, overflows to the infinity that bounds the far
// distance (FuzzRayQueries found a component of 1.7e-41 that culled the
// box of a hit at t = 1.1e8). Such a ray takes the NaN walks
// (maxFiniteInverse).
func inverse(x float32) float32 {
	v := 1 / x
	if x != 0 && abs32(v) > math.MaxFloat32 {
		return math.Float32frombits(math.Float32bits(v)&(1<<31) | math.Float32bits(math.MaxFloat32))
	}
	return v
}

// hitFinite is hit for a finite ray, without a branch: each axis' near
// and far planes picked by index from the direction's signs, where hit
// swaps them on a branch each, and the distances bounded with max and min
// (t > near ? t : near is max(t, near) but for the sign of a zero, which
// no comparison sees, when t is not NaN, as none is for a finite ray and
// a box of numbers). Incoherent rays mispredicted the branches: BeginBLAS
// over the 10k terrain's incoherent rays took 51 ns where primary rays'
// took 30.
func (r *rayBox) hitFinite(b *AABB, tMin, tMax float32) (float32, bool) {
	c := (*[6]float32)(unsafe.Pointer(b))
	sx, sy, sz := r.nearX, r.nearY-2, r.nearZ-4 // 1 where the component is negative
	o, inv, invFar := &r.org, &r.inv, &r.invFar
	near := max(tMin, (c[3*sx]-o.X)*inv.X, (c[1+3*sy]-o.Y)*inv.Y, (c[2+3*sz]-o.Z)*inv.Z)
	far := min(tMax*robustScale, (c[3-3*sx]-o.X)*invFar.X, (c[4-3*sy]-o.Y)*invFar.Y, (c[5-3*sz]-o.Z)*invFar.Z)
	return near, near <= far
}

// maxFiniteInverse is the largest inverse direction component whose far
// planes' inverse (times robustScale) is finite: rays with a larger one
// take the NaN walks (rayBox.finite, RAYINVFINITE), whose slab test
// allows a NaN distance (zero times an infinite inverse).
const maxFiniteInverse = 0x1.ffffeep+127 // float32 bits 0x7f7ffff7

// robustScale widens every slab test against rounding, so that it can
// never make a box miss a triangle that the watertight test would hit
// (Ize, "Robust BVH Ray Traversal", JCGT 2013): a far plane's distance is
// taken with the inverse direction times robustScale (rayBox.invFar), and
// tMax times it bounds the far distance. With u = 2^-24, a near distance
// fl(fl(lo-o)*fl(1/d)) is at most (1+u)^3 times the exact one (three
// roundings) and a far one, fl(fl(hi-o)*fl(fl(1/d)*s)), at least
// s*(1-u)^4 times it (four), so s = 1+8u = 1+2^-21 covers both: (1+u)^3
// <= (1+8u)*(1-u)^4 (and fl(tMax*s) >= (1+7u)*tMax). Scaling the
// inverse, where pbrt scales each far distance by 1+2*gamma(3) (about
// 1+6u, which leaves that product's own rounding out), keeps a
// multiplication off every node test's dependency chain: single shadow
// rays 1.02-1.03x, the terrain's incoherent ones 1.01-1.02x, the rest and
// batches within 1% (BenchmarkTrace, 1k and 100k scenes, alternated).
//
// What the bound covers is the exact intersection. The watertight test's
// t is itself rounded: about ten roundings where the three vertices lie
// at about the same distance along the ray's dominant axis, and, as it
// weighs the vertices' distances into t, an error of a few roundings of
// the largest of them otherwise (a sliver reaching far along the ray).
// The closest-hit walks skip a pushed box whose entry distance lies
// beyond the t committed so far, so where two triangles are hit within
// that error of each other on a box's face, a box whose computed entry
// falls between their computed t can be skipped, and the closest hit is
// the one whose computed t is the larger. FuzzUpdate found both: two
// copies of a triangle 7.7 ulps apart (u = 2^-24), and a sliver 260
// units long 0.4 from the origin whose computed t lay 1260 ulps below
// the exact one, where the walk returned a triangle of the same plane
// at the exact t. Hits farther apart than their t's errors are always
// ordered as the brute-force test orders them; a box margin that covered
// the test's error would grow with each box's extent along the ray.
//
// Nor does the bound cover the watertight test's shear where it
// underflows: a ray from a point on a box's plane that drifts off it by
// less than float32's smallest number before it meets a vertex (the
// vertex's product float32(sx*z) rounds to zero, or sx itself does) is
// run along the plane by the triangle test, which puts it on an edge in
// that plane and gives it by the top-left rule to one of the edge's two
// triangles, while the slab test, with the true slope, has the ray leave
// the box on one side of the plane at t = 0 and culls it. Where the rule
// chose that side's triangle, the ray fell through the edge (FuzzRayQueries
// found one on 2026-11-29: TestRayUnshearableComponent). Two rules close
// it, neither on the walks' common path: the exact path decides such an
// edge by its refined function, with the shear's products exact in
// float64, which has the side the ray runs to (watertightRay.ownsEdge),
// and where the shear itself rounds to zero the slab tests run the ray
// parallel to that axis too (unshearable). TestWatertightUnderflowingShearNoGaps.
const robustScale = 1 + 0x1p-21

// hit returns the entry distance into b over [tMin, tMax]. NaN slab
// distances (a zero direction component with the origin on a slab plane)
// are ignored, which treats the origin as inside that slab.
func (r *rayBox) hit(b *AABB, tMin, tMax float32) (float32, bool) {
	if r.finite {
		return r.hitFinite(b, tMin, tMax)
	}
	return r.hitAny(b, tMin, tMax)
}

// hitAny is hit for any ray, NaN slab distances included.
func (r *rayBox) hitAny(b *AABB, tMin, tMax float32) (float32, bool) {
	lo, hi := b.Min, b.Max
	if r.negX {
		lo.X, hi.X = hi.X, lo.X
	}
	if r.negY {
		lo.Y, hi.Y = hi.Y, lo.Y
	}
	if r.negZ {
		lo.Z, hi.Z = hi.Z, lo.Z
	}
	near, far := tMin, tMax*robustScale
	if t := (lo.X - r.org.X) * r.inv.X; t > near {
		near = t
	}
	if t := (lo.Y - r.org.Y) * r.inv.Y; t > near {
		near = t
	}
	if t := (lo.Z - r.org.Z) * r.inv.Z; t > near {
		near = t
	}
	if t := (hi.X - r.org.X) * r.invFar.X; t < far {
		far = t
	}
	if t := (hi.Y - r.org.Y) * r.invFar.Y; t < far {
		far = t
	}
	if t := (hi.Z - r.org.Z) * r.invFar.Z; t < far {
		far = t
	}
	return near, near <= far
}

// Traversal walks an acceleration structure for one ray. It is the one
// traversal behind TraceRay, RayQuery and the plain queries: Next advances
// to the next candidate that needs a decision — a non-opaque triangle
// (any-hit) or a procedural primitive (intersection) — while opaque
// triangles are committed on the way, shrinking the ray's TMax.
//
// Where the AVX2 walks run, its walks are assembly that comes back to Go
// at each instance and at each leaf with candidates (beginWalk's first
// call, which sets the instance's ray up too, then walkYieldAVX2 or
// occludeYieldAVX2; walkTop, walkTopFirst), answering as its Go loop does
// (TestYieldWalkGivesTheGoWalksCandidates).
//
// A Traversal is reusable and allocates nothing; it is not safe for
// concurrent use. The zero value is ready for Begin.
type Traversal struct {
	ray   Ray
	flags RayFlags
	mask  uint8
	tlas  *TLAS
	world rayBox

	// Current instance (BLAS level).
	inst      *instance
	instIdx   uint32
	instFlags InstanceFlags
	blas      *BLAS
	object    rayBox
	wt        watertightRay
	objOrg    vec.Vec3
	objDir    vec.Vec3
	frontCCW  bool
	cullBack  bool
	cullFrt   bool

	stack    [stackSize]stackEntry
	sp       int
	blasBase int // stack height when the current instance was entered; -1 at top level

	// The current leaf's slots [leafFirst, leafEnd), and of them those
	// Next has yet to test (bits of leafCand, by slot - leafFirst): for
	// triangles those its whole-leaf test (BLAS.leafScan) found, run when
	// the leaf is reached (slots off its candidates cannot hit, as TMax
	// only shrinks); the others finish from leafHits or intersect.
	leafFirst, leafEnd uint32
	leafCand, leafEdge uint
	leafHits           leafHits

	// The current instance's walk runs in assembly (enter): in
	// walkYieldAVX2 (yieldWalk) with the state fw on the stack above
	// blasBase, or, with first(), in occludeYieldAVX2 (firstWalk) as
	// objWalk, while the stack holds nothing above blasBase.
	yieldWalk, firstWalk bool
	fw                   fusedWalk
	objWalk              refWalk
	// With first(), the top level's walk runs in occludeAVX2 (topFirst,
	// begin) as topWalk; the stack then holds an instance's entries only.
	topFirst bool
	topWalk  refWalk

	tMax      float32
	done      bool
	atOnce    bool // Next answers the search with the plain query (Begin)
	cand      Hit
	committed Hit
}

// Begin starts a traversal of tlas for ray r with ray flags and an
// instance inclusion mask (only the low 8 bits of TraceRay's mask count).
//
// Where no candidate can need a decision (every active instance holds
// opaque triangles only, OpaqueTrianglesOnly, and the flags neither force
// non-opaque nor cull, the plain queries' fast case), the first Next
// answers the whole search with IntersectTo, which commits exactly what
// the walk would (TestFastPathMatchesTraversal), and returns false. A
// RayQuery over an opaque scene runs at about the plain query's rate so
// (rayquery's BenchmarkClosestHit, opaque: 0.86-0.91 -> 1.81-1.83 Mrays/s,
// 0.90-0.92 of TLAS.Intersect's rate on the same rays).
func (tr *Traversal) Begin(tlas *TLAS, r Ray, flags RayFlags, mask uint32) {
	tr.begin(tlas, r, flags, mask)
	tr.atOnce = !tr.done && flags&(fastUnsupported|RayFlagForceNonOpaque) == 0 && tlas.OpaqueTrianglesOnly()
}

// answerAtOnce is Next for a search that Begin left to the plain query.
func (tr *Traversal) answerAtOnce() {
	tr.atOnce, tr.done, tr.sp = false, true, 0
	if tr.tlas.IntersectTo(&tr.ray, tr.flags, uint32(tr.mask), &tr.committed) {
		tr.tMax = tr.committed.T
	}
}

// begin is Begin that always walks: the Traversal that the plain queries
// fall back on (traceDeep, which IntersectTo calls, so Begin's answer at
// once would recurse) and that the tests compare them with.
func (tr *Traversal) begin(tlas *TLAS, r Ray, flags RayFlags, mask uint32) {
	tr.reset(r, flags, uint8(mask))
	tr.tlas = tlas
	if tlas == nil || !(r.TMin <= r.TMax) || tlas.nodes[0].bounds.IsEmpty() {
		tr.done = true // !(TMin <= TMax): also a NaN bound, as rayUsable
		return
	}
	if in := tlas.soleQuery(tr.mask); in != nil {
		// The top level would only test the instance's world box, which
		// holds every hit of its BLAS (soleQuery): the walk starts at the
		// BLAS's root box, without the world's ray or the top level's walk.
		// enterPlaced checks the ray (rayUsable) only where the assembly
		// set-up does not.
		if tr.instanceMatchesSkips(in.blas) {
			tr.enter(&tlas.slots[0], true)
		}
		return
	}
	if !rayUsable(&r) {
		tr.done = true
		return
	}
	tr.setupWorldRay() // BeginBLAS's walk needs only its object's
	if tr.first() && tr.topInAsm() {
		tr.topFirst = true
		tr.topWalk.start(blasArrays{wide: unsafe.Pointer(unsafe.SliceData(tlas.wide)), nwide: len(tlas.wide)}, r.TMin)
		tr.topWalk.fromRoot()
		return
	}
	tr.push(0, r.TMin)
}

// setupWorldRay sets the world's ray box up for the top level's walks: in
// one AVX2 call where the AVX2 walks run (setupRayAVX2, which sets the
// triangle test up too, in wt, for no instance: the first instance
// entered sets it anew), else in Go.
func (tr *Traversal) setupWorldRay() {
	if fusedAVX2 && !useSIMD {
		if _, status := setupRayAVX2(&tr.ray.Origin, &tr.ray.Direction, &tr.world, &tr.wt, nil, 0, 0); status != setupRefused {
			return
		}
	}
	tr.world.setup(tr.ray.Origin, tr.ray.Direction)
}

// BeginBLAS starts a traversal of a single BLAS, as if it were the only
// instance of a TLAS with an identity transform, InstanceID 0, mask 0xFF
// and no flags.
func (tr *Traversal) BeginBLAS(b *BLAS, r Ray, flags RayFlags) {
	tr.reset(r, flags, 0xff)
	tr.tlas = nil
	if b == nil || !(r.TMin <= r.TMax) || b.nodes[0].bounds.IsEmpty() {
		tr.done = true // !(TMin <= TMax): also a NaN bound, as rayUsable
		return
	}
	// enterPlaced checks the ray (rayUsable) only where the assembly
	// set-up does not.
	tr.enterPlaced(&b.self, 0, b, b.self.flags, identityPoint(r.Origin), identityVector(r.Direction), true)
}

func (tr *Traversal) reset(r Ray, flags RayFlags, mask uint8) {
	tr.ray, tr.flags, tr.mask = r, flags, mask
	tr.sp, tr.blasBase = 0, -1
	tr.leafCand = 0
	tr.tMax = r.TMax
	tr.done, tr.atOnce = false, false
	tr.inst, tr.blas = nil, nil
	tr.yieldWalk, tr.firstWalk, tr.topFirst = false, false, false
	tr.cand = Hit{}
	tr.committed = Hit{}
}

// rayUsable rejects rays the spec leaves undefined: NaN components, an
// infinite origin or direction component, or a zero direction. They simply
// miss. (They have no meaningful hit distance, and an instance transform,
// even the identity, turns an infinite component into NaNs: 0*Inf.)
//
// x-x is 0 for a finite x and NaN for an infinity or a NaN, so the sum of
// the six differences is 0 exactly when the origin and direction are
// finite: one comparison where six calls of IsFinite took a branch each
// (about a tenth of BeginBLAS's time).
func rayUsable(r *Ray) bool {
	o, d := &r.Origin, &r.Direction
	finite := (o.X-o.X)+(o.Y-o.Y)+(o.Z-o.Z)+(d.X-d.X)+(d.Y-d.Y)+(d.Z-d.Z) == 0
	return finite && r.TMin == r.TMin && r.TMax == r.TMax && *d != (vec.Vec3{})
}

func (tr *Traversal) push(n uint32, near float32) {
	tr.stack[tr.sp] = stackEntry{n, near}
	tr.sp++
}

// enter switches to the object space of the instance in slot s of the
// top level: one whose world box the top level's walk has just hit, or,
// with testRoot (its root box tested first), the sole instance, which
// Begin enters without a top-level walk. The
// slot holds what the walk reads of the instance, in tree order (a line
// of its own), and places the ray as the plain queries do (topSlot.place):
// through 10k instances, the instance's own fields, read in their index
// order, missed the caches at every instance entered.
func (tr *Traversal) enter(s *topSlot, testRoot bool) {
	org, dir := s.place(tr.ray.Origin, tr.ray.Direction)
	tr.enterPlaced(&tr.tlas.instances[s.idx], s.idx, s.blas, s.flags, org, dir, testRoot)
}

// enterPlaced is enter with the ray placed in the object space of in
// already, at org along dir: for a BLAS's own identity instance
// (BeginBLAS), identityPoint and identityVector place it without the
// matrix products, bit for bit. Unless testRoot, the assembly walks take
// the root without testing its box: an instance's world box bounds it,
// and the walk's test of its children culls as well (a tenth of the time
// of the any hit rays through 10k instances was that test, in Go). A
// BLAS's own rays (BeginBLAS) often miss its box: there the test comes
// first, in the call that sets the ray up (beginWalk, setupObjectRay).
func (tr *Traversal) enterPlaced(in *instance, idx uint32, b *BLAS, flags InstanceFlags, org, dir vec.Vec3, testRoot bool) {
	tr.objOrg, tr.objDir = org, dir
	began, near, more := uint8(beganRefused), float32(0), false
	if tr.beginsInAsm(b) {
		began, near, more = tr.beginWalk(b, testRoot)
	}
	switch began {
	case beganMissed:
		return
	case beganWalk:
		tr.entered(in, idx, b, flags)
		tr.yieldWalk, tr.firstWalk = !tr.first(), tr.first()
		tr.tookFirstWalk(b, more)
		return
	case beganRefused:
		// The assembly set-up refused a ray that is not finite or has a
		// zero direction (or does not run): the world's ray itself, which
		// Begin and BeginBLAS leave to be checked here (rayUsable, which
		// they ran before the set-up's own test took a twentieth of an
		// any hit primary ray's time over the 10k terrain), or an object
		// ray that a transform took out of range, which the Go walks take.
		if !rayUsable(&tr.ray) {
			return
		}
		var ok bool
		if near, ok = tr.setupObjectRay(b, testRoot); !ok {
			return // the root box is missed
		}
	}
	// The Go walks: the assembly does not walk b, or the ray's slab
	// distances are not finite (beganSetUp, its root box hit where tested).
	tr.entered(in, idx, b, flags)
	tr.yieldWalk, tr.firstWalk = false, false
	if !testRoot {
		var ok bool
		if near, ok = tr.object.hit(&b.nodes[0].bounds, tr.ray.TMin, tr.tMax); !ok {
			return
		}
	}
	if tr.first() {
		tr.push(0, tr.ray.TMin) // firstHit's walks keep no distances
	} else {
		tr.push(0, near)
	}
}

// entered makes in, of b, the current instance, its entries to go above
// the stack's current height.
func (tr *Traversal) entered(in *instance, idx uint32, b *BLAS, flags InstanceFlags) {
	tr.inst, tr.instIdx, tr.blas, tr.instFlags = in, idx, b, flags
	tr.frontCCW = flags&InstanceTriangleFrontCounterClockwise != 0
	cull := flags&InstanceTriangleCullDisable == 0
	tr.cullBack = cull && tr.flags&RayFlagCullBackFacingTriangles != 0
	tr.cullFrt = cull && tr.flags&RayFlagCullFrontFacingTriangles != 0
	tr.blasBase = tr.sp
}

// What beginWalkYieldAVX2 ran (fusedWalk.began).
const (
	beganRefused = 0 // nothing: a ray setupRayAVX2 refuses
	beganMissed  = 1 // the set-up, and the ray missed the root box
	beganWalk    = 2 // the set-up and the walk's first call
	beganSetUp   = 3 // the set-up of a ray whose slab distances are not finite, for the Go walks
)

// beginsInAsm reports whether an instance of b is entered with beginWalk,
// whose walks in assembly then take it, nodes and leaves (walkLeaves,
// walkFirst), where its ray's slab distances are finite: where the AVX2
// walks run (fusedAVX2 and nodeWalkAsm; not the vector build, which leaves
// the slab constants unset), over triangles with leaf rows.
func (tr *Traversal) beginsInAsm(b *BLAS) bool {
	return fusedAVX2 && nodeWalkAsm && !useSIMD && b.typ == GeometryTriangles && b.rows != nil
}

// beginWalk sets the ray placed in b's object space up, tests b's root
// box where testRoot, and walks to the first leaf with candidates, in one
// assembly call (beginWalkYieldAVX2, or beginOccludeYieldAVX2 with
// first(), on objWalk): what enterPlaced, descend and walkLeaves or
// walkFirst did in three, with Go between them. The closest-hit walk's
// stack starts at the current height; tookFirstWalk takes what the walk
// returns.
func (tr *Traversal) beginWalk(b *BLAS, testRoot bool) (began uint8, near float32, more bool) {
	fw := &tr.fw
	if tr.first() {
		tr.objWalk.start(b.arrays(), tr.ray.TMin)
		fw = &tr.objWalk.fw
		fw.stack = unsafe.Pointer(&tr.objWalk.stack[0])
	} else {
		fw.blasArrays = b.arrays()
		fw.limit, fw.tMin = min(len(tr.stack)-tr.sp, yieldRoom)-wideWidth, tr.ray.TMin
		fw.stack = unsafe.Pointer(&tr.stack[tr.sp])
	}
	fw.tMax, fw.cand = tr.tMax, 0
	fw.slab, fw.wt, fw.lh = &tr.object.slab, &tr.wt, &tr.leafHits
	fw.org, fw.dir, fw.box, fw.root = &tr.objOrg, &tr.objDir, &tr.object, nil
	if testRoot {
		fw.root = &b.nodes[0].bounds
	}
	if tr.first() {
		more = beginOccludeYieldAVX2(fw)
	} else {
		more = beginWalkYieldAVX2(fw)
	}
	return fw.began, fw.cur.near, more
}

// tookFirstWalk takes what beginWalk's walk returned, as descend takes
// walkLeaves' and walkFirst's: with more, a leaf with candidates for Next
// or an inner node for the Go walk, else nothing: the instance's walk is
// over.
func (tr *Traversal) tookFirstWalk(b *BLAS, more bool) {
	if tr.first() {
		w := &tr.objWalk
		w.sp = 0
		switch {
		case !more:
			tr.firstWalk = false // the walk is over; descend leaves the instance
		case isLeafRef(w.fw.cur.node):
			w.sp = w.fw.sp
			tr.reachLeafOfWalk(w.fw.cur.node, w.fw.cand)
		default:
			w.sp = w.fw.sp
			w.handOver(tr, w.fw.cur.node)
			tr.firstWalk = false
		}
		return
	}
	if !more {
		return // the walk is over; descend leaves the instance
	}
	tr.sp = tr.blasBase + tr.fw.sp
	if e := tr.fw.cur; isLeafRef(e.node) {
		tr.reachLeafOfWalk(e.node, tr.fw.cand)
	} else {
		tr.sp = tr.object.pushChildren(&b.wide[e.node], tr.ray.TMin, tr.tMax, tr.stack[:], tr.sp)
	}
}

// Results of setupRayAVX2.
const (
	setupRefused = 0 // a ray the call does not take: nothing is set up
	setupMissed  = 1 // the ray misses the root box given
	setupDone    = 2
)

// setupObjectRay sets the ray placed in b's object space (objOrg, objDir)
// up for the walks and, where testRoot, tests b's root box with it: in
// one AVX2 call where the AVX2 walks run and the ray is finite with a
// direction not zero (setupRayAVX2), else in Go. It returns the root's
// entry distance (tMin where not tested), or ok false where the ray
// misses the root, when the call sets up no more than the ray's box. A
// BLAS's own rays test its box so: the Go test after the call was a
// twentieth of the time of any hit rays over the 10k terrain.
func (tr *Traversal) setupObjectRay(b *BLAS, testRoot bool) (near float32, ok bool) {
	var root *AABB
	if testRoot {
		root = &b.nodes[0].bounds
	}
	if fusedAVX2 && !useSIMD {
		near, status := setupRayAVX2(&tr.objOrg, &tr.objDir, &tr.object, &tr.wt, root, tr.ray.TMin, tr.tMax)
		if status != setupRefused {
			return near, status == setupDone
		}
	}
	tr.object.setup(tr.objOrg, tr.objDir)
	tr.wt.setup(tr.objOrg, tr.objDir)
	if !testRoot {
		return tr.ray.TMin, true
	}
	return tr.object.hit(root, tr.ray.TMin, tr.tMax)
}

// yieldRoom caps the stack entries the yield walks (walkYieldAVX2,
// occludeYieldAVX2) may keep before they leave a node to Go; tests lower
// it to take the Go walk's side of that hand-over.
var yieldRoom = stackSize

// first reports RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH, under which the
// first hit committed ends the search (D3D12 raytracing spec, "Ray
// flags"): the Traversal then walks in the order of the occlusion walks
// (BLAS.firstHit), so that the plain queries' first hits are its own.
// Nothing shrinks tMax before that commit, so the walk keeps no entry
// distances (its entries carry tMin, which never exceeds tMax).
func (tr *Traversal) first() bool { return tr.flags&RayFlagAcceptFirstHitAndEndSearch != 0 }

// pushFirst pushes the children of n that r hits as firstHit's walks take
// them: the one occlusionPick takes on top, the others below it, to be
// popped in slot order.
func (tr *Traversal) pushFirst(r *rayBox, n *wideNode) {
	mask, take := r.occlusionPick(n, tr.ray.TMin, tr.tMax)
	if mask == 0 {
		return
	}
	for m := mask &^ (1 << take); m != 0; {
		var i int
		i, m = lastSlot(m)
		tr.push(n.ref[i&wideMask], tr.ray.TMin)
	}
	tr.push(n.ref[take&wideMask], tr.ray.TMin)
}

// Next advances to the next candidate that needs a decision and reports
// whether there is one. When it returns false the traversal is over and
// Committed holds the result.
func (tr *Traversal) Next() bool {
	if tr.atOnce && !tr.done {
		tr.answerAtOnce()
		return false
	}
	for !tr.done {
		for tr.leafCand != 0 {
			// The candidates one by one, where a branch on each slot
			// mispredicted.
			slot := tr.leafFirst + uint32(bits.TrailingZeros(tr.leafCand))
			tr.leafCand &= tr.leafCand - 1
			if tr.testPrimitive(slot) {
				return true
			}
			if tr.done {
				return false
			}
		}
		if !tr.descend() {
			tr.done = true
		}
	}
	return false
}

// descend walks the trees until it reaches a BLAS leaf (and sets the leaf
// range) or runs out of nodes. Stack entries are wide-node references
// (wideNode indices or leaf references, see wide.go).
func (tr *Traversal) descend() bool {
	for {
		if tr.firstWalk {
			ref, ok := tr.walkFirst()
			switch {
			case ok && isLeafRef(ref):
				tr.reachLeafOfWalk(ref, tr.objWalk.fw.cand)
				return true
			case ok:
				tr.objWalk.handOver(tr, ref)
				tr.firstWalk = false
			default:
				tr.firstWalk = false // the instance's walk is over
			}
			continue
		}
		if tr.blasBase >= 0 && tr.sp == tr.blasBase {
			tr.blasBase = -1 // leave the instance
			tr.inst, tr.blas = nil, nil
		}
		if tr.topFirst && tr.blasBase < 0 {
			ref, ok := tr.walkTopFirst()
			switch {
			case !ok:
				return false
			case isLeafRef(ref):
				tr.enterLeaf(ref)
				if tr.leafCand != 0 {
					return true // beginWalk's walk stopped at a leaf with candidates
				}
			default:
				tr.topWalk.handOver(tr, ref)
				tr.topFirst = false
			}
			continue
		}
		if tr.sp == 0 {
			return false
		}
		tr.sp--
		e := tr.stack[tr.sp]
		if e.near > tr.tMax {
			continue
		}
		if tr.blasBase >= 0 {
			if tr.yieldWalk {
				var ok bool
				if e, ok = tr.walkLeaves(e); !ok {
					continue // the instance's walk is over
				}
				if isLeafRef(e.node) {
					tr.reachLeafOfWalk(e.node, tr.fw.cand)
					return true
				}
			} else if !isLeafRef(e.node) && tr.nodesInAsm() {
				var ok bool
				if e, ok = tr.walkNodes(e); !ok {
					continue // the instance's walk is over
				}
			}
			if isLeafRef(e.node) {
				tr.reachLeaf(e.node)
				return true
			}
			if tr.first() {
				tr.pushFirst(&tr.object, &tr.blas.wide[e.node])
			} else {
				tr.sp = tr.object.pushChildren(&tr.blas.wide[e.node], tr.ray.TMin, tr.tMax, tr.stack[:], tr.sp)
			}
			continue
		}
		if !isLeafRef(e.node) && !tr.first() && tr.topInAsm() {
			var ok bool
			if e, ok = tr.walkTop(e); !ok {
				continue // the walk is over
			}
		}
		if !isLeafRef(e.node) {
			if tr.first() {
				tr.pushFirst(&tr.world, &tr.tlas.wide[e.node])
			} else {
				tr.sp = tr.world.pushChildren(&tr.tlas.wide[e.node], tr.ray.TMin, tr.tMax, tr.stack[:], tr.sp)
			}
			continue
		}
		tr.enterLeaf(e.node)
		if tr.leafCand != 0 {
			return true // beginWalk's walk stopped at a leaf with candidates
		}
	}
}

// enterLeaf enters the instance of the top level's leaf ref, unless the
// instance mask or the skip flags leave it out.
func (tr *Traversal) enterLeaf(ref uint32) {
	leaf, _ := leafRange(ref)
	s := &tr.tlas.slots[leaf]
	if s.mask&tr.mask == 0 || !tr.instanceMatchesSkips(s.blas) {
		return
	}
	tr.enter(s, false)
}

// walkTopFirst runs occludeAVX2, with no triangle test set up, over the
// top level (topWalk): it walks as pushFirst's order takes the nodes (as
// TLAS.Occluded's walk does) and returns at the next instance (a leaf) or
// at an inner node it leaves to Go (refWalk.handOver), or ok false when
// the walk is over. The top level's node steps in Go (pushFirst,
// occlusionPick) were a tenth of the time of any hit shadow rays through
// 10k instances.
func (tr *Traversal) walkTopFirst() (ref uint32, ok bool) {
	tr.topWalk.fw.slab = &tr.world.slab
	return tr.topWalk.next(false, tr.tMax)
}

// nodesInAsm reports whether descend takes the current instance's inner
// nodes in assembly (walkNodes): where the scalar walks run it
// (nodeWalkAsm, not the vector build, which leaves the slab constants
// unset), for rays whose
// object-space slab distances are finite, in the closest-hit order
// (first() walks in firstHit's order, which nodeWalk does not take).
func (tr *Traversal) nodesInAsm() bool {
	return nodeWalkAsm && !useSIMD && tr.object.finite && !tr.first()
}

// topInAsm reports whether the top level's nodes are walked in assembly
// (walkTop, or walkTopFirst with first()): where the AVX2 walks run, for
// world rays whose slab distances are finite.
func (tr *Traversal) topInAsm() bool {
	return fusedAVX2 && nodeWalkAsm && !useSIMD && tr.world.finite
}

// walkTop runs nodeWalkAVX2 over the top level's inner nodes from e, an
// inner node that passed descend's check, as walkNodes does over an
// instance's: every node visited and pushed as pushChildren would, down
// to the next instance (a leaf) or an inner node it leaves to Go, or ok
// false when the stack ran empty. The top level's node steps in Go were
// a fifth of the time of any hit rays through 10k instances: three rounds
// of embreecmp's raypipe-fasttrace-cut, the 10k instances' incoherent
// rays 0.93-1.00 -> 1.01-1.06 Mrays/s, primary rays 1.02x.
func (tr *Traversal) walkTop(e stackEntry) (next stackEntry, ok bool) {
	t := tr.tlas
	next, sp, ok := nodeWalkAVX2(unsafe.Pointer(unsafe.SliceData(t.wide)), len(t.wide), &tr.world.slab, tr.ray.TMin, tr.tMax, nil, &tr.stack[0], len(tr.stack)-wideWidth, e, tr.sp)
	if !ok {
		tr.sp = 0
		return e, false
	}
	tr.sp = sp
	return next, true
}

// reachLeaf sets the leaf ref of the current instance up for Next: its
// slots, and for triangles the whole-leaf test (leafScan).
func (tr *Traversal) reachLeaf(ref uint32) {
	tr.leafFirst, tr.leafEnd = leafRange(ref)
	tr.leafCand, tr.leafEdge = 1<<(tr.leafEnd-tr.leafFirst)-1, 1<<(tr.leafEnd-tr.leafFirst)-1
	if tr.blas.typ == GeometryTriangles && tr.object.finite {
		tr.leafCand, tr.leafEdge = tr.blas.leafScan(&tr.wt, tr.leafFirst, tr.leafEnd, tr.ray.TMin, tr.tMax, &tr.leafHits)
	}
}

// reachLeafOfWalk is reachLeaf for a leaf a yield walk stopped at: with
// the walk's leaf test where it left one (cand, the walk's fw.cand), every
// candidate then finishing from leafHits.
func (tr *Traversal) reachLeafOfWalk(ref uint32, cand uint) {
	if cand == 0 {
		tr.reachLeaf(ref) // a leaf the walk leaves to Go untested
		return
	}
	tr.leafFirst, tr.leafEnd = leafRange(ref)
	tr.leafCand, tr.leafEdge = cand, 0
}

// refWalk is a first-hit walk in assembly on a stack of references of its
// own (occludeAVX2's kind): an instance's (Traversal.objWalk) or the top
// level's (Traversal.topWalk).
type refWalk struct {
	fw    fusedWalk
	stack [stackSizeWide + wideWidth]uint32
	sp    int
}

// start sets the walk up over the tree of a for rays from tMin, its
// stack empty; the caller sets fw's ray before each next (slab, and for a
// walk that tests leaves wt and lh: pointers into the Traversal, set at
// every call so that a Traversal copied between calls walks its own).
func (w *refWalk) start(a blasArrays, tMin float32) {
	w.fw.blasArrays = a
	w.fw.limit, w.fw.tMin, w.fw.compress = min(len(w.stack), yieldRoom)-wideWidth, tMin, &compressSlots
	w.sp = 0
}

// fromRoot puts the tree's root on the walk's stack.
func (w *refWalk) fromRoot() { w.stack[0], w.sp = 0, 1 }

// next runs the walk from the reference on top of the stack, up to tMax:
// occludeYieldAVX2 where leaves, else occludeAVX2, which tests no leaf.
// It returns the next reference Go must take, a leaf (with candidates,
// where leaves: fw.cand, fw.lh) or an inner node it leaves to Go
// (handOver), or ok false when the walk is over.
func (w *refWalk) next(leaves bool, tMax float32) (ref uint32, ok bool) {
	if w.sp == 0 {
		return 0, false
	}
	w.sp--
	fw := &w.fw
	fw.stack, fw.cur.node, fw.sp, fw.tMax, fw.cand = unsafe.Pointer(&w.stack[0]), w.stack[w.sp], w.sp, tMax, 0
	var more bool
	if leaves {
		more = occludeYieldAVX2(fw)
	} else {
		more = occludeAVX2(fw)
	}
	if !more {
		w.sp = 0
		return 0, false
	}
	w.sp = fw.sp
	return fw.cur.node, true
}

// handOver hands the walk over to tr's Go loop at the inner node ref: its
// references go onto tr's stack, in order, with ref on top.
func (w *refWalk) handOver(tr *Traversal, ref uint32) {
	for _, r := range w.stack[:w.sp] {
		tr.push(r, tr.ray.TMin)
	}
	tr.push(ref, tr.ray.TMin)
	w.sp = 0
}

// walkFirst runs occludeYieldAVX2 over the current instance (objWalk): it
// walks as BLAS.firstHit's walks walk (pushFirst's order) and returns the
// next reference Go must take, a leaf with candidates or an inner node it
// leaves to Go (refWalk.handOver), or ok false when the instance's walk
// is over.
func (tr *Traversal) walkFirst() (ref uint32, ok bool) {
	// Set at every call, as walkLeaves sets its walk's.
	tr.objWalk.fw.slab, tr.objWalk.fw.wt, tr.objWalk.fw.lh = &tr.object.slab, &tr.wt, &tr.leafHits
	return tr.objWalk.next(true, tr.tMax)
}

// walkNodes runs the assembly node loop (nodeWalkAVX2 where the AVX2 walks
// run, which then walk triangles in walkLeaves, else nodeWalk) over the
// current instance's inner nodes from e, an inner node that passed
// descend's check, on the stack above blasBase: it visits and pushes
// every node as descend's own loop would (pushChildren's order;
// TestFastPathMatchesTraversal), and returns the next entry to take, a
// leaf or an inner node the loop leaves to Go (near the stack's end), or
// ok false when the instance's stack ran empty. One assembly call down to
// a leaf, where descend spent more time in pushChildren and pushSorted
// around each node test than in it.
func (tr *Traversal) walkNodes(e stackEntry) (next stackEntry, ok bool) {
	b, base := tr.blas, tr.blasBase
	wide, stack, limit, sp := unsafe.Pointer(unsafe.SliceData(b.wide)), &tr.stack[base], len(tr.stack)-wideWidth-base, tr.sp-base
	if fusedAVX2 {
		next, sp, ok = nodeWalkAVX2(wide, len(b.wide), &tr.object.slab, tr.ray.TMin, tr.tMax, b.leafLines(), stack, limit, e, sp)
	} else {
		next, sp, ok = nodeWalk(wide, len(b.wide), &tr.object.slab, tr.ray.TMin, tr.tMax, b.leafLines(), stack, limit, e, sp)
	}
	if !ok {
		tr.sp = base
		return e, false
	}
	tr.sp = base + sp
	return next, true
}

// walkLeaves runs walkYieldAVX2 over the current instance from e, an
// entry that passed descend's check, on the stack above blasBase: it
// walks nodes and tests leaves as walkNodes and leafScan would, and
// returns the next entry Go must take, a leaf with candidates (which
// descend tests again, to decide them slot by slot) or an inner node the
// walk leaves to Go, or ok false when the instance's stack ran empty. A
// ray reaches many leaves without a candidate for each one with one:
// those no longer return to Go.
func (tr *Traversal) walkLeaves(e stackEntry) (next stackEntry, ok bool) {
	fw, base := &tr.fw, tr.blasBase
	// Set at every call: a Traversal copied between calls walks its own.
	fw.slab, fw.wt, fw.stack, fw.lh = &tr.object.slab, &tr.wt, unsafe.Pointer(&tr.stack[base]), &tr.leafHits
	fw.cur, fw.sp, fw.tMax, fw.cand = e, tr.sp-base, tr.tMax, 0
	if !walkYieldAVX2(fw) {
		tr.sp = base
		return e, false
	}
	tr.sp = base + fw.sp
	return fw.cur, true
}

func (tr *Traversal) instanceMatchesSkips(b *BLAS) bool {
	if b.typ == GeometryTriangles {
		return tr.flags&RayFlagSkipTriangles == 0
	}
	return tr.flags&RayFlagSkipProceduralPrimitives == 0
}

// opaque applies the opacity rules: geometry flag, then instance
// FORCE_(NON_)OPAQUE, then ray FORCE_(NON_)OPAQUE.
func (tr *Traversal) opaque(g GeometryFlags) bool {
	return opaqueFor(g, tr.instFlags, tr.flags)
}

func opaqueFor(g GeometryFlags, f InstanceFlags, flags RayFlags) bool {
	op := g&GeometryOpaque != 0
	if f&InstanceForceOpaque != 0 {
		op = true
	} else if f&InstanceForceNonOpaque != 0 {
		op = false
	}
	if flags&RayFlagForceOpaque != 0 {
		op = true
	} else if flags&RayFlagForceNonOpaque != 0 {
		op = false
	}
	return op
}

// slotPrimitive returns the geometry and primitive index of slot, in the
// current leaf: from the leaf's primitive id row where the BLAS keeps leaf
// rows and has one geometry (the row is in the caches after the leaf's
// test, where primGeom and primIndex each cost a miss for incoherent
// rays), else from those arrays.
func (tr *Traversal) slotPrimitive(slot uint32) (g, p uint32) {
	b := tr.blas
	if b.rows == nil || len(b.geoms) != 1 {
		return b.primGeom[slot], b.primIndex[slot]
	}
	n := tr.leafEnd - tr.leafFirst
	return 0, math.Float32bits(b.rows[rowsPerSlot*tr.leafFirst+9*n+slot-tr.leafFirst]) ^ primRowBias
}

// testPrimitive tests one leaf slot. It commits opaque triangle hits and
// returns true when a candidate awaits a decision.
func (tr *Traversal) testPrimitive(slot uint32) bool {
	b := tr.blas
	g, p := tr.slotPrimitive(slot)
	op := tr.opaque(b.geoms[g].flags)
	if op && tr.flags&RayFlagCullOpaque != 0 || !op && tr.flags&RayFlagCullNonOpaque != 0 {
		return false
	}
	if b.typ == GeometryProceduralAABBs {
		near, ok := tr.object.hit(&b.boxes[slot], tr.ray.TMin, tr.tMax)
		if !ok {
			return false
		}
		tr.setCandidate(KindProcedural, slot, g, p, near, 0, 0, false, op)
		return true
	}
	var t, u, v float32
	var front, ok bool
	if k := int(slot - tr.leafFirst); tr.leafEdge&(1<<k) != 0 {
		t, u, v, front, ok = tr.wt.intersect(&b.tris[slot], tr.ray.TMin, tr.tMax)
	} else {
		t, u, v, front, ok = tr.leafHits.hit(k, tr.ray.TMin, tr.tMax)
	}
	if !ok {
		return false
	}
	if tr.frontCCW {
		front = !front
	}
	if front && tr.cullFrt || !front && tr.cullBack {
		return false
	}
	tr.setCandidate(KindTriangle, slot, g, p, t, u, v, front, op)
	if op {
		tr.Commit()
		return false
	}
	return true
}

func (tr *Traversal) setCandidate(kind CandidateKind, slot, g, p uint32, t, u, v float32, front, op bool) {
	c := &tr.cand
	c.Kind, c.T, c.U, c.V, c.FrontFace, c.Opaque = kind, t, u, v, front, op
	c.InstanceIndex, c.GeometryIndex, c.PrimitiveIndex = tr.instIdx, g, p
	c.ObjectRayOrigin, c.ObjectRayDirection = tr.objOrg, tr.objDir
	c.inst, c.slot = tr.inst, slot
}

// Candidate returns the candidate that Next stopped at. It stays valid
// until the next call to Next or Begin.
func (tr *Traversal) Candidate() *Hit { return &tr.cand }

// Committed returns the committed hit (Kind is KindNone when nothing was
// committed).
func (tr *Traversal) Committed() *Hit { return &tr.committed }

// TMax returns the current end of the ray interval: the committed hit's t,
// or the ray's TMax when nothing is committed (RayTCurrent()).
func (tr *Traversal) TMax() float32 { return tr.tMax }

// Ray returns the world-space ray being traced.
func (tr *Traversal) Ray() Ray { return tr.ray }

// Flags returns the ray flags of the traversal.
func (tr *Traversal) Flags() RayFlags { return tr.flags }

// Done reports whether the traversal has ended.
func (tr *Traversal) Done() bool { return tr.done }

// Commit commits the current candidate at its own t (a triangle, or a
// procedural primitive whose t was set by CommitProcedural). With
// RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH the search ends.
func (tr *Traversal) Commit() {
	tr.committed = tr.cand
	tr.tMax = tr.cand.T
	if tr.flags&RayFlagAcceptFirstHitAndEndSearch != 0 {
		tr.done = true
	}
}

// CommitProcedural commits the current procedural candidate at t. The
// caller checks t against [TMin, TMax] first (ReportHit's rule).
func (tr *Traversal) CommitProcedural(t float32) {
	tr.cand.T = t
	tr.Commit()
}

// EndSearch stops the traversal; the committed hit stays
// (AcceptHitAndEndSearch, RayQuery.Abort).
func (tr *Traversal) EndSearch() { tr.done = true }
