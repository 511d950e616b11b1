package accel

import (
	"unsafe"

	"github.com/raypipe/raypipe/vec"
)

// The plain queries are for users who only cast rays: every candidate
// triangle is accepted (as if any-hit always accepted), and procedural
// primitives are skipped because they need an intersection shader. Use a
// Traversal to decide per candidate.

// Intersect returns the closest hit of r in t (r.TMin < t < r.TMax) over
// the instances whose mask shares a bit with mask. With
// RayFlagAcceptFirstHitAndEndSearch it returns the first hit it finds,
// which need not be the closest (the flag's rule): it walks as Occluded
// does, the child whose crossing reaches farthest first, so a shadow ray
// traced so costs about what Occluded costs, plus building the Hit.
func (t *TLAS) Intersect(r Ray, flags RayFlags, mask uint32) (hit Hit, ok bool) {
	ok = t.IntersectTo(&r, flags, mask, &hit)
	return hit, ok
}

// IntersectTo is Intersect storing the hit in *out (Hit{} when there is
// none) instead of returning it: the form for loops that cast many rays,
// as Embree's rtcIntersect1 takes its ray and hit by pointer. Neither the
// Ray is copied in nor the Hit out: a Hit returned by value is written
// field by field and then copied with wider loads, which the processor
// cannot forward from those stores (a loop over BLAS.IntersectTo runs at
// 1.06-1.09x the rate of one over Intersect on the 10k and 100k
// terrains' incoherent rays, 1.01-1.02x on their primary rays). r and
// out must not be nil (a nil TLAS, like Intersect's, misses).
func (t *TLAS) IntersectTo(r *Ray, flags RayFlags, mask uint32, out *Hit) bool {
	if flags&fastUnsupported != 0 || t == nil {
		var ok bool
		*out, ok = t.intersectSlow(*r, flags, mask)
		return ok
	}
	// The fast path: a closest-hit walk over the instances, each entered
	// with BLAS.walk, the hit built in place rather than copied out of
	// another frame.
	flags |= RayFlagSkipProceduralPrimitives
	m8 := uint8(mask)
	if in := t.soleQuery(m8); in != nil {
		if ok, done := in.intersectSole(r, flags, out); done {
			if !ok {
				*out = Hit{}
			}
			return ok
		}
	}
	if flags&RayFlagAcceptFirstHitAndEndSearch != 0 {
		// Occluded's walk, committing the hit it stops at.
		var f firstFound
		if !t.firstHit(r, m8, &f) {
			*out = Hit{}
			return false
		}
		setHit(out, &t.instances[f.idx], f.idx, &f.org, &f.dir, &f.h, flags)
		return true
	}
	if t.walkInAsm() {
		// The whole walk in one assembly call, where it can; it checks
		// the ray as below, and leaves a ray that fails the checks to Go
		// (rayGoMust), as the occlusion walk does.
		var th topHit
		wide, nwide, slots, nslots := t.topArgs()
		switch rayTLASWalkAVX2(wide, nwide, slots, nslots, r, mask, &th) {
		case rayMiss:
			*out = Hit{}
			return false
		case rayHit:
			t.setSlotHit(out, th.slot, &th.org, &th.dir, &th.h, flags)
			return true
		}
	}
	if r.TMin > r.TMax || t.nodes[0].bounds.IsEmpty() || !rayUsable(r) {
		*out = Hit{}
		return false
	}
	var world rayBox
	world.setup(r.Origin, r.Direction)
	// A small stack: Go zeroes it at every call, and a full-size one would
	// cost more than a small scene's whole traversal. A top-level tree
	// deep enough to outgrow it (millions of instances) takes the
	// Traversal path instead, which gives the same hits.
	var stack [smallStack]stackEntry
	if world.finite && t.topAVX2() {
		if ok, done := t.intersectTopAVX2(r, &world, m8, flags, stack[:], out); done {
			return ok
		}
		var ok bool
		*out, ok = t.traceDeep(*r, flags, m8)
		return ok
	}
	stack[0] = stackEntry{0, r.TMin}
	sp := 1
	tMax := r.TMax
	// The best hit's ray, placed (setHit reports it): only origin and
	// direction, where whole objectRays would be zeroed and copied.
	var bestOrg, bestDir vec.Vec3
	var h fastHit
	bestIdx := ^uint32(0)
	for sp > 0 {
		sp--
		e := stack[sp]
		if e.near > tMax {
			continue
		}
		if !isLeafRef(e.node) {
			if sp+wideWidth > len(stack) {
				var ok bool
				*out, ok = t.traceDeep(*r, flags, m8)
				return ok
			}
			sp = world.pushChildren(&t.wide[e.node], r.TMin, tMax, stack[:], sp)
			continue
		}
		leaf, _ := leafRange(e.node)
		idx := t.order[leaf]
		in := &t.instances[idx]
		if in.mask&m8 == 0 || in.blas.typ != GeometryTriangles {
			continue
		}
		org, dir := in.place(r)
		if in.blas.walkPlaced(&org, &dir, r.TMin, &tMax, false, &h) {
			bestOrg, bestDir, bestIdx = org, dir, idx
		}
	}
	if bestIdx == ^uint32(0) {
		*out = Hit{}
		return false
	}
	setHit(out, &t.instances[bestIdx], bestIdx, &bestOrg, &bestDir, &h, flags)
	return true
}

