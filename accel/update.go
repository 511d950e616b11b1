package accel

import (
	"math"
	"strconv"
	"sync"

	"github.com/raypipe/raypipe/vec"
)

// Updates (incremental builds) follow "Acceleration structure update
// constraints" of the D3D12 raytracing spec: the structure keeps its
// topology and only its bounds are refitted to the new positions.
//
// Inactive primitives and updates. A primitive that is inactive when the
// structure is built (a triangle with a non-finite vertex coordinate, an
// AABB with NaN min x or a non-finite or inverted box) has no place in the
// topology, so it stays inactive for the life of the structure: an update
// whose data would make it active is rejected with an error that says to
// rebuild. A primitive that was active at build may become inactive in an
// update: it keeps its leaf slot, is never hit and is left out of every
// bound; a later update may make it active again.
//
// A top-level update may redefine every instance (spec: "the definitions of
// each of the instances can be completely redefined ... including which
// bottom-level acceleration structure each instance points to"). When the
// set of active instances is unchanged the tree is refitted; when an
// instance becomes active or inactive the instance tree is rebuilt, which
// is functionally the same as a fresh build, the only thing the spec's
// determinism rules ask of an update.
//
// Update and UpdateInto are deterministic: the same sequence of updates
// gives the same structure. Neither is safe to call while the structure is
// being traversed.

// inactiveTri is what an update stores in the slot of a triangle that became
// inactive: NaN vertices, which the watertight test never hits.
var inactiveTri = func() triVerts {
	n := float32(math.NaN())
	var t triVerts
	for i := range t {
		t[i].X, t[i].Y, t[i].Z = n, n, n
	}
	return t
}()

// inactiveBox is what an update stores in the slot of an AABB that became
// inactive: an inverted box of finite extremes, which the slab test rejects
// for every ray (a NaN box would not be rejected: NaN slabs are ignored).
var inactiveBox = AABB{
	Min: vec.V3(math.MaxFloat32, math.MaxFloat32, math.MaxFloat32),
	Max: vec.V3(-math.MaxFloat32, -math.MaxFloat32, -math.MaxFloat32),
}

// slotTriActive reports whether a stored triangle slot is active.
func slotTriActive(t *triVerts) bool { return triFinite(t) }

// slotBoxActive reports whether a stored AABB slot is active.
func slotBoxActive(b *AABB) bool {
	return b.Min.IsFinite() && b.Max.IsFinite() && !b.IsEmpty()
}

// slotBox returns the bounds of leaf slot s, empty for an inactive slot.
func (b *BLAS) slotBox(s uint32) AABB {
	if b.typ == GeometryTriangles {
		// A coordinate that is not finite is one of the box's: min and
		// max keep a NaN, and an infinity is a bound.
		if box := triBounds(&b.tris[s]); boxFinite(&box) {
			return box
		}
		return emptyAABB()
	}
	x := &b.boxes[s]
	if !slotBoxActive(x) {
		return emptyAABB()
	}
	return *x
}

// Update refits b in place to new geometry data (BuildRaytracingAcceleration
// Structure with PERFORM_UPDATE and the source equal to the destination).
// b must have been built with BuildAllowUpdate. Per "Bottom-level
// acceleration structure updates" only the vertex positions (vertex buffer
// contents and stride) and the geometry transform values may change, or the
// AABB contents and stride of procedural geometry; the geometry count,
// types, flags, formats, vertex/index/AABB counts, index buffer contents and
// the presence of a transform must match the build, or Update returns an
// *InputError naming the geometry and field and leaves b unchanged.
//
// Every top-level structure that references b is stale until it is updated
// or rebuilt ("Data rules").
//
// The refit runs on every processor in parts of the tree; the first update
// plans them (a walk over the tree: on one Zen 3 core 8-16 us at 10k
// triangles, 0.13 ms at 100k, 1.5 ms at 1M, a tenth of an update or less)
// and b keeps the plan (a few dozen bytes per 2048 primitives, counted in
// PostBuildInfo's CurrentSize).
func (b *BLAS) Update(geoms []Geometry) error {
	defer crewHoldFrom(len(b.primGeom), updateHoldMin)()
	buildPhase("start")
	in, err := b.checkUpdate(geoms)
	if err != nil {
		return err
	}
	defer in.release() // the refit copies what it keeps
	b.refitFrom(in)
	return nil
}

