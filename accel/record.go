package accel

import "fmt"

// RecordedHit describes a hit on primitive prim of geometry geom of
// instance inst of t, for ray r, without tracing: what GLSL's
// hitObjectRecordHitNV records. T, U, V and FrontFace are left for the
// caller; the object-space ray is r mapped by the instance's inverse
// transform.
func RecordedHit(t *TLAS, inst, geom, prim int, r Ray) (Hit, error) {
	if t == nil {
		return Hit{}, fmt.Errorf("accel: record hit: nil TLAS")
	}
	if inst < 0 || inst >= len(t.instances) {
		return Hit{}, fmt.Errorf("accel: record hit: instance %d out of range (%d instances)", inst, len(t.instances))
	}
	in := &t.instances[inst]
	if in.blas == nil {
		return Hit{}, fmt.Errorf("accel: record hit: instance %d is inactive", inst)
	}
	b := in.blas
	if geom < 0 || geom >= len(b.geoms) {
		return Hit{}, fmt.Errorf("accel: record hit: geometry %d out of range (%d geometries)", geom, len(b.geoms))
	}
	if prim < 0 || prim >= b.geoms[geom].prims {
		return Hit{}, fmt.Errorf("accel: record hit: primitive %d out of range (geometry %d has %d)", prim, geom, b.geoms[geom].prims)
	}
	h := Hit{Kind: KindTriangle, InstanceIndex: uint32(inst), GeometryIndex: uint32(geom), PrimitiveIndex: uint32(prim), inst: in, slot: noSlot}
	if b.typ == GeometryProceduralAABBs {
		h.Kind = KindProcedural
	}
	h.ObjectRayOrigin = in.worldToObject.TransformPoint(r.Origin)
	h.ObjectRayDirection = in.worldToObject.TransformVector(r.Direction)
	if s, ok := b.slotOf(uint32(geom), uint32(prim)); ok {
		h.slot = s
	}
	return h, nil
}

// noSlot marks a recorded hit on an inactive primitive.
const noSlot = ^uint32(0)

// slotOf finds the leaf slot of a primitive (linear in the BLAS size; for
// recorded hits only).
func (b *BLAS) slotOf(geom, prim uint32) (uint32, bool) {
	for s := range b.primGeom {
		if b.primGeom[s] == geom && b.primIndex[s] == prim {
			return uint32(s), true
		}
	}
	return 0, false
}
