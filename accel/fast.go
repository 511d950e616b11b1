package accel

import (
	"math/bits"
	"unsafe"

	"github.com/raypipe/raypipe/vec"
)

// The fast path of the plain queries (Intersect, Occluded): when no ray
// flag can reject a triangle candidate, every triangle hit is committed, so
// the candidate state machine reduces to a closest-hit (or first-hit) walk.
// It walks the same wide nodes in the same order with the same tests as
// Traversal, so both give identical hits (TestFastPathMatchesTraversal).

// fastUnsupported are the ray flags that make the plain queries take the
// Traversal path: culling, and SKIP_TRIANGLES.
const fastUnsupported = RayFlagCullBackFacingTriangles | RayFlagCullFrontFacingTriangles |
	RayFlagCullOpaque | RayFlagCullNonOpaque | RayFlagSkipTriangles

// fastHit is the committed triangle of a fast walk: its slot and its
// primitive id (BLAS.primID), which the assembly walks read from the
// leaf's rows (leafRows) and the Go walks from primIndex and primGeom when
// they commit, so that the hit is built without another cache miss.
type fastHit struct {
	t, u, v float32
	slot    uint32
	front   bool
	id      uint32
}

// objectRay is a ray in one instance's object space. Its triangle test
// constants are set up on the first leaf (tri): many rays reach none.
type objectRay struct {
	org, dir vec.Vec3
	rb       rayBox
	wt       watertightRay // valid when wtReady
	wtReady  bool
}

// tri returns the ray's triangle test, setting it up on first use.
func (o *objectRay) tri() *watertightRay {
	if !o.wtReady {
		o.setupTri()
	}
	return &o.wt
}

//go:noinline
func (o *objectRay) setupTri() {
	o.wt.setup(o.org, o.dir)
	o.wtReady = true
}

func (o *objectRay) setup(in *instance, r *Ray) {
	o.place(in, r)
	o.setupPlaced()
}

// setupSelf is setup for a BLAS's own identity instance, without the
// matrix products.
func (o *objectRay) setupSelf(r *Ray) {
	o.placeSelf(r)
	o.setupPlaced()
}

// place sets o's origin and direction to r's in the object space of in,
// leaving the tests to setupPlaced.
func (o *objectRay) place(in *instance, r *Ray) {
	o.org, o.dir = in.place(r)
}

// place returns r's origin and direction in the object space of in.
func (in *instance) place(r *Ray) (org, dir vec.Vec3) {
	m := &in.worldToObject
	return m.TransformPoint(r.Origin), m.TransformVector(r.Direction)
}

// querySole runs the query of mode (rayClosest, rayFirst, rayOcclude)
// for TLAS.Intersect and Occluded on their sole instance in (soleQuery):
// in's BLAS walked alone, in assembly, on r placed in its object space.
// It returns rayGoMust where the top-level walk must answer instead: a
// ray that fails the queries' checks, a placed ray that is not finite, or
// one the assembly leaves to Go. An identity instance's rays go to the
// BLAS's own entry, which checks and places them itself (rayAVX2): its
// placing can differ from the matrix's only in the sign of a zero origin
// component (the inverse of the identity has -0 translations), which
// changes no slab or triangle test's outcome (zeros compare equal, and an
// edge function of either zero goes to the exact path).
func (in *instance) querySole(r *Ray, mode int, h *fastHit) int {
	if in.identity {
		return in.blas.rayAVX2(r, mode, h)
	}
	if r.TMin > r.TMax || !rayUsable(r) {
		return rayGoMust
	}
	org, dir := in.place(r)
	if !org.IsFinite() || !dir.IsFinite() {
		return rayGoMust
	}
	return in.blas.queryAVX2(&org, &dir, r.TMin, r.TMax, mode, h)
}

// intersectSole is querySole for TLAS.Intersect, the hit stored in out
// with the ray as the matrix places it; done is false where the top-level
// walk must answer.
func (in *instance) intersectSole(r *Ray, flags RayFlags, out *Hit) (ok, done bool) {
	var h fastHit
	switch in.querySole(r, modeFor(flags&RayFlagAcceptFirstHitAndEndSearch != 0), &h) {
	case rayMiss:
		return false, true
	case rayHit:
		org, dir := in.place(r)
		setHit(out, in, 0, &org, &dir, &h, flags)
		return true, true
	}
	return false, false
}

// occludedSole is querySole for TLAS.Occluded.
func (in *instance) occludedSole(r *Ray) (occluded, done bool) {
	var h fastHit
	status := in.querySole(r, rayOcclude, &h)
	return status == rayHit, status != rayGoMust
}

// placeSelf is place for a BLAS's own identity instance.
func (o *objectRay) placeSelf(r *Ray) {
	o.org = identityPoint(r.Origin)
	o.dir = identityVector(r.Direction)
}

