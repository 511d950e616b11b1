package accel

import "github.com/raypipe/raypipe/vec"

// The plain queries are for users who only cast rays: every candidate
// triangle is accepted (as if any-hit always accepted), and procedural
// primitives are skipped because they need an intersection shader. Use a
// Traversal to decide per candidate.

// Intersect returns the closest hit of r in t (r.TMin < t < r.TMax) over
// the instances whose mask shares a bit with mask. With
// RayFlagAcceptFirstHitAndEndSearch it returns the first hit it finds,
// which need not be the closest (the flag's rule): it walks as Occluded
// does, the child the ray crosses for longest first, so a shadow ray
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
	if flags&fastUnsupported == 0 && t != nil {
		if in := t.soleQuery(uint8(mask)); in != nil {
			if occ, done := in.occludedSole(&r); done {
				return occ
			}
		}
		return t.occludedFast(r, uint8(mask))
	}
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
		status = b.rayAVX2(r, modeFor(flags&RayFlagAcceptFirstHitAndEndSearch != 0), &h)
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
	if flags&fastUnsupported == 0 && b != nil && b.typ == GeometryTriangles {
		return b.occludedFast(r)
	}
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