// walkInAsm reports whether t's queries try the one-call walks first
// (rayTLASWalkAVX2, rayTLASOccludeAVX2): wherever the AVX2 walks run.
// BenchmarkTraceInstances (64 instances) 1.05-1.09x, embreecmp
// -instances (1k to 100k) 1.08-1.17x (three rounds alternated).
func (t *TLAS) walkInAsm() bool { return fusedAVX2 && !useSIMD }

// topAVX2 reports whether the rays the one-call walks leave to Go walk
// t's top level by the AVX2 walks (intersectTopAVX2, occludedTopAVX2):
// where they run, on top levels of more than topAVX2Min wide nodes. Each instance the walk enters costs
// a return to Go and a call back, which on a top level of two levels
// (BenchmarkTraceInstances: 64 instances, 12 wide nodes) made shadow
// rays 0.985x, where top levels of 1k and 10k instances (185 and about
// 1.8k wide nodes) ran 1.03-1.08x (embreecmp -instances, three runs
// alternated).
func (t *TLAS) topAVX2() bool { return fusedAVX2 && !useSIMD && len(t.wide) > topAVX2Min }

// topAVX2Min is the least wide-node count of a top level the AVX2 walks take.
const topAVX2Min = 16

// intersectTopAVX2 is IntersectTo's walk for a finite world ray where the
// AVX2 walks run: walkAVX2 takes the top level's nodes (a fusedWalk with
// no triangle test hands every leaf, an instance, back), in the order of
// the Go loop's pushChildren, and the loop here enters the instances it
// is handed and pops, as the Go loop does, so that the hits are the
// same. It reports done false, without an answer, where the walk would
// outgrow stack. (The 10k-instance scenes of embreecmp -instances spent
// about half of their time in the Go loop's node steps and placing.)
func (t *TLAS) intersectTopAVX2(r *Ray, world *rayBox, m8 uint8, flags RayFlags, stack []stackEntry, out *Hit) (ok, done bool) {
	fw := fusedWalk{
		blasArrays: blasArrays{wide: unsafe.Pointer(unsafe.SliceData(t.wide)), nwide: len(t.wide)},
		slab:       &world.slab, stack: unsafe.Pointer(unsafe.SliceData(stack)), limit: len(stack) - wideWidth,
		tMin: r.TMin, compress: &compressSlots,
	}
	var bestOrg, bestDir vec.Vec3
	var h fastHit
	bestIdx := ^uint32(0)
	cur, sp, tMax := stackEntry{0, r.TMin}, 0, r.TMax
walk:
	for {
		if !isLeafRef(cur.node) {
			fw.cur, fw.sp, fw.tMax = cur, sp, tMax
			if !walkAVX2(&fw) {
				break
			}
			cur, sp = fw.cur, fw.sp
			if !isLeafRef(cur.node) {
				return false, false // a node past the stack's limit
			}
		}
		leaf, _ := leafRange(cur.node)
		idx := t.order[leaf]
		in := &t.instances[idx]
		if in.mask&m8 != 0 && in.blas.typ == GeometryTriangles {
			org, dir := in.place(r)
			if in.blas.walkPlaced(&org, &dir, r.TMin, &tMax, false, &h) {
				bestOrg, bestDir, bestIdx = org, dir, idx
			}
		}
		for {
			if sp == 0 {
				break walk
			}
			sp--
			if cur = stack[sp]; cur.near <= tMax {
				break
			}
		}
	}
	if bestIdx == ^uint32(0) {
		*out = Hit{}
		return false, true
	}
	setHit(out, &t.instances[bestIdx], bestIdx, &bestOrg, &bestDir, &h, flags)
	return true, true
}