// setupPlaced sets the slab test up for the placed ray and leaves the
// triangle test to its first leaf.
func (o *objectRay) setupPlaced() {
	o.rb.setup(o.org, o.dir)
	o.wtReady = false
}

// identityPoint returns vec.Identity3x4.TransformPoint(p) bit for bit for
// finite p (rayUsable rays): each component is x*1 + y*0 + z*0 + 0, which
// is x, except that a zero comes out +0 (the last term is +0).
func identityPoint(p vec.Vec3) vec.Vec3 { return vec.V3(p.X+0, p.Y+0, p.Z+0) }

// identityVector returns vec.Identity3x4.TransformVector(d) bit for bit for
// finite d (rayUsable rays): the same sums without the products by one,
// which are exact. A nonzero component is kept; a zero one comes out -0
// only when the two zeros added to it (the other components times zero)
// are -0 too.
func identityVector(d vec.Vec3) vec.Vec3 {
	return vec.V3(d.X+d.Y*0+d.Z*0, d.X*0+d.Y+d.Z*0, d.X*0+d.Y*0+d.Z)
}

func b2u(b bool) uint {
	var u uint
	if b {
		u = 1
	}
	return u
}

// walk traces the BLAS for o over (tMin, *tMax), shrinking *tMax to each
// hit it commits into h. With first it stops at the first hit, which it
// finds as the occlusion walk finds one (firstHit).
func (b *BLAS) walk(o *objectRay, tMin float32, tMax *float32, first bool, h *fastHit) bool {
	if first {
		if !b.firstHit(o, tMin, *tMax, h) {
			return false
		}
		*tMax = h.t
		return true
	}
	near, ok := o.rb.hit(&b.nodes[0].bounds, tMin, *tMax)
	if !ok {
		return false
	}
	if o.rb.finite {
		return b.walkFinite(o, tMin, tMax, h, near)
	}
	var stack [stackSizeWide]stackEntry
	stack[0] = stackEntry{0, near}
	sp := 1
	found := false
	wide, tris := b.wide, b.tris
	for sp > 0 {
		sp--
		e := stack[sp]
		if e.near > *tMax {
			continue
		}
		if !isLeafRef(e.node) {
			sp = o.rb.pushChildren(&wide[e.node], tMin, *tMax, stack[:], sp)
			continue
		}
		lo, hi := leafRange(e.node)
		for s := lo; s < hi; s++ {
			t, u, v, front, ok := o.tri().intersect(&tris[s], tMin, *tMax)
			if !ok {
				continue
			}
			*tMax = t
			*h = fastHit{t, u, v, s, front, b.primID(s)}
			found = true
		}
	}
	return found
}

// walkFinite is walk for rays whose slab distances cannot be NaN
// (rayBox.finite), with the slab test of hitWideFinite (slabTest on amd64)
// and the ordering of pushChildren written into the loop, and leaves tested
// by leafScan. It visits the same nodes in the same order: the nearest
// hit child, which pushChildren would push last and walk would pop at once,
// is continued with directly, under the same e.near > tMax check.
//
// It starts on a small stack, which Go zeroes at every call for less than
// the full one; a walk that outgrows it goes on in walkFiniteDeep.
func (b *BLAS) walkFinite(o *objectRay, tMin float32, tMax *float32, h *fastHit, rootNear float32) bool {
	if rootNear > *tMax {
		return false
	}
	var stack [smallStack]stackEntry
	st := walkState{cur: stackEntry{0, rootNear}}
	if b.walkFiniteOn(o, tMin, tMax, h, &st, stack[:]) {
		return st.found
	}
	return b.walkFiniteDeep(o, tMin, tMax, h, &st, stack[:st.sp])
}

// smallStack is the stack of walkFinite before it needs the full one: 7 per
// wide level of a tree 9 wide levels deep (the 1M-triangle test scenes have 7;
// a deeper walk goes on in walkFiniteDeep).
const smallStack = 64

// walkState is where walkFiniteOn stopped: the node it was about to test,
// the stack height and whether it has committed a hit.
type walkState struct {
	cur   stackEntry
	sp    int
	found bool
}

//go:noinline
func (b *BLAS) walkFiniteDeep(o *objectRay, tMin float32, tMax *float32, h *fastHit, st *walkState, small []stackEntry) bool {
	var stack [stackSizeWide]stackEntry
	copy(stack[:], small)
	b.walkFiniteOn(o, tMin, tMax, h, st, stack[:])
	return st.found
}

