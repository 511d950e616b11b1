package accel

import "github.com/raypipe/raypipe/vec"

// The fast path of the plain queries (Intersect, Occluded): when no ray
// flag can reject a triangle candidate, every triangle hit is committed, so
// the candidate state machine reduces to a closest-hit (or first-hit) walk.
// It walks the same wide nodes in the same order with the same tests as
// Traversal, so both give identical hits (TestFastPathMatchesTraversal).

// fastUnsupported are the ray flags that make the plain queries take the
// Traversal path: culling, and SKIP_TRIANGLES.
const fastUnsupported = RayFlagCullBackFacingTriangles | RayFlagCullFrontFacingTriangles |
	RayFlagCullOpaque | RayFlagCullNonOpaque | RayFlagSkipTriangles

// fastHit is the committed triangle of a fast walk.
type fastHit struct {
	t, u, v float32
	slot    uint32
	front   bool
}

// objectRay is a ray in one instance's object space.
type objectRay struct {
	org, dir vec.Vec3
	rb       rayBox
	wt       watertightRay
}

func (o *objectRay) setup(in *instance, r *Ray) {
	m := &in.worldToObject
	o.org = m.TransformPoint(r.Origin)
	o.dir = m.TransformVector(r.Direction)
	o.rb.setup(o.org, o.dir)
	o.wt.setup(o.org, o.dir)
}

// walk traces the BLAS for o over (tMin, *tMax), shrinking *tMax to each
// hit it commits into h. With first it stops at the first hit.
func (b *BLAS) walk(o *objectRay, tMin float32, tMax *float32, first bool, h *fastHit) bool {
	near, ok := o.rb.hit(&b.nodes[0].bounds, tMin, *tMax)
	if !ok {
		return false
	}
	var stack [stackSize4]stackEntry
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
			t, u, v, front, ok := o.wt.intersect(&tris[s], tMin, *tMax)
			if !ok {
				continue
			}
			*tMax = t
			*h = fastHit{t, u, v, s, front}
			found = true
			if first {
				return true
			}
		}
	}
	return found
}

func (b *BLAS) traceFast(r Ray, flags RayFlags) (Hit, bool) {
	if r.TMin > r.TMax || b.nodes[0].bounds.IsEmpty() || !rayUsable(&r) {
		return Hit{}, false
	}
	var o objectRay
	o.setup(&b.self, &r)
	tMax := r.TMax
	var h fastHit
	if !b.walk(&o, r.TMin, &tMax, flags&RayFlagAcceptFirstHitAndEndSearch != 0, &h) {
		return Hit{}, false
	}
	return makeHit(&b.self, 0, &o, &h, flags), true
}

func (t *TLAS) traceFast(r Ray, flags RayFlags, mask uint8) (Hit, bool) {
	if r.TMin > r.TMax || t.nodes[0].bounds.IsEmpty() || !rayUsable(&r) {
		return Hit{}, false
	}
	var world rayBox
	world.setup(r.Origin, r.Direction)
	first := flags&RayFlagAcceptFirstHitAndEndSearch != 0
	var stack [stackSize4]stackEntry
	stack[0] = stackEntry{0, r.TMin}
	sp := 1
	tMax := r.TMax
	var o, best objectRay
	var h fastHit
	bestIdx := ^uint32(0)
	for sp > 0 {
		sp--
		e := stack[sp]
		if e.near > tMax {
			continue
		}
		if !isLeafRef(e.node) {
			sp = world.pushChildren(&t.wide[e.node], r.TMin, tMax, stack[:], sp)
			continue
		}
		leaf, _ := leafRange(e.node)
		idx := t.order[leaf]
		in := &t.instances[idx]
		if in.mask&mask == 0 || in.blas.typ != GeometryTriangles {
			continue
		}
		o.setup(in, &r)
		if in.blas.walk(&o, r.TMin, &tMax, first, &h) {
			best, bestIdx = o, idx
			if first {
				break
			}
		}
	}
	if bestIdx == ^uint32(0) {
		return Hit{}, false
	}
	return makeHit(&t.instances[bestIdx], bestIdx, &best, &h, flags), true
}

// makeHit builds the committed Hit as Traversal.setCandidate would.
func makeHit(in *instance, idx uint32, o *objectRay, h *fastHit, flags RayFlags) Hit {
	b := in.blas
	g := b.primGeom[h.slot]
	front := h.front
	if in.flags&InstanceTriangleFrontCounterClockwise != 0 {
		front = !front
	}
	return Hit{Kind: KindTriangle, T: h.t, U: h.u, V: h.v, FrontFace: front,
		Opaque: opaqueFor(b.geoms[g].flags, in.flags, flags), InstanceIndex: idx, GeometryIndex: g,
		PrimitiveIndex: b.primIndex[h.slot], ObjectRayOrigin: o.org, ObjectRayDirection: o.dir,
		inst: in, slot: h.slot}
}