// intersectSlow is Intersect through a Traversal, kept out of line so that
// the fast path's frame stays small (a Traversal holds its whole stack).
//
//go:noinline
func (t *TLAS) intersectSlow(r Ray, flags RayFlags, mask uint32) (Hit, bool) {
	var tr Traversal
	tr.Begin(t, r, flags|RayFlagSkipProceduralPrimitives&^skipConflicts(flags), mask)
	return tr.closest()
}

// Occluded reports whether r hits anything in (r.TMin, r.TMax); it stops at
// the first hit it finds.
func (t *TLAS) Occluded(r Ray, flags RayFlags, mask uint32) bool {
	return t.occluded(&r, flags, mask)
}

// occluded is Occluded for the ray at r, as BLAS.occluded: Occluded is
// inlined, and the Traversal of the slow path is out of line.
func (t *TLAS) occluded(r *Ray, flags RayFlags, mask uint32) bool {
	if flags&fastUnsupported == 0 && t != nil {
		if in := t.soleQuery(uint8(mask)); in != nil {
			if occ, done := in.occludedSole(r); done {
				return occ
			}
		}
		return t.firstHit(r, uint8(mask), nil)
	}
	return t.occludedSlow(*r, flags, mask)
}

// occludedSlow is Occluded through a Traversal, out of line as
// intersectSlow.
//
//go:noinline
func (t *TLAS) occludedSlow(r Ray, flags RayFlags, mask uint32) bool {
	var tr Traversal
	tr.Begin(t, r, flags|RayFlagAcceptFirstHitAndEndSearch|RayFlagSkipProceduralPrimitives&^skipConflicts(flags), mask)
	_, ok := tr.closest()
	return ok
}

// Intersect returns the closest hit of r against the BLAS alone (with
// RayFlagAcceptFirstHitAndEndSearch, the first hit Occluded's walk finds,
// as TLAS.Intersect).
func (b *BLAS) Intersect(r Ray, flags RayFlags) (hit Hit, ok bool) {
	ok = b.IntersectTo(&r, flags, &hit)
	return hit, ok
}