// walkFiniteOn runs walkFinite from st on stack (holding st.sp entries);
// st.cur has passed the e.near > tMax check. On amd64 its inner nodes are
// walked in assembly (nodeWalk, the same steps), so that the loop only
// sees leaves.
// It returns false, with st and *tMax saved, when an inner node could
// overflow stack.
func (b *BLAS) walkFiniteOn(o *objectRay, tMin float32, tMax *float32, h *fastHit, st *walkState, stack []stackEntry) bool {
	if useSIMD {
		return b.walkFiniteOnSIMD(o, tMin, tMax, h, st, stack)
	}
	sp := st.sp
	found := st.found
	wide, tris := b.wide, b.tris
	leaves := b.leafLines()
	r := &o.rb
	ox, oy, oz := r.org.X, r.org.Y, r.org.Z
	ix, iy, iz := r.inv.X, r.inv.Y, r.inv.Z
	fx, fy, fz := r.invFar.X, r.invFar.Y, r.invFar.Z
	// Byte offsets of the near and far rows of each axis in wideNode.b.
	const row = unsafe.Sizeof(wideRow{})
	nxo, fxo := uintptr(r.nearX)*row, uintptr(r.nearX^1)*row
	nyo, fyo := uintptr(r.nearY)*row, uintptr(r.nearY^1)*row
	nzo, fzo := uintptr(r.nearZ)*row, uintptr(r.nearZ^1)*row
	negMin := -tMin
	var lh leafHits
	wideBase, stackBase := unsafe.Pointer(unsafe.SliceData(wide)), unsafe.SliceData(stack)
	tm := *tMax
	cur := st.cur // passed the e.near > tMax check
	fused := fusedAVX2 && b.rows != nil
	var fw fusedWalk
	if fused {
		fw = b.fusedWalk(r, tMin, unsafe.Pointer(stackBase), len(stack)-wideWidth)
		fw.h = h
	}
	for {
		if fused {
			if o.wtReady {
				fw.wt = &o.wt
			}
			fw.cur, fw.sp, fw.tMax = cur, sp, tm
			more := walkAVX2(&fw)
			cur, sp, tm = fw.cur, fw.sp, fw.tMax
			found = found || fw.found
			if !more {
				*tMax = tm
				st.found = found
				return true
			}
			if fw.wt == nil && isLeafRef(cur.node) {
				// The first leaf: set the triangle test up and go on
				// in the assembly.
				fw.wt = o.tri()
				continue
			}
		} else if nodeWalkAsm && !isLeafRef(cur.node) {
			var more bool
			cur, sp, more = nodeWalk(wideBase, len(wide), &r.slab, tMin, tm, leaves, stackBase, len(stack)-wideWidth, cur, sp)
			if !more {
				*tMax = tm
				st.found = found
				return true
			}
		}
		if !isLeafRef(cur.node) {
			if sp > len(stack)-wideWidth {
				st.cur, st.sp, st.found = cur, sp, found
				*tMax = tm
				return false
			}
			n := &wide[cur.node]
			p := unsafe.Pointer(&n.b)
			lx, hx := (*wideRow)(unsafe.Add(p, nxo)), (*wideRow)(unsafe.Add(p, fxo))
			ly, hy := (*wideRow)(unsafe.Add(p, nyo)), (*wideRow)(unsafe.Add(p, fyo))
			lz, hz := (*wideRow)(unsafe.Add(p, nzo)), (*wideRow)(unsafe.Add(p, fzo))
			var near wideRow
			var mask uint
			if slabAsm {
				mask = slabTest(n, &r.slab, tMin, tm, &near)
			} else {
				far := tm * robustScale
				for i := 0; i < int(n.n&15) && i < wideWidth; i++ {
					nr := -min(min(negMin, (ox-lx[i])*ix), min((oy-ly[i])*iy, (oz-lz[i])*iz))
					fr := min(min(far, (hx[i]-ox)*fx), min((hy[i]-oy)*fy, (hz[i]-oz)*fz))
					near[i] = nr
					mask |= b2u(nr <= fr) << i
				}
			}
			if mask != 0 {
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
			cand, edge := b.leafScan(o.tri(), lo, hi, tMin, tm, &lh)
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
				tm = t
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

// leafScan runs a whole-leaf test on the triangles of slots [lo, hi)
// over (tMin, tMax) for the ray of w: the candidates that may hit and
// among them the edge cases, which intersect decides, as leafCandidates
// returns them; the others' answers are in lh (leafHits.hit). It takes the
// vector test where the vector walks run, else the assembly one (leafAsm);
// without either (or rows) every triangle is an edge case, so that the
// callers run intersect on each.
func (b *BLAS) leafScan(w *watertightRay, lo, hi uint32, tMin, tMax float32, lh *leafHits) (cand, edge uint) {
	if b.rows != nil {
		if useSIMD {
			return w.leafCandidates(b.rows, lo, hi-lo, tMin, tMax, lh)
		}
		if leafAsm {
			if fusedAVX2 {
				return leafTestAVX2(w, unsafe.Pointer(&b.rows[rowsPerSlot*lo]), int(hi-lo), tMin, tMax, lh)
			}
			return leafTest(w, unsafe.Pointer(&b.rows[rowsPerSlot*lo]), int(hi-lo), tMin, tMax, lh)
		}
	}
	all := uint(1)<<(hi-lo) - 1
	return all, all
}

// walkPlaced is walk for the ray placed at org, dir in b's object space:
// the whole query in one rayWalkAVX2 call where it can, else set up and
// walked in Go (walkPlacedGo). It keeps no objectRay of its own, which
// Go would zero at every call.
func (b *BLAS) walkPlaced(org, dir *vec.Vec3, tMin float32, tMax *float32, first bool, h *fastHit) bool {
	if b.queriesInAsm() {
		switch b.queryAVX2(org, dir, tMin, *tMax, modeFor(first), h) {
		case rayMiss:
			return false
		case rayHit:
			*tMax = h.t
			return true
		}
	}
	return b.walkPlacedGo(org, dir, tMin, tMax, first, h)
}

// walkPlacedGo is walkPlaced's walk in Go, out of line.
//
//go:noinline
func (b *BLAS) walkPlacedGo(org, dir *vec.Vec3, tMin float32, tMax *float32, first bool, h *fastHit) bool {
	var o objectRay
	o.org, o.dir = *org, *dir
	o.setupPlaced()
	return b.walk(&o, tMin, tMax, first, h)
}

// occludesPlaced is occludes for the ray placed at org, dir in b's object
// space, as walkPlaced.
func (b *BLAS) occludesPlaced(org, dir *vec.Vec3, tMin, tMax float32) bool {
	if b.queriesInAsm() {
		var h fastHit
		if s := b.queryAVX2(org, dir, tMin, tMax, rayOcclude, &h); s != rayGoMust {
			return s == rayHit
		}
	}
	return b.occludesPlacedGo(org, dir, tMin, tMax)
}

// occludesPlacedGo is occludesPlaced's walk in Go, out of line.
//
//go:noinline
func (b *BLAS) occludesPlacedGo(org, dir *vec.Vec3, tMin, tMax float32) bool {
	var o objectRay
	o.org, o.dir = *org, *dir
	o.setupPlaced()
	return b.occludes(&o, tMin, tMax)
}

// Modes of queryAVX2.
const (
	rayClosest = 0
	rayFirst   = 1
	rayOcclude = 2
)

// queryAVX2 runs rayWalkAVX2 (modes rayClosest, rayFirst) or
// rayOccludeAVX2 (rayOcclude) on b for the ray placed at org, dir over
// (tMin, tMax), checked as Intersect checks it, and returns its result:
// rayGoMust when Go must walk the ray instead.
func (b *BLAS) queryAVX2(org, dir *vec.Vec3, tMin, tMax float32, mode int, h *fastHit) int {
	// b's blasArrays field by field: a struct is built in memory and
	// copied with 16-byte loads, which stall on the stores just made (7% of
	// a 100k-terrain query).
	wide, rows := b.asmArrays()
	if mode != rayClosest {
		return rayOccludeAVX2(wide, len(b.wide), rows, len(b.rows), org, dir, tMin, tMax, mode == rayFirst, h)
	}
	return rayWalkAVX2(wide, len(b.wide), rows, len(b.rows), org, dir, tMin, tMax, h)
}

// asmArrays returns the first elements of the arrays the one-call
// queries read, the node and leaf-row arrays.
func (b *BLAS) asmArrays() (wide, rows unsafe.Pointer) {
	return unsafe.Pointer(unsafe.SliceData(b.wide)), unsafe.Pointer(unsafe.SliceData(b.rows))
}

// rayAVX2 runs rayIntersectAVX2 (modes rayClosest, rayFirst) or
// rayOccludedAVX2 (rayOcclude) on b for the Ray at r, which they check
// and place themselves, and returns their result (rayGoMust for a ray
// that fails the checks too). The arrays go field by field, as in
// queryAVX2.
func (b *BLAS) rayAVX2(r *Ray, mode int, h *fastHit) int {
	wide, rows := b.asmArrays()
	if mode != rayClosest {
		return rayOccludedAVX2(wide, len(b.wide), rows, len(b.rows), r, mode == rayFirst, h)
	}
	return rayIntersectAVX2(wide, len(b.wide), rows, len(b.rows), r, h)
}

// queriesInAsm reports whether queries on b run whole in queryAVX2: in the
// scalar build (the vector build keeps its own walks) where the fused
// AVX2 walks run and b has leaf rows.
func (b *BLAS) queriesInAsm() bool { return fusedAVX2 && !useSIMD && b.rows != nil }

// modeFor is queryAVX2's mode for a closest-hit walk with first.
func modeFor(first bool) int {
	if first {
		return rayFirst
	}
	return rayClosest
}

// traceDeep is TLAS.Intersect's fallback for top-level trees deeper than its
// small stack: the same query through a Traversal.
//
//go:noinline
func (t *TLAS) traceDeep(r Ray, flags RayFlags, mask uint8) (Hit, bool) {
	var tr Traversal
	tr.begin(t, r, flags, uint32(mask))
	return tr.closest()
}

// occludes reports whether o hits a triangle of b in (tMin, tMax). A
// yes/no answer does not depend on the order in which nodes are visited,
// so children are not sorted by distance, and the stack holds no
// distances (tMax never shrinks before the answer). Finite rays take the
// child whose crossing reaches farthest first (reachChild); the rest, whose slab
// distances may be NaN, take children in slot order.
func (b *BLAS) occludes(o *objectRay, tMin, tMax float32) bool {
	return b.firstHit(o, tMin, tMax, nil)
}

// firstHit is occludes that, given h, commits the hit it stops at there:
// the first candidate, in slot order, of the first leaf with one. It is
// the walk of RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH, which accepts
// whichever hit traversal finds first (D3D12 raytracing spec, "Ray
// flags"): in the occlusion walk's order, which reaches an occluder
// sooner than the closest-hit walk's nearest-first order (the 1k-1M
// scenes' shadow rays 1.12-1.27x through Occluded before the two were one).
func (b *BLAS) firstHit(o *objectRay, tMin, tMax float32, h *fastHit) bool {
	if _, ok := o.rb.hit(&b.nodes[0].bounds, tMin, tMax); !ok {
		return false
	}
	if o.rb.finite {
		return b.occludesFinite(o, tMin, tMax, h)
	}
	var stack [stackSizeWide]uint32
	sp := 0
	cur := uint32(0)
	wide, tris := b.wide, b.tris
	for {
		if !isLeafRef(cur) {
			var near wideRow
			n := &wide[cur]
			if mask := o.rb.hitWide(n, tMin, tMax, &near); mask != 0 {
				for m := mask & (mask - 1); m != 0; {
					var i int
					i, m = lastSlot(m)
					stack[sp] = n.ref[i&wideMask]
					sp++
				}
				cur = n.ref[bits.TrailingZeros(mask)&wideMask]
				continue
			}
		} else {
			lo, hi := leafRange(cur)
			for s := lo; s < hi; s++ {
				if t, u, v, front, ok := o.tri().intersect(&tris[s], tMin, tMax); ok {
					if h != nil {
						*h = fastHit{t, u, v, s, front, b.primID(s)}
					}
					return true
				}
			}
		}
		if sp == 0 {
			return false
		}
		sp--
		cur = stack[sp]
	}
}

// occludesFinite is occludes for rays whose slab distances cannot be NaN,
// with the slab test of hitWideFinite (slabTest on amd64) written into the
// loop.
//
// It walks on a small stack, which Go zeroes at every call for less than
// the full one; a walk that would outgrow it starts over on the full one
// (occludesFiniteDeep), which takes the same steps from the root: the same
// answer, and the same hit committed.
func (b *BLAS) occludesFinite(o *objectRay, tMin, tMax float32, h *fastHit) bool {
	var stack [smallStack]uint32
	if hit, done := b.occludesFiniteOn(o, tMin, tMax, stack[:], h); done {
		return hit
	}
	return b.occludesFiniteDeep(o, tMin, tMax, h)
}

//go:noinline
func (b *BLAS) occludesFiniteDeep(o *objectRay, tMin, tMax float32, h *fastHit) bool {
	var stack [stackSizeWide]uint32
	hit, _ := b.occludesFiniteOn(o, tMin, tMax, stack[:], h)
	return hit
}

// occludesFiniteOn runs occludesFinite's walk on stack, committing the
// hit it stops at into h unless h is nil (firstHit). It reports
// done false, without an answer, when an inner node could overflow stack.
// On amd64 its inner nodes are walked in assembly (occludeWalk, the same
// steps), so that the loop only sees leaves.
func (b *BLAS) occludesFiniteOn(o *objectRay, tMin, tMax float32, stack []uint32, h *fastHit) (hit, done bool) {
	if useSIMD {
		return b.occludesFiniteOnSIMD(o, tMin, tMax, stack, h)
	}
	sp := 0
	cur := uint32(0)
	wide := b.wide
	leaves := b.leafLines()
	r := &o.rb
	ox, oy, oz := r.org.X, r.org.Y, r.org.Z
	ix, iy, iz := r.inv.X, r.inv.Y, r.inv.Z
	fx, fy, fz := r.invFar.X, r.invFar.Y, r.invFar.Z
	const row = unsafe.Sizeof(wideRow{})
	nxo, fxo := uintptr(r.nearX)*row, uintptr(r.nearX^1)*row
	nyo, fyo := uintptr(r.nearY)*row, uintptr(r.nearY^1)*row
	nzo, fzo := uintptr(r.nearZ)*row, uintptr(r.nearZ^1)*row
	negMin := -tMin
	var near, far wideRow
	wideBase, stackBase := unsafe.Pointer(unsafe.SliceData(wide)), unsafe.SliceData(stack)
	fused := fusedAVX2 && b.rows != nil
	var fw fusedWalk
	if fused {
		// occludeAVX2 stores all eight references of a node at once.
		fw = b.fusedWalk(r, tMin, unsafe.Pointer(stackBase), len(stack)-wideWidth)
		fw.tMax = tMax
		fw.h, fw.first = h, h != nil
	}
	for {
		if fused {
			if o.wtReady {
				fw.wt = &o.wt
			}
			fw.cur.node, fw.sp = cur, sp
			if !occludeAVX2(&fw) {
				return fw.found, true
			}
			cur, sp = fw.cur.node, fw.sp
			if fw.wt == nil && isLeafRef(cur) {
				fw.wt = o.tri()
				continue
			}
		} else if nodeWalkAsm && !isLeafRef(cur) {
			var more bool
			cur, sp, more = occludeWalk(wideBase, len(wide), &r.slab, tMin, tMax, leaves, stackBase, len(stack)-(wideWidth-1), cur, sp)
			if !more {
				return false, true
			}
		}
		if !isLeafRef(cur) {
			if sp > len(stack)-(wideWidth-1) {
				return false, false
			}
			n := &wide[cur]
			p := unsafe.Pointer(&n.b)
			lx, hx := (*wideRow)(unsafe.Add(p, nxo)), (*wideRow)(unsafe.Add(p, fxo))
			ly, hy := (*wideRow)(unsafe.Add(p, nyo)), (*wideRow)(unsafe.Add(p, fyo))
			lz, hz := (*wideRow)(unsafe.Add(p, nzo)), (*wideRow)(unsafe.Add(p, fzo))
			var mask uint
			if slabAsm {
				mask = slabTestSpans(n, &r.slab, tMin, tMax, &near, &far)
			} else {
				// hitWideSpansGo, written out: a call per node made
				// the 386 walk's 100k shadow rays 0.87-0.91x.
				farMax := tMax * robustScale
				for i := 0; i < int(n.n&15) && i < wideWidth; i++ {
					nr := -min(min(negMin, (ox-lx[i])*ix), min((oy-ly[i])*iy, (oz-lz[i])*iz))
					fr := min(min(farMax, (hx[i]-ox)*fx), min((hy[i]-oy)*fy, (hz[i]-oz)*fz))
					near[i], far[i] = nr, fr
					mask |= b2u(nr <= fr) << i
				}
			}
			if mask != 0 {
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
			cand, edge := b.leafScan(o.tri(), lo, hi, tMin, tMax, &lh)
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

// leafOccludes reports whether a triangle of a leaf test's candidates
// (cand, from the leaf's first slot lo; edge those that intersect
// decides, lh the others' answers) hits over (tMin, tMax): the leaf step
// of the occlusion walks. Given h, it commits the hit it stops at there,
// the first in slot order (firstCandidate); else any hit answers.
func leafOccludes(b *BLAS, w *watertightRay, lo uint32, cand, edge uint, lh *leafHits, tMin, tMax float32, h *fastHit) bool {
	if h != nil {
		return firstCandidate(b, w, lo, cand, edge, lh, tMin, tMax, h)
	}
	if cand&^edge != 0 {
		return true // a triangle off the edge cases hits over (tMin, tMax)
	}
	for m := edge; m != 0; m &= m - 1 {
		if _, _, _, _, ok := w.intersect(&b.tris[lo+uint32(bits.TrailingZeros(m))], tMin, tMax); ok {
			return true
		}
	}
	return false
}

// firstCandidate commits into h the first of a leaf test's candidates
// (cand, from the leaf's first slot lo; edge those that intersect
// decides, lh the others' answers) that hits over (tMin, tMax), in slot
// order, and reports whether there was one: the leaf step of firstHit's
// walks.
func firstCandidate(b *BLAS, w *watertightRay, lo uint32, cand, edge uint, lh *leafHits, tMin, tMax float32, h *fastHit) bool {
	for m := cand; m != 0; m &= m - 1 {
		k := bits.TrailingZeros(m)
		if t, u, v, front, ok := lh.candidate(w, b.tris, lo, k, edge, tMin, tMax); ok {
			*h = fastHit{t, u, v, lo + uint32(k), front, b.primID(lo + uint32(k))}
			return true
		}
	}
	return false
}

// occludedGo is BLAS.Occluded's fast path in Go, for the rays the
// assembly does not take: those it refuses (rayGoMust), and all where it
// does not run. It checks r as the assembly does, and is out of line so
// that the assembly path does not zero an objectRay.
//
//go:noinline
func (b *BLAS) occludedGo(r *Ray) bool {
	if r.TMin > r.TMax || b.nodes[0].bounds.IsEmpty() || !rayUsable(r) {
		return false
	}
	var o objectRay
	o.setupSelf(r)
	return b.occludes(&o, r.TMin, r.TMax)
}

// firstHit answers TLAS.Occluded's fast path, in one assembly call where
// it can, else on a small stack (see occludesFinite), starting over on the
// full one if a walk would outgrow it; given f, it commits the hit it
// stops at there: TLAS.Intersect's walk with
// RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH (BLAS.firstHit's, over the
// instances).
func (t *TLAS) firstHit(r *Ray, mask uint8, f *firstFound) bool {
	if t.walkInAsm() {
		// The whole walk in one assembly call, where it can.
		var th topHit
		wide, nwide, slots, nslots := t.topArgs()
		switch rayTLASOccludeAVX2(wide, nwide, slots, nslots, r, uint32(mask), f != nil, &th) {
		case rayMiss:
			return false
		case rayHit:
			if f != nil {
				f.idx, f.org, f.dir, f.h = t.slots[th.slot].idx, th.org, th.dir, th.h
			}
			return true
		}
	}
	var stack [smallStack]uint32
	if hit, done := t.occludedOn(r, mask, stack[:], f); done {
		return hit
	}
	return t.occludedDeep(r, mask, f)
}

// firstFound is the hit a TLAS's firstHit commits: the instance and its
// placed ray, and the triangle's.
type firstFound struct {
	idx      uint32
	org, dir vec.Vec3
	h        fastHit
}

//go:noinline
func (t *TLAS) occludedDeep(r *Ray, mask uint8, f *firstFound) bool {
	var stack [stackSizeWide]uint32
	hit, _ := t.occludedOn(r, mask, stack[:], f)
	return hit
}

// occludedOn runs firstHit's walk on stack. It reports done false,
// without an answer, when an inner node could overflow stack.
func (t *TLAS) occludedOn(r *Ray, mask uint8, stack []uint32, f *firstFound) (hit, done bool) {
	if r.TMin > r.TMax || t.nodes[0].bounds.IsEmpty() || !rayUsable(r) {
		return false, true
	}
	var world rayBox
	world.setup(r.Origin, r.Direction)
	if _, ok := world.hit(&t.nodes[0].bounds, r.TMin, r.TMax); !ok {
		return false, true
	}
	if world.finite && t.topAVX2() {
		return t.occludedTopAVX2(r, &world, mask, stack, f)
	}
	sp := 0
	cur := uint32(0)
	for {
		if !isLeafRef(cur) {
			if sp > len(stack)-(wideWidth-1) {
				return false, false
			}
			n := &t.wide[cur]
			if mw, take := world.occlusionPick(n, r.TMin, r.TMax); mw != 0 {
				for m := mw &^ (1 << take); m != 0; {
					var i int
					i, m = lastSlot(m)
					stack[sp] = n.ref[i&wideMask]
					sp++
				}
				cur = n.ref[take]
				continue
			}
		} else if t.occludesIn(cur, r, mask, f) {
			return true, true
		}
		if sp == 0 {
			return false, true
		}
		sp--
		cur = stack[sp]
	}
}

// occludedTopAVX2 is occludedOn's walk for a finite world ray where the
// AVX2 walks run: occludeAVX2 takes the top level's nodes (the child
// whose crossing reaches farthest first, the others pushed last slot first, as
// occludedOn takes them) and hands every leaf, an instance, back to the
// loop here, which enters it and pops as occludedOn does.
func (t *TLAS) occludedTopAVX2(r *Ray, world *rayBox, mask uint8, stack []uint32, f *firstFound) (hit, done bool) {
	fw := fusedWalk{
		blasArrays: blasArrays{wide: unsafe.Pointer(unsafe.SliceData(t.wide)), nwide: len(t.wide)},
		slab:       &world.slab, stack: unsafe.Pointer(unsafe.SliceData(stack)), limit: len(stack) - wideWidth,
		tMin: r.TMin, tMax: r.TMax, compress: &compressSlots,
	}
	cur, sp := uint32(0), 0
	for {
		if !isLeafRef(cur) {
			fw.cur, fw.sp = stackEntry{node: cur}, sp
			if !occludeAVX2(&fw) {
				return false, true
			}
			cur, sp = fw.cur.node, fw.sp
			if !isLeafRef(cur) {
				return false, false // a node past the stack's limit
			}
		}
		if t.occludesIn(cur, r, mask, f) {
			return true, true
		}
		if sp == 0 {
			return false, true
		}
		sp--
		cur = stack[sp]
	}
}

// occludesIn reports whether a triangle of the instance of the top
// level's leaf hits r (mask and triangles permitting), the occlusion
// walks' step at an instance: with f, the first hit of its first-hit
// walk, committed into f.
func (t *TLAS) occludesIn(leaf uint32, r *Ray, mask uint8, f *firstFound) bool {
	slot, _ := leafRange(leaf)
	idx := t.order[slot]
	in := &t.instances[idx]
	if in.mask&mask == 0 || in.blas.typ != GeometryTriangles {
		return false
	}
	org, dir := in.place(r)
	if f == nil {
		return in.blas.occludesPlaced(&org, &dir, r.TMin, r.TMax)
	}
	if tMax := r.TMax; in.blas.walkPlaced(&org, &dir, r.TMin, &tMax, true, &f.h) {
		f.idx, f.org, f.dir = idx, org, dir
		return true
	}
	return false
}

// setHit writes the committed hit into out as Traversal.setCandidate
// would build it. It sets every field, one at a time: a Hit built as a
// value and returned was stored field by field and copied with 16-byte
// loads, which cannot be forwarded from those stores (a stall on every
// hit that cost about a tenth of a cached walk).
func setHit(out *Hit, in *instance, idx uint32, org, dir *vec.Vec3, h *fastHit, flags RayFlags) {
	setHitOf(out, in.blas, in.flags, in, idx, org, dir, h, flags)
}

// setSlotHit is setHit for the instance in t's leaf slot s, which the
// walk read when it entered the instance: its BLAS, flags and index come
// from the slot's line, not from the instance, whose 120 bytes missed
// the cache at most hits on a top level of thousands (setHit took 3.5% of
// embreecmp's samples on 10k instances).
func (t *TLAS) setSlotHit(out *Hit, s uint32, org, dir *vec.Vec3, h *fastHit, flags RayFlags) {
	sl := &t.slots[s]
	setHitOf(out, sl.blas, sl.flags, &t.instances[sl.idx], sl.idx, org, dir, h, flags)
}

// setHitOf is setHit with the instance's BLAS and flags given.
func setHitOf(out *Hit, b *BLAS, instFlags InstanceFlags, in *instance, idx uint32, org, dir *vec.Vec3, h *fastHit, flags RayFlags) {
	g, p := b.splitID(h.id)
	front := h.front
	if instFlags&InstanceTriangleFrontCounterClockwise != 0 {
		front = !front
	}
	out.Kind = KindTriangle
	out.T, out.U, out.V = h.t, h.u, h.v
	out.FrontFace = front
	out.Opaque = opaqueFor(b.geoms[g].flags, instFlags, flags)
	out.InstanceIndex, out.GeometryIndex, out.PrimitiveIndex = idx, g, p
	out.ObjectRayOrigin.X, out.ObjectRayOrigin.Y, out.ObjectRayOrigin.Z = org.X, org.Y, org.Z
	out.ObjectRayDirection.X, out.ObjectRayDirection.Y, out.ObjectRayDirection.Z = dir.X, dir.Y, dir.Z
	out.inst, out.slot = in, h.slot
}

// fusedWalk returns the state of a fused AVX2 walk (walkAVX2,
// occludeAVX2) of b for the ray of r over tMin, on the stack at stack,
// which it leaves to Go above limit entries.
func (b *BLAS) fusedWalk(r *rayBox, tMin float32, stack unsafe.Pointer, limit int) fusedWalk {
	return fusedWalk{
		blasArrays: b.arrays(),
		slab:       &r.slab, stack: stack, limit: limit, tMin: tMin,
		compress: &compressSlots,
	}
}

// blasArrays are the arrays of a BLAS that the assembly walks read, as
// they read them: the first fields of fusedWalk and batchQuery, and
// rayWalkAVX2's first arguments.
type blasArrays struct {
	wide  unsafe.Pointer // &wide[0]
	nwide int
	rows  unsafe.Pointer // &rows[0], the leaf rows (leafRows)
	nrows int            // len(rows)
	// A word the walks no longer read (&primIndex[0], which they
	// prefetched at each commit until hits took the index from the leaf
	// rows): it keeps the offsets that the assembly hard-codes.
	_ uintptr
}

// arrays returns b's blasArrays.
func (b *BLAS) arrays() blasArrays {
	return blasArrays{
		wide: unsafe.Pointer(unsafe.SliceData(b.wide)), nwide: len(b.wide),
		rows: unsafe.Pointer(unsafe.SliceData(b.rows)), nrows: len(b.rows),
	}
}
