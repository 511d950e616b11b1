package accel

import (
	"math"
	"slices"

	"github.com/raypipe/raypipe/vec"
)

// The copy modes of CopyRaytracingAccelerationStructure
// (D3D12_RAYTRACING_ACCELERATION_STRUCTURE_COPY_MODE): CLONE and COMPACT
// here, SERIALIZE and DESERIALIZE in serialize.go, and
// VISUALIZATION_DECODE_FOR_TOOLS as Visualize. Every copy leaves its source
// unchanged and usable.

// Clone returns an independent copy of b (COPY_MODE_CLONE): the same size
// and behavior, with its self-references fixed up to point at the copy. An
// update of the clone does not affect b, and the other way round.
func (b *BLAS) Clone() *BLAS {
	c := *b
	c.geoms = cloneCap(b.geoms)
	c.nodes = cloneCap(b.nodes)
	c.wide = cloneHuge(b.wide, cap(b.wide))
	c.wideSlots = cloneCap(b.wideSlots)
	c.tris = cloneCap(b.tris)
	c.rows = cloneHuge(b.rows, cap(b.rows))
	c.boxes = cloneCap(b.boxes)
	c.primGeom = cloneHuge(b.primGeom, cap(b.primGeom))
	c.primIndex = cloneHuge(b.primIndex, cap(b.primIndex))
	c.self.blas = &c
	return &c
}

// Compact returns a functionally equivalent copy of b that holds no spare
// capacity (COPY_MODE_COMPACT): its PostBuildInfo().CurrentSize is b's
// CompactedSize. It is only valid for structures built with
// BuildAllowCompaction (the spec leaves other sources undefined); without
// the flag Compact returns an *InputError.
func (b *BLAS) Compact() (*BLAS, error) {
	if b.flags&BuildAllowCompaction == 0 {
		return nil, errNoCompaction()
	}
	c := *b
	c.geoms = slices.Clip(slices.Clone(b.geoms))
	c.nodes = slices.Clip(slices.Clone(b.nodes))
	c.wide = cloneHuge(b.wide, len(b.wide))
	c.wideSlots = slices.Clip(slices.Clone(b.wideSlots))
	c.tris = slices.Clip(slices.Clone(b.tris))
	c.rows = cloneHuge(b.rows, len(b.rows))
	c.boxes = slices.Clip(slices.Clone(b.boxes))
	c.primGeom = cloneHuge(b.primGeom, len(b.primGeom))
	c.primIndex = cloneHuge(b.primIndex, len(b.primIndex))
	c.plan = nil // made again by the copy's first update
	c.self.blas = &c
	return &c, nil
}

func errNoCompaction() error {
	return inputErr("compact", "Flags", "the acceleration structure was not built with BuildAllowCompaction")
}

// Clone returns an independent copy of t (COPY_MODE_CLONE). The copy
// references the same bottom-level structures: "any external pointers to
// other acceleration structures remain unchanged from source to
// destination".
func (t *TLAS) Clone() *TLAS {
	c := *t
	c.instances = cloneCap(t.instances)
	c.nodes = cloneCap(t.nodes)
	c.wide = cloneCap(t.wide)
	c.wideSlots = cloneCap(t.wideSlots)
	c.order = cloneCap(t.order)
	c.slots = cloneCap(t.slots)
	return &c
}

// Compact returns a functionally equivalent copy of t without spare
// capacity (COPY_MODE_COMPACT); t must have been built with
// BuildAllowCompaction.
func (t *TLAS) Compact() (*TLAS, error) {
	if t.flags&BuildAllowCompaction == 0 {
		return nil, errNoCompaction()
	}
	c := *t
	c.instances = slices.Clip(slices.Clone(t.instances))
	c.nodes = slices.Clip(slices.Clone(t.nodes))
	c.wide = slices.Clip(slices.Clone(t.wide))
	c.wideSlots = slices.Clip(slices.Clone(t.wideSlots))
	c.order = slices.Clip(slices.Clone(t.order))
	c.slots = slices.Clip(slices.Clone(t.slots))
	return &c, nil
}

// cloneCap copies s keeping its capacity, so that a clone has exactly the
// size of its source, as COPY_MODE_CLONE specifies.
func cloneCap[S ~[]E, E any](s S) S {
	if s == nil {
		return nil
	}
	c := make(S, len(s), cap(s))
	copy(c, s)
	return c
}

// Visualize decodes b into geometry descriptions for tools
// (COPY_MODE_VISUALIZATION_DECODE_FOR_TOOLS): one Geometry per original
// geometry, in the original order, with the original flags and primitive
// order, so that building them gives a BLAS with the same hits. As the
// spec allows, geometry transforms are folded into the vertices, triangles
// come back as non-indexed R32G32B32_FLOAT, and inactive primitives come
// back as NaN triangles or boxes with NaN min x so that primitive indices
// are kept.
func (b *BLAS) Visualize() []Geometry {
	type prim struct {
		tri triVerts
		box AABB
	}
	per := make([][]prim, len(b.geoms))
	for g := range b.geoms {
		per[g] = make([]prim, b.geoms[g].prims)
		for p := range per[g] {
			per[g][p] = prim{tri: inactiveTri, box: nanBox}
		}
	}
	for s := range b.primGeom {
		g, p := b.primGeom[s], b.primIndex[s]
		if b.typ == GeometryTriangles {
			per[g][p].tri = b.tris[s]
		} else if slotBoxActive(&b.boxes[s]) {
			per[g][p].box = b.boxes[s]
		}
	}
	out := make([]Geometry, len(b.geoms))
	for g := range b.geoms {
		if b.typ == GeometryTriangles {
			pos := make([]vec.Vec3, 0, 3*len(per[g]))
			for _, p := range per[g] {
				pos = append(pos, p.tri[0], p.tri[1], p.tri[2])
			}
			out[g] = TriangleGeometry(pos, nil)
		} else {
			boxes := make([]AABB, len(per[g]))
			for p := range per[g] {
				boxes[p] = per[g][p].box
			}
			out[g] = AABBGeometry(boxes)
		}
		out[g].Flags = b.geoms[g].flags
	}
	return out
}

// nanBox is an inactive AABB as the spec's inputs spell it (NaN min x).
var nanBox = AABB{Min: vec.V3(float32(math.NaN()), 0, 0)}

// Visualize returns t's instance descriptions, "identical to the data used
// in the original build and in the same order" (or the latest update).
func (t *TLAS) Visualize() []Instance {
	out := make([]Instance, len(t.instances))
	for i := range out {
		out[i] = t.Instance(i)
	}
	return out
}
