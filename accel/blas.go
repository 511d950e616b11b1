package accel

import (
	"math"
	"strconv"

	"github.com/raypipe/raypipe/vec"
)

// BLAS is a bottom-level acceleration structure: one or more triangle
// geometries, or one or more procedural AABB geometries (all geometries of
// one BLAS have the same type, as Vulkan requires and DXR validates).
//
// A BLAS is immutable after BuildBLAS except through Update, and safe for
// concurrent traversal.
type BLAS struct {
	flags BuildFlags
	typ   GeometryType
	geoms []geomInfo
	nodes []node  // binary BVH: the canonical build output (refit, serialization)
	wide  []node4 // 4-wide BVH derived from nodes by widen: what traversal walks
	// Per leaf slot, in traversal order:
	tris      []triVerts // triangle BLAS: object-space vertices, original vertex order
	boxes     []AABB     // procedural BLAS
	primGeom  []uint32   // geometry index
	primIndex []uint32   // primitive index within the geometry
	// self is the identity instance used when a BLAS is traced directly.
	self instance
}

// geomInfo is what a BLAS keeps of each input geometry.
type geomInfo struct {
	flags        GeometryFlags
	prims        int // primitives, active or not
	hasTransform bool
	vertexFormat VertexFormat
	indexFormat  IndexFormat
	vertexCount  int
	indexCount   int
	indexHash    uint64
}

// BuildBLAS builds a bottom-level acceleration structure
// (BuildRaytracingAccelerationStructure with TYPE_BOTTOM_LEVEL). Inactive
// primitives (a triangle with a NaN vertex x or any non-finite coordinate,
// an AABB with NaN min x or a non-finite or inverted box) never hit but keep
// their indices.
func BuildBLAS(geoms []Geometry, flags BuildFlags) (*BLAS, error) {
	if err := checkBuildFlags(flags); err != nil {
		return nil, err
	}
	dec, err := decodeAll(geoms)
	if err != nil {
		return nil, err
	}
	b := &BLAS{flags: flags}
	b.build(dec)
	return b, nil
}

func checkBuildFlags(flags BuildFlags) error {
	known := BuildAllowUpdate | BuildAllowCompaction | BuildPreferFastTrace | BuildPreferFastBuild | BuildMinimizeMemory | BuildAllowDataAccess
	if flags&BuildPerformUpdate != 0 {
		return inputErr("build flags", "", "PERFORM_UPDATE is for Update, not a fresh build")
	}
	if flags&^known != 0 {
		return inputErr("build flags", "", "unknown bits %#x", uint32(flags&^known))
	}
	if flags&BuildPreferFastTrace != 0 && flags&BuildPreferFastBuild != 0 {
		return inputErr("build flags", "", "PREFER_FAST_TRACE and PREFER_FAST_BUILD are mutually exclusive")
	}
	return nil
}

func decodeAll(geoms []Geometry) ([]decodedGeometry, error) {
	dec := make([]decodedGeometry, len(geoms))
	total := 0
	for i := range geoms {
		if i > 0 && geoms[i].Type != geoms[0].Type {
			return nil, inputErr("geometry "+strconv.Itoa(i), "Type", "mixes triangles and procedural AABBs in one BLAS (geometry 0 has the other type)")
		}
		d, err := decodeGeometry(i, &geoms[i])
		if err != nil {
			return nil, err
		}
		total += d.primCount()
		if total > maxPrimitives {
			return nil, inputErr("geometry "+strconv.Itoa(i), "", "more than %d primitives in one BLAS", maxPrimitives)
		}
		dec[i] = d
	}
	return dec, nil
}

func (b *BLAS) build(dec []decodedGeometry) {
	b.self = instance{objectToWorld: vec.Identity3x4, worldToObject: vec.Identity3x4, mask: 0xff, blas: b}
	b.geoms = make([]geomInfo, len(dec))
	if len(dec) > 0 {
		b.typ = dec[0].typ
	}
	total := 0
	for g := range dec {
		d := &dec[g]
		b.geoms[g] = geomInfo{flags: d.flags, prims: d.primCount(), hasTransform: d.hasTransform,
			vertexFormat: d.vertexFormat, indexFormat: d.indexFormat, vertexCount: d.vertexCount,
			indexCount: d.indexCount, indexHash: d.indexHash}
		total += d.primCount()
	}
	type key struct{ g, p uint32 }
	refs := make([]primRef, 0, total)
	keys := make([]key, 0, total)
	for g := range dec {
		d := &dec[g]
		for p := 0; p < d.primCount(); p++ {
			box, ok := d.primBox(p)
			if !ok {
				continue
			}
			refs = append(refs, primRef{box: box, id: uint32(len(keys))})
			keys = append(keys, key{uint32(g), uint32(p)})
		}
	}
	nodes, order := buildBVH(refs, paramsFor(b.flags))
	b.nodes = nodes
	b.wide = widen(nodes)
	b.primGeom = make([]uint32, len(order))
	b.primIndex = make([]uint32, len(order))
	if b.typ == GeometryTriangles {
		b.tris = make([]triVerts, len(order))
	} else {
		b.boxes = make([]AABB, len(order))
	}
	for s, id := range order {
		k := keys[id]
		b.primGeom[s], b.primIndex[s] = k.g, k.p
		if b.typ == GeometryTriangles {
			b.tris[s] = dec[k.g].tris[k.p]
		} else {
			b.boxes[s] = dec[k.g].boxes[k.p]
		}
	}
}

// primBox returns primitive p's bounds, or false when it is inactive.
func (d *decodedGeometry) primBox(p int) (AABB, bool) {
	if d.typ == GeometryTriangles {
		t := &d.tris[p]
		if !t[0].IsFinite() || !t[1].IsFinite() || !t[2].IsFinite() {
			return AABB{}, false
		}
		return triBounds(t), true
	}
	b := d.boxes[p]
	if !b.Min.IsFinite() || !b.Max.IsFinite() || b.IsEmpty() {
		return AABB{}, false
	}
	return b, true
}

// Bounds returns the box around every active primitive (empty when there
// is none).
func (b *BLAS) Bounds() AABB { return b.nodes[0].bounds }

// Flags returns the build flags.
func (b *BLAS) Flags() BuildFlags { return b.flags }

// Type returns the geometry type of the BLAS.
func (b *BLAS) Type() GeometryType { return b.typ }

// GeometryCount returns the number of geometries.
func (b *BLAS) GeometryCount() int { return len(b.geoms) }

// GeometryFlags returns the flags of geometry g.
func (b *BLAS) GeometryFlags(g int) GeometryFlags { return b.geoms[g].flags }

// PrimitiveCount returns the number of primitives of geometry g, active or
// not.
func (b *BLAS) PrimitiveCount(g int) int { return b.geoms[g].prims }

// ActivePrimitives returns the number of primitives that can be hit.
func (b *BLAS) ActivePrimitives() int { return len(b.primGeom) }

var _ = math.Inf