// UpdateInto is Update with a separate destination: it returns the updated
// structure and leaves b's contents untouched. b keeps the refit plan the
// first such call makes (see Update), which the results share: a program
// that updates from one rest pose again and again plans once.
func (b *BLAS) UpdateInto(geoms []Geometry) (*BLAS, error) {
	defer crewHoldFrom(len(b.primGeom), updateHoldMin)()
	in, err := b.checkUpdate(geoms)
	if err != nil {
		return nil, err
	}
	defer in.release()
	sharedPlans.Lock()
	if b.plan == nil && len(b.primGeom) > 0 {
		b.plan = planRefit(b.nodes, b.wide, b.wideSlots)
	}
	sharedPlans.Unlock()
	c := b.Clone()
	c.refitFrom(in)
	return c, nil
}

// sharedPlans guards the refit plans that UpdateInto makes for its
// sources, which may be updated into several structures at once.
var sharedPlans sync.Mutex

// updateHoldMin is the least count of slots of an update that holds the
// crew (crewHoldFrom) and refits its parts in parallel (refitFrom): from
// two of workChunks' chunks on, where its decoding and hashing run in
// parallel, and where goroutines started for them would each wait to be
// woken. A 10k-triangle update on two threads, back to back: 214 us
// without the hold, 172 with it (193 on one; before the parts).
const updateHoldMin = 2 * minChunk

func errNoUpdate() error {
	return inputErr("update", "Flags", "the acceleration structure was not built with BuildAllowUpdate")
}

// updateInput is an update's validated input (checkUpdate): the decoded
// geometries (temporary arrays, which release releases), or, for one
// triangle geometry whose every primitive has a slot and whose slots
// follow its primitives' order (slotsFollowPrimitives), its source, which
// the refit fetches straight into the slots in their order (no decoded
// array, no gather).
type updateInput struct {
	dec  []decodedGeometry
	sole *triSource
}

func (in *updateInput) release() { releaseDecoded(in.dec) }

// slotsFollowPrimitives reports whether b's slots mostly follow its
// primitives' order: fewer than half of updateSamples neighbouring slots,
// spread over them, hold primitives more than 64 apart. Then an update
// of a sole geometry fetches its triangles straight into the slots,
// reading the index and vertex buffers about in order; else, where the
// slots visit the triangles at random, it decodes them in index order and
// gathers them, one random read a slot instead of two. Measured both ways
// (BenchmarkUpdate, three rounds): the terrains (a quarter to a third of
// neighbouring slots 64 or more primitives apart; the pipes 0.09) ran
// 1.07-1.38x fetched straight, the soups (0.97-1.0 apart) 0.55-0.74x.
func (b *BLAS) slotsFollowPrimitives() bool {
	n := len(b.primIndex)
	if n < 2 {
		return true
	}
	k := min(updateSamples, n-1)
	far := 0
	for i := range k {
		s := 1 + i*(n-1)/k
		if d := int(b.primIndex[s]) - int(b.primIndex[s-1]); d > 64 || d < -64 {
			far++
		}
	}
	return 2*far < k
}

// updateSamples is how many neighbouring slots slotsFollowPrimitives
// compares.
const updateSamples = 1024

