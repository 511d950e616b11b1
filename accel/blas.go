package accel

import (
	"math"
	"slices"
	"strconv"
	"unsafe"

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
	nodes []node     // binary BVH: the canonical build output (refit, serialization)
	wide  []wideNode // 8-wide BVH derived from nodes by widen: what traversal walks
	// Per leaf slot, in traversal order:
	tris      []triVerts // triangle BLAS: object-space vertices, original vertex order
	rows      []float32  // tris per leaf as rows for the whole-leaf tests (leafRows), or nil
	boxes     []AABB     // procedural BLAS
	primGeom  []uint32   // geometry index
	primIndex []uint32   // primitive index within the geometry
	// updates counts the in-place updates (Update): a TLAS built over b
	// before the last of them is stale, and skips its top level only while
	// the count is the one it was built with (TLAS.soleQuery).
	updates uint64
	// self is the identity instance used when a BLAS is traced directly.
	self instance
	// active counts the active primitives: the slots, less the repeats of
	// a triangle split into fragments in several leaves (sbvhBuild).
	active int
	// wideSlots is the cut of nodes that wide takes, kept where the
	// structure is built for updates (BuildAllowUpdate), which refit the
	// wide nodes without planning the cut anew (refitWide); else nil.
	// (After the fields the assembly reads: fused_amd64.go.)
	wideSlots []wideSlots
	// plan is how updates refit the binary tree in parallel, made by the
	// first update (refitFrom), or nil.
	plan *refitPlan
}

// geomInfo is what a BLAS keeps of each input geometry.
type geomInfo struct {
	flags        GeometryFlags
	prims        int    // primitives, active or not
	first        uint32 // the primitive id of its primitive 0 (BLAS.primID)
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
	buildPhase("start")
	defer crewHold(primitiveCount(geoms))()
	dec, err := decodeAll(geoms, true)
	if err != nil {
		return nil, err
	}
	defer releaseDecoded(dec) // build copies what it keeps
	buildPhase("decode")
	b := &BLAS{flags: flags}
	b.build(dec)
	return b, nil
}

// primitives returns how many primitives b's geometries hold, active or
// not.
func (b *BLAS) primitives() int {
	n := 0
	for i := range b.geoms {
		n += b.geoms[i].prims
	}
	return n
}

// primitiveCount is about how many primitives geoms describe (from their
// counts, unchecked), to size a build before decoding it.
func primitiveCount(geoms []Geometry) int {
	n := 0
	for i := range geoms {
		switch g := &geoms[i]; {
		case g.Type == GeometryProceduralAABBs:
			n += max(0, g.AABBs.Count)
		case g.Triangles.IndexFormat == IndexNone:
			n += max(0, g.Triangles.VertexCount/3)
		default:
			n += max(0, g.Triangles.IndexCount/3)
		}
	}
	return n
}

// testHookBuildPhase, where a benchmark sets it, is called by the
// goroutine that calls BuildBLAS, BLAS.Update or BuildTLAS as each stage
// of the build or update ends, with "start" as one begins
// (BenchmarkBuildPhases, BenchmarkUpdatePhases and BenchmarkBuildTLASPhases
// time them; nil elsewhere).
var testHookBuildPhase func(phase string)