// IntersectTo is Intersect storing the hit in *out (Hit{} when there is
// none) instead of returning it, as TLAS.IntersectTo.
func (b *BLAS) IntersectTo(r *Ray, flags RayFlags, out *Hit) bool {
	if flags&fastUnsupported != 0 || b == nil || b.typ != GeometryTriangles {
		var ok bool
		*out, ok = b.intersectSlow(*r, flags)
		return ok
	}
	// The fast path: the whole query, the ray's checks included, in one
	// assembly call (rayAVX2) where it can, else in Go.
	var h fastHit
	status := rayGoMust
	if b.queriesInAsm() {
		// rayAVX2's calls written out: a Go call fewer before the walk.
		wide, rows := b.asmArrays()
		if flags&RayFlagAcceptFirstHitAndEndSearch != 0 {
			status = rayOccludedAVX2(wide, len(b.wide), rows, len(b.rows), r, true, &h)
		} else {
			status = rayIntersectAVX2(wide, len(b.wide), rows, len(b.rows), r, &h)
		}
	}
	if status == rayGoMust {
		if r.TMin > r.TMax || b.nodes[0].bounds.IsEmpty() || !rayUsable(r) {
			*out = Hit{}
			return false
		}
		status = b.intersectGo(r, flags, &h)
	}
	if status == rayMiss {
		*out = Hit{}
		return false
	}
	org, dir := identityPoint(r.Origin), identityVector(r.Direction)
	setHit(out, &b.self, 0, &org, &dir, &h, flags|RayFlagSkipProceduralPrimitives)
	return true
}

// intersectGo walks r in Go for Intersect's fast path (rayHit or rayMiss),
// out of line so that the assembly path does not zero an objectRay.
//
//go:noinline
func (b *BLAS) intersectGo(r *Ray, flags RayFlags, h *fastHit) int {
	var o objectRay
	o.setupSelf(r)
	tMax := r.TMax
	if b.walk(&o, r.TMin, &tMax, flags&RayFlagAcceptFirstHitAndEndSearch != 0, h) {
		return rayHit
	}
	return rayMiss
}

// intersectSlow is Intersect through a Traversal, out of line so that the
// fast path's frame stays small.
//
//go:noinline
func (b *BLAS) intersectSlow(r Ray, flags RayFlags) (Hit, bool) {
	var tr Traversal
	tr.BeginBLAS(b, r, flags|RayFlagSkipProceduralPrimitives&^skipConflicts(flags))
	return tr.closest()
}

// Occluded reports whether r hits the BLAS in (r.TMin, r.TMax).
func (b *BLAS) Occluded(r Ray, flags RayFlags) bool {
	return b.occluded(&r, flags)
}

// occluded is Occluded for the ray at r: the whole query in one assembly
// call where it can (rayOccludedAVX2 checks r itself), else in Go.
// Occluded, small enough to be inlined, leaves this one Go call between
// its caller and the walk (three before: BenchmarkRayFixedCost's Occluded
// 18.4 -> 15.7 ns a ray on a Zen 5, its assembly alone 14.0).
func (b *BLAS) occluded(r *Ray, flags RayFlags) bool {
	if flags&fastUnsupported == 0 && b != nil && b.typ == GeometryTriangles {
		if b.queriesInAsm() {
			var h fastHit
			wide, rows := b.asmArrays()
			if s := rayOccludedAVX2(wide, len(b.wide), rows, len(b.rows), r, false, &h); s != rayGoMust {
				return s == rayHit
			}
		}
		return b.occludedGo(r)
	}
	return b.occludedSlow(*r, flags)
}

// occludedSlow is Occluded through a Traversal, out of line so that the
// fast path's frame stays small (a Traversal is 10 KB).
//
//go:noinline
func (b *BLAS) occludedSlow(r Ray, flags RayFlags) bool {
	var tr Traversal
	tr.BeginBLAS(b, r, flags|RayFlagAcceptFirstHitAndEndSearch|RayFlagSkipProceduralPrimitives&^skipConflicts(flags))
	_, ok := tr.closest()
	return ok
}

// skipConflicts drops SKIP_PROCEDURAL_PRIMITIVES when the caller asked for
// SKIP_TRIANGLES, which excludes it.
func skipConflicts(flags RayFlags) RayFlags {
	if flags&RayFlagSkipTriangles != 0 {
		return RayFlagSkipProceduralPrimitives
	}
	return 0
}

// closest accepts every candidate triangle and skips procedural ones.
func (tr *Traversal) closest() (Hit, bool) {
	for tr.Next() {
		if tr.cand.Kind == KindTriangle {
			tr.Commit()
		}
	}
	return tr.committed, tr.committed.Kind != KindNone
}