// checkUpdate validates geoms against the build and decodes them, or for
// one triangle geometry whose primitives all have slots prepares them.
func (b *BLAS) checkUpdate(geoms []Geometry) (updateInput, error) {
	if b.flags&BuildAllowUpdate == 0 {
		return updateInput{}, errNoUpdate()
	}
	if len(geoms) != len(b.geoms) {
		return updateInput{}, inputErr("update", "NumDescs", "%d geometries, the structure was built with %d", len(geoms), len(b.geoms))
	}
	// Cheap descriptive fields first, so that a wrong count fails before
	// anything is decoded.
	for i := range geoms {
		g, old := &geoms[i], &b.geoms[i]
		where := "geometry " + strconv.Itoa(i)
		if g.Type != b.typ {
			return updateInput{}, inputErr(where, "Type", "%d, built as %d", g.Type, b.typ)
		}
		if g.Flags != old.flags {
			return updateInput{}, inputErr(where, "Flags", "%#x, built with %#x (geometry flags may not change)", uint32(g.Flags), uint32(old.flags))
		}
		if g.Type == GeometryProceduralAABBs {
			if g.AABBs.Count != old.prims {
				return updateInput{}, inputErr(where, "AABBs.Count", "%d, built with %d", g.AABBs.Count, old.prims)
			}
			continue
		}
		t := &g.Triangles
		switch {
		case (t.Transform != nil) != old.hasTransform:
			return updateInput{}, inputErr(where, "Transform", "may not change between nil and non-nil (use the identity matrix)")
		case t.VertexFormat != old.vertexFormat:
			return updateInput{}, inputErr(where, "VertexFormat", "%s, built with %s", t.VertexFormat, old.vertexFormat)
		case t.IndexFormat != old.indexFormat:
			return updateInput{}, inputErr(where, "IndexFormat", "%d, built with %d", t.IndexFormat, old.indexFormat)
		case t.VertexCount != old.vertexCount:
			return updateInput{}, inputErr(where, "VertexCount", "%d, built with %d", t.VertexCount, old.vertexCount)
		case t.IndexCount != old.indexCount:
			return updateInput{}, inputErr(where, "IndexCount", "%d, built with %d", t.IndexCount, old.indexCount)
		}
	}
	allSlotted := b.active == b.primitives() // no primitive was inactive at build
	if len(geoms) == 1 && b.typ == GeometryTriangles && allSlotted && b.slotsFollowPrimitives() {
		src, d, err := prepareTriangles("geometry 0", &geoms[0], nil)
		if err != nil {
			return updateInput{}, err
		}
		if d.indexHash != b.geoms[0].indexHash {
			return updateInput{}, errIndicesChanged(0)
		}
		return updateInput{sole: &src}, nil
	}
	dec, err := decodeAll(geoms, true)
	if err != nil {
		return updateInput{}, err
	}
	for i := range dec {
		if dec[i].indexHash != b.geoms[i].indexHash {
			releaseDecoded(dec)
			return updateInput{}, errIndicesChanged(i)
		}
	}
	// A primitive inactive at build has no slot: it cannot become active.
	base := make([]int, len(dec)+1)
	for i := range dec {
		base[i+1] = base[i] + dec[i].primCount()
	}
	if allSlotted {
		return updateInput{dec: dec}, nil
	}
	hasSlot := make([]uint64, (base[len(dec)]+63)/64)
	for s := range b.primGeom {
		k := base[b.primGeom[s]] + int(b.primIndex[s])
		hasSlot[k/64] |= 1 << (k % 64)
	}
	for g := range dec {
		for p := 0; p < dec[g].primCount(); p++ {
			k := base[g] + p
			if hasSlot[k/64]&(1<<(k%64)) != 0 {
				continue
			}
			if _, ok := dec[g].primBox(p); ok {
				field := "VertexBuffer"
				if dec[g].typ == GeometryProceduralAABBs {
					field = "AABBs.Buffer"
				}
				releaseDecoded(dec)
				return updateInput{}, inputErr("geometry "+strconv.Itoa(g), field, "primitive %d was inactive when the structure was built and cannot become active in an update (rebuild instead)", p)
			}
		}
	}
	return updateInput{dec: dec}, nil
}

// errIndicesChanged is the error of an update whose geometry g's index
// buffer is not the build's.
func errIndicesChanged(g int) error {
	return inputErr("geometry "+strconv.Itoa(g), "IndexBuffer", "contents differ from the build (index buffer contents may not change)")
}

// refitFrom stores the new primitives in their slots and refits the tree,
// in the memory it has, keeping its topology, the binary one and the wide
// one (only bounds change): the binary tree in parts (refitPlan), each a
// subtree whose slots one task fetches (straight from a sole geometry,
// else from the decoded geometries: storeSlots), whose leaves it bounds
// and lays out as rows and whose inner nodes and wide nodes it refits,
// then the nodes above the parts. The wide nodes keep the cut the build
// made: each takes its slots' binary nodes' bounds (refitWideNode).
//
// Before the parts, each of those steps was a pass over the whole
// structure in parallel chunks of its own: five fork-joins an update, each
// chunk's data in another core's cache, and the inner nodes on one
// goroutine. On 16 Xeon cores a 10k-triangle update ran slower on sixteen
// threads than on one, and a 100k one 2.8x faster than on one, where
// Embree's refit ran 2.8x and 5.5x faster.
func (b *BLAS) refitFrom(in updateInput) {
	b.updates++
	if len(b.primGeom) == 0 {
		return
	}
	buildPhase("check") // the input validated, indices hashed, decoded if not sole
	if b.plan == nil {
		b.plan = planRefit(b.nodes, b.wide, b.wideSlots)
	}
	pl := b.plan
	refit := func(k int) {
		p := &pl.parts[k]
		b.storeSlots(in, int(p.lo), int(p.hi))
		b.refitPart(p)
		for w := p.wideLo; w < p.wideHi; w++ {
			refitWideNode(&b.wide[w], b.nodes, &b.wideSlots[w])
		}
	}
	if len(b.primGeom) < updateHoldMin {
		// Without the crew (crewHoldFrom) each part would be a goroutine
		// of its own: one goroutine refits the few parts, as it refit
		// such small structures before.
		for k := range pl.parts {
			refit(k)
		}
	} else {
		crewRun(len(pl.parts), refit)
	}
	buildPhase("parts")
	for _, i := range pl.top {
		b.refitInnerNode(i)
	}
	buildPhase("inner")
	if !pl.wideInParts {
		refitWide(b.nodes, b.wide, b.wideSlots)
	}
	for _, w := range pl.wideTop {
		refitWideNode(&b.wide[w], b.nodes, &b.wideSlots[w])
	}
	buildPhase("wide")
}