// buildPhase reports the end of a stage to testHookBuildPhase.
func buildPhase(phase string) {
	if h := testHookBuildPhase; h != nil {
		h(phase)
	}
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

func decodeAll(geoms []Geometry, temp bool) ([]decodedGeometry, error) {
	dec := make([]decodedGeometry, len(geoms))
	fail := func(err error) ([]decodedGeometry, error) {
		releaseDecoded(dec)
		return nil, err
	}
	total := 0
	for i := range geoms {
		if i > 0 && geoms[i].Type != geoms[0].Type {
			return fail(inputErr("geometry "+strconv.Itoa(i), "Type", "mixes triangles and procedural AABBs in one BLAS (geometry 0 has the other type)"))
		}
		d, err := decodeGeometry(i, &geoms[i], temp)
		if err != nil {
			return fail(err)
		}
		dec[i] = d
		total += d.primCount()
		if total > maxPrimitives {
			return fail(inputErr("geometry "+strconv.Itoa(i), "", "more than %d primitives in one BLAS", maxPrimitives))
		}
	}
	return dec, nil
}

// releaseDecoded releases the temporary triangle arrays of dec (see
// decodeTriangles); dec's triangles must not be used after.
func releaseDecoded(dec []decodedGeometry) {
	for i := range dec {
		if dec[i].release != nil {
			dec[i].release()
			dec[i].release, dec[i].tris = nil, nil
		}
	}
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
		b.geoms[g] = geomInfo{flags: d.flags, prims: d.primCount(), first: uint32(total), hasTransform: d.hasTransform,
			vertexFormat: d.vertexFormat, indexFormat: d.indexFormat, vertexCount: d.vertexCount,
			indexCount: d.indexCount, indexHash: d.indexHash}
		total += d.primCount()
	}
	// Primitive ids are global indices: geometry g's primitive p is
	// starts[g]+p. Boxes are computed in parallel chunks into their id's
	// place; inactive primitives are squeezed out afterwards (in id order,
	// so the result does not depend on the chunking).
	starts := make([]int, len(dec)+1)
	for g := range dec {
		starts[g+1] = starts[g] + dec[g].primCount()
	}
	refs, release := tempSlice[bref](total)
	defer release() // the tree is built from refs; nothing keeps them
	type chunkOut struct {
		bb     binBox
		cb     centroids
		active int
	}
	k := workChunks(total, workGrain)
	outs := make([]chunkOut, k)
	parallelParts(total, k, func(c int, lo, hi int) {
		inactive := 0
		for g := geomOf(starts, lo); g < len(dec) && starts[g] < hi; g++ {
			d, first, end := &dec[g], max(lo, starts[g]), min(hi, starts[g+1])
			if first >= end {
				continue
			}
			if boundsAsm && d.typ == GeometryTriangles {
				inactive += triRefsSSE(&d.tris[first-starts[g]], end-first, uint32(first), &refs[first])
				continue
			}
			for id := first; id < end; id++ {
				box, ok := d.primBox(id - starts[g])
				if !ok {
					refs[id].id = inactiveID
					inactive++
					continue
				}
				refs[id] = bref{box.Min.X, box.Min.Y, box.Min.Z, -box.Max.X, -box.Max.Y, -box.Max.Z, uint32(id)}
			}
		}
		o := chunkOut{active: hi - lo - inactive}
		if inactive == 0 {
			o.bb, o.cb = rangeBounds(refs[lo:hi]) // empty bounds for no refs
		} else {
			o.bb, o.cb = emptyBinBox(), emptyCentroids()
			for i := lo; i < hi; i++ {
				if refs[i].id != inactiveID {
					o.bb.add(&refs[i])
					o.cb.add(&refs[i])
				}
			}
		}
		outs[c] = o
	})
	bb, cb, active := emptyBinBox(), emptyCentroids(), 0
	for _, o := range outs {
		bb.union(&o.bb)
		cb.union(&o.cb)
		active += o.active
	}
	if active < total {
		k := 0
		for i := range refs {
			if refs[i].id != inactiveID {
				refs[k] = refs[i]
				k++
			}
		}
		refs = refs[:k]
	}
	b.active = len(refs)
	buildPhase("refs")
	var nodes []node
	var order []uint32
	if tris := splitTriangles(b.typ, b.flags, dec, len(refs)); tris != nil {
		// A tree with spatial splits knows about how many slots it has
		// once its top levels are split (sbvhBuild's bound): its slot
		// arrays are allocated then, while the subtrees below are built
		// (on 16 processors of a Xeon the CAD engine's build waited 1.1
		// ms of 11.5 for them after the tree).
		var allocated <-chan struct{}
		nodes, order = sbvhBuild(refs, bb, cb, paramsFor(b.flags), tris, func(bound int) {
			allocated = goAlloc(bound >= asyncAlloc, func() { b.allocSlots(bound) })
		})
		buildPhase("tree")
		if allocated == nil { // sbvhBuild always gives its bound; never hang if not
			b.allocSlots(len(order))
		} else {
			<-allocated
			b.trimSlots(len(order))
		}
	} else {
		// A tree without spatial splits has a slot per ref: its slot
		// arrays are allocated (and zeroed) while the tree is built.
		allocated := goAlloc(len(refs) >= asyncAlloc, func() { b.allocSlots(len(refs)) })
		nodes, order = buildBVHRefs(refs, bb, cb, paramsFor(b.flags))
		buildPhase("tree")
		<-allocated
	}
	buildPhase("alloc") // what the slot arrays' allocation took longer
	b.nodes = nodes
	b.wide, b.wideSlots = widenFor(b.flags, nodes)
	buildPhase("widefill")
	copySlots := func(_ int, lo, hi int) {
		for s := lo; s < hi; s++ {
			id := int(order[s])
			g := geomOf(starts, id)
			p := id - starts[g]
			b.primGeom[s], b.primIndex[s] = uint32(g), uint32(p)
			if b.typ == GeometryTriangles {
				b.tris[s] = dec[g].tris[p]
			} else {
				b.boxes[s] = dec[g].boxes[p]
			}
		}
	}
	if len(dec) == 1 && b.typ == GeometryTriangles {
		copySlots = func(_ int, lo, hi int) { copySoleSlots(b, dec[0].tris, order, lo, hi) }
	}
	parallelWork(len(order), workGrain, copySlots)
	buildPhase("slots")
	b.rows = b.leafRowsInto(b.rows)
	buildPhase("rows")
}