// storeSlots stores the primitives of slots [lo, hi) from in: fetched
// straight from a sole geometry, else each from its decoded geometry, a
// triangle as it is (refitLeaf then makes those that are not finite
// inactiveTri), a box or inactiveBox. Large ranges go in parallel chunks.
func (b *BLAS) storeSlots(in updateInput, lo, hi int) {
	if in.sole != nil {
		in.sole.fetch(b.tris[lo:hi], b.primIndex[lo:hi])
		return
	}
	dec := in.dec
	parallelWork(hi-lo, workGrain, func(_, clo, chi int) {
		clo, chi = lo+clo, lo+chi
		if b.typ == GeometryTriangles && len(dec) == 1 {
			gatherSlots(b.tris[clo:chi], dec[0].tris, b.primIndex[clo:chi])
			return
		}
		for s := clo; s < chi; s++ {
			g, p := b.primGeom[s], b.primIndex[s]
			if b.typ == GeometryTriangles {
				b.tris[s] = dec[g].tris[p]
			} else if _, ok := dec[g].primBox(int(p)); ok {
				b.boxes[s] = dec[g].boxes[p]
			} else {
				b.boxes[s] = inactiveBox
			}
		}
	})
}

// gatherSlots is storeSlots' loop for the slots dst of a BLAS of one
// triangle geometry, whose primitives prims index tris. Unlike the
// build's slot copies (copySoleSlots), it does not prefetch: a loop that
// does nothing else kept enough misses in flight, and without the
// prefetches an update ran 1.03-1.2x on the 10k to 1M terrains and soups,
// one thread, the 1M soup's random gather included.
func gatherSlots(dst, tris []triVerts, prims []uint32) {
	for i, p := range prims {
		dst[i] = tris[p]
	}
}

// refitPart refits the nodes of part p: its leaves in ascending order,
// then its inner nodes in descending order (children before parents). One
// pass from the range's end took 1.4 times as long on one Zen 3 core:
// leaves in ascending order read their slots and write their rows in
// ascending order.
func (b *BLAS) refitPart(p *refitPart) {
	if root := &b.nodes[p.root]; root.isLeaf() {
		b.refitLeaf(root)
		return
	}
	nodes := b.nodes[p.nodeLo:p.nodeHi]
	for k := range nodes {
		if n := &nodes[k]; n.isLeaf() {
			b.refitLeaf(n)
		}
	}
	// The union written out: refitInnerNode is beyond the inliner's
	// budget. (Both loops range over the part's nodes as a slice: indexed
	// by node number instead, with a call a node, a 10k update took up to
	// 1.1x as long.)
	for k := len(nodes) - 1; k >= 0; k-- {
		if n := &nodes[k]; !n.isLeaf() {
			n.bounds = b.nodes[n.first].bounds.Union(b.nodes[n.first+1].bounds)
		}
	}
	b.refitInnerNode(p.root)
}

// refitInnerNode refits b's node i from its children where it is an inner
// node (not a leaf, nor the empty tree's root: node 0 without children).
func (b *BLAS) refitInnerNode(i uint32) {
	if n := &b.nodes[i]; !n.isLeaf() && n.first != 0 {
		n.bounds = b.nodes[n.first].bounds.Union(b.nodes[n.first+1].bounds)
	}
}

// refitLeaf makes the triangles of leaf n's slots that are not finite
// inactiveTri, sets its bounds to the union of its active primitives'
// boxes and lays out its leaf rows' coordinates (where b has rows; an
// update does not change their primitive ids). Where leafRowsFast, a leaf
// of finite triangles gets its rows and bounds from one leafRowsAVX call:
// a 10k update 1.5x as fast as with triRefsSSE's bounds and the rows' Go
// loop.
func (b *BLAS) refitLeaf(n *node) {
	if b.rows != nil && leafRowsFast && n.count <= maxLeafCount &&
		leafRowsAVX(&b.tris[n.first], int(n.count), &b.rows[rowsPerSlot*n.first], &n.bounds) {
		return // rows and bounds in one pass
	}
	n.bounds = b.leafBounds(n.first, n.first+n.count)
	if b.rows != nil {
		b.putLeafRows(b.rows, int(n.first), int(n.count), false)
	}
}

// leafBounds returns the union of the boxes of the active primitives in
// slots [first, end), a leaf's, and makes the triangles there that are
// not finite inactiveTri. On amd64, for a leaf of triangles that are all
// finite, the boxes are triRefsSSE's folded by refBounds (Go's min and
// max bit for bit, finiteness checked on the way), four times as fast as
// the Go loop.
func (b *BLAS) leafBounds(first, end uint32) AABB {
	if b.typ != GeometryTriangles {
		bb := emptyAABB()
		for s := first; s < end; s++ {
			bb = bb.Union(b.slotBox(s))
		}
		return bb
	}
	if n := int(end - first); boundsAsm && n <= maxLeafCount {
		var refs [maxLeafCount]bref
		if triRefsSSE(&b.tris[first], n, 0, &refs[0]) == 0 {
			var bb binBox
			var cb centroids
			refBounds(&refs[0], n, &bb, &cb)
			return bb.aabb()
		}
	}
	bb := emptyAABB()
	for s := first; s < end; s++ {
		t := &b.tris[s]
		if !triFinite(t) {
			*t = inactiveTri
			continue
		}
		bb = bb.Union(triBounds(t))
	}
	return bb
}

// Update refits or rebuilds t in place for new instance descriptions
// ("Top-level acceleration structure updates"). t must have been built with
// BuildAllowUpdate and the number of instances may not change; everything
// else about an instance may. Invalid instances give the same errors as
// BuildTLAS, and leave t unchanged.
//
// Updating a TLAS is also how it catches up with updated or rebuilt
// bottom-level structures: their bounds are read again.
func (t *TLAS) Update(instances []Instance) error {
	prep, err := t.checkUpdate(instances)
	if err != nil {
		return err
	}
	defer prep.release()
	t.apply(prep)
	return nil
}

// UpdateInto is Update with a separate destination: it returns the updated
// structure and leaves t untouched.
func (t *TLAS) UpdateInto(instances []Instance) (*TLAS, error) {
	prep, err := t.checkUpdate(instances)
	if err != nil {
		return nil, err
	}
	defer prep.release()
	c := t.Clone()
	c.apply(prep)
	return c, nil
}

func (t *TLAS) checkUpdate(instances []Instance) (preparedInstances, error) {
	if t.flags&BuildAllowUpdate == 0 {
		return preparedInstances{}, errNoUpdate()
	}
	if len(instances) != len(t.instances) {
		return preparedInstances{}, inputErr("update", "NumDescs", "%d instances, the structure was built with %d (the instance count may not change)", len(instances), len(t.instances))
	}
	return prepareInstances(instances)
}

// apply makes t the structure over the prepared instances: a refit of
// the boxes its build made where the same instances are active, else a
// build.
func (t *TLAS) apply(prep preparedInstances) {
	t.instances = prep.instances // a new array, shared with nothing: no copy needed
	active := 0
	same := true
	for i := range t.instances {
		if prep.active(i) {
			active++
		}
	}
	if active != len(t.order) {
		same = false
	} else {
		for _, i := range t.order {
			if !prep.active(int(i)) {
				same = false
				break
			}
		}
	}
	if !same {
		t.build(&prep)
		return
	}
	if len(t.order) > 0 {
		refit(t.nodes, func(s uint32) AABB { return prep.boxes[t.order[s]] })
		refitWide(t.nodes, t.wide, t.wideSlots) // the cut the build made, as a BLAS's update keeps it
	}
	t.derive()
}

// slotBox returns the world bounds of the instance in leaf slot s.
func (t *TLAS) slotBox(s uint32) AABB {
	in := &t.instances[t.order[s]]
	return in.worldBox()
}