// copySoleSlots fills slots [lo, hi) of b, a BLAS of one triangle
// geometry, from its triangles in primitive order. Slot order visits them
// at random on most meshes, so each copy waits on a miss; the loop keeps
// several in flight by doing nothing else (the general loop's geometry
// lookup and type test held it to a few) and prefetches both lines of the
// triangle slotPrefetch slots ahead. One Zen 3 core, the slot copies'
// phase of a build (medians of three or four, a temporary test): the 1M
// soup about 62 ms before, 24 with the loop alone, 15-17 with the
// prefetch; the 100k soup 4.0, 1.8 and 1.2 ms; the 1M terrain 11.4, 8.1
// and 7.3-7.6 ms (8 slots ahead: 18.8 ms on the 1M soup; 32: as 16).
func copySoleSlots(b *BLAS, tris []triVerts, order []uint32, lo, hi int) {
	for s := lo; s < hi; s++ {
		if f := s + slotPrefetch; f < hi {
			t := unsafe.Pointer(&tris[order[f]])
			prefetchLine(t)
			prefetchLine(unsafe.Add(t, unsafe.Sizeof(triVerts{})-1))
		}
		p := order[s]
		b.primGeom[s], b.primIndex[s] = 0, p
		b.tris[s] = tris[p]
	}
}

// slotPrefetch is how many slots ahead copySoleSlots prefetches.
const slotPrefetch = 16

// allocSlots allocates b's arrays of n slots: primGeom, primIndex, and
// tris and their leaf rows, or boxes. From asyncAlloc slots the arrays are
// allocated in parallel, each then touched page by page (touchPages), so
// that the parallel stages that fill them fault no page in; builds run it
// beside their trees (goAlloc). On 16 processors of a Xeon, builds after a
// collection: the 1M terrain 47.6 -> 43.0 ms, the 1M soup 54.4 -> 52.1 ms,
// the 100k soup 8.2 -> 7.4 ms (three rounds alternated).
func (b *BLAS) allocSlots(n int) {
	if n < asyncAlloc {
		b.primGeom, b.primIndex = hugeSlice[uint32](n, n), hugeSlice[uint32](n, n)
		if b.typ == GeometryTriangles {
			b.tris, b.rows = make([]triVerts, n), newLeafRows(n)
		} else {
			b.boxes = make([]AABB, n)
		}
		return
	}
	parts := []func(){
		func() { b.primGeom = hugeSlice[uint32](n, n); touchPages(b.primGeom) },
		func() { b.primIndex = hugeSlice[uint32](n, n); touchPages(b.primIndex) },
	}
	if b.typ == GeometryTriangles {
		parts = append(parts,
			func() { b.tris = make([]triVerts, n); touchPages(b.tris) },
			func() { b.rows = newLeafRows(n); touchPages(b.rows) })
	} else {
		parts = append(parts, func() { b.boxes = make([]AABB, n); touchPages(b.boxes) })
	}
	crewRun(len(parts), func(i int) { parts[i]() })
}

// trimSlots shortens b's triangle slot arrays, allocated for at least n
// slots (allocSlots), to n; the capacity stays (CurrentSize counts it,
// a compacting copy drops it).
func (b *BLAS) trimSlots(n int) {
	b.primGeom, b.primIndex, b.tris = b.primGeom[:n], b.primIndex[:n], b.tris[:n]
	if b.rows != nil {
		b.rows = b.rows[:leafRowsLen(n)]
	}
}

// inactiveID marks the ref of an inactive primitive before it is removed.
const inactiveID = math.MaxUint32

// geomOf returns the geometry whose id range [starts[g], starts[g+1])
// holds id (the last such for empty geometries).
func geomOf(starts []int, id int) int {
	if len(starts) == 2 {
		return 0
	}
	g, _ := slices.BinarySearch(starts, id+1)
	return g - 1
}

// primBox returns primitive p's bounds, or false when it is inactive.
func (d *decodedGeometry) primBox(p int) (AABB, bool) {
	if d.typ == GeometryTriangles {
		t := &d.tris[p]
		if !triFinite(t) {
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
func (b *BLAS) ActivePrimitives() int { return b.active }
