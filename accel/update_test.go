package accel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/raypipe/raypipe/vec"
)

// "Bottom-level acceleration structure updates": vertex positions and the
// transform values may change; a refit must find the same hits as a fresh
// build of the moved geometry (checked against the brute-force oracle).
func TestUpdateBLASRefitMatchesFreshBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	geoms := soupGeoms(rng, 3, 400)
	b := mustBLAS(t, geoms, BuildAllowUpdate)
	orig := b.Clone()
	rays := randRays(rng, 1000, 2)

	// Refit with unchanged input reproduces the node array exactly.
	if err := b.Update(geoms); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.nodes, orig.nodes) {
		t.Fatal("an update with unchanged input changed the nodes")
	}

	moved := make([]Geometry, len(geoms))
	for i := range geoms {
		moved[i] = jitter(rng, geoms[i], 0.2)
	}
	xf := randomRotation(rng)
	moved[1].Triangles.Transform = &xf
	moved[0].Triangles.VertexStride = 0 // the stride may change too (0: packed, same as 12)

	into, err := b.UpdateInto(moved)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.nodes, orig.nodes) || !slices.Equal(b.tris, orig.tris) {
		t.Fatal("UpdateInto changed its source")
	}
	if err := b.Update(moved); err != nil {
		t.Fatal(err)
	}
	fresh := mustBLAS(t, moved, 0)
	for _, s := range []*BLAS{b, into} {
		if err := s.checkInvariants(); err != nil {
			t.Fatal(err)
		}
		if len(s.nodes) != len(orig.nodes) || !slices.Equal(s.primIndex, orig.primIndex) {
			t.Fatal("the refit changed the topology")
		}
		if h := oracleBLAS(t, s, rays); h < 100 {
			t.Fatalf("only %d hits", h)
		}
	}
	for i, r := range rays {
		g, gok := b.Intersect(r, 0)
		f, fok := fresh.Intersect(r, 0)
		if gok != fok || gok && (g.T != f.T || g.PrimitiveIndex != f.PrimitiveIndex || g.GeometryIndex != f.GeometryIndex) {
			t.Fatalf("ray %d: refit %v %+v, fresh build %v %+v", i, gok, g, fok, f)
		}
	}
	// The untouched source still traces the original geometry.
	oracleBLAS(t, orig, rays)
}

func TestUpdateProceduralBLASRefit(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	// One part of the refit, and several refit in parallel (refitPlan).
	for _, n := range []int{500, 12000} {
		boxes := randomBoxes(rng, n)
		b := mustBLAS(t, []Geometry{AABBGeometry(boxes)}, BuildAllowUpdate)
		for i := range boxes {
			d := randVec(rng, 0.3)
			boxes[i] = AABB{boxes[i].Min.Add(d), boxes[i].Max.Add(d)}
		}
		g := AABBGeometry(boxes)
		if err := b.Update([]Geometry{g}); err != nil {
			t.Fatal(err)
		}
		if err := b.checkInvariants(); err != nil {
			t.Fatal(err)
		}
		if parts := len(b.plan.parts); (n > refitGrain) != (parts > 1) {
			t.Fatalf("%d boxes refit in %d parts", n, parts)
		}
		fresh := mustBLAS(t, []Geometry{g}, 0)
		for i, r := range randRays(rng, 500, 2) {
			got, want := candidateSet(b, r), candidateSet(fresh, r)
			if !slices.Equal(got, want) {
				t.Fatalf("%d boxes, ray %d: refit candidates %v, fresh build %v", n, i, got, want)
			}
		}
	}
}

// candidateSet returns the sorted primitive indices of every procedural
// candidate along r.
func candidateSet(b *BLAS, r Ray) []uint32 {
	var out []uint32
	var tr Traversal
	tr.BeginBLAS(b, r, 0)
	for tr.Next() {
		out = append(out, tr.Candidate().PrimitiveIndex)
	}
	slices.Sort(out)
	return out
}

// "Top-level acceleration structure updates": every instance may be
// redefined (transform, ID, mask, contribution, flags, BLAS); only the
// count is fixed. The TLAS also catches up with updated BLASes.
func TestUpdateTLASRefitMatchesOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	var blases []*BLAS
	var geoms [][]Geometry
	for i := 0; i < 3; i++ {
		g := soupGeoms(rng, 2, 150)
		geoms = append(geoms, g)
		blases = append(blases, mustBLAS(t, g, BuildAllowUpdate))
	}
	var insts []Instance
	for i := 0; i < 10; i++ {
		insts = append(insts, Instance{Transform: randomRotation(rng), InstanceID: uint32(i), InstanceMask: 0xff, BLAS: blases[i%3]})
	}
	tl := mustTLAS(t, insts, BuildAllowUpdate)
	rays := randRays(rng, 800, 4)
	oracleTLAS(t, tl, insts, rays)

	// Move the BLASes, then the instances (same active set: a refit).
	for i, b := range blases {
		moved := []Geometry{jitter(rng, geoms[i][0], 0.1), jitter(rng, geoms[i][1], 0.1)}
		if err := b.Update(moved); err != nil {
			t.Fatal(err)
		}
	}
	for i := range insts {
		insts[i].Transform = randomRotation(rng)
		insts[i].InstanceID = uint32(100 + i)
		insts[i].InstanceContributionToHitGroupIndex = uint32(i)
		insts[i].BLAS = blases[(i+1)%3]
	}
	nodesBefore := len(tl.nodes)
	into, err := tl.UpdateInto(insts)
	if err != nil {
		t.Fatal(err)
	}
	if err := tl.Update(insts); err != nil {
		t.Fatal(err)
	}
	if len(tl.nodes) != nodesBefore {
		t.Fatal("a refit changed the topology")
	}
	for _, s := range []*TLAS{tl, into} {
		if err := s.checkInvariants(); err != nil {
			t.Fatal(err)
		}
		if h := oracleTLAS(t, s, insts, rays); h < 100 {
			t.Fatalf("only %d hits", h)
		}
		for i := range insts {
			if got := s.Instance(i); got != insts[i] {
				t.Fatalf("instance %d: %+v, want %+v", i, got, insts[i])
			}
		}
	}

	// Instances becoming inactive and active again (nil BLAS, mask 0).
	insts[2].BLAS = nil
	insts[5].InstanceMask = 0
	if err := tl.Update(insts); err != nil {
		t.Fatal(err)
	}
	if err := tl.checkInvariants(); err != nil {
		t.Fatal(err)
	}
	oracleTLAS(t, tl, insts, rays)
	// As many active instances, but not the same ones: a build, not a
	// refit of the tree over the instances active before.
	insts[2].BLAS, insts[7].BLAS = blases[0], nil
	if err := tl.Update(insts); err != nil {
		t.Fatal(err)
	}
	if err := tl.checkInvariants(); err != nil {
		t.Fatal(err)
	}
	oracleTLAS(t, tl, insts, rays)
	insts[7].BLAS, insts[5].InstanceMask = blases[0], 0x0f
	if err := tl.Update(insts); err != nil {
		t.Fatal(err)
	}
	oracleTLAS(t, tl, insts, rays)
}

// Update constraints: "Nothing else can change, so note that in particular
// this means no changes to properties like the number of geometries,
// VertexCount, or AABBs, geometry flags, data formats, index buffer contents
// and so on."
func TestUpdateConstraintsBottomLevel(t *testing.T) {
	pos, idx := grid(4, 1, vec.Vec3{})
	base := func() []Geometry {
		g := TriangleGeometry(pos, idx)
		xf := vec.Identity3x4
		g.Triangles.Transform = &xf
		return []Geometry{g, TriangleGeometry(pos[:24], nil)}
	}
	b := mustBLAS(t, base(), BuildAllowUpdate)
	aabbs := mustBLAS(t, []Geometry{AABBGeometry(randomBoxes(rand.New(rand.NewPCG(1, 2)), 8))}, BuildAllowUpdate)
	cases := []struct {
		name         string
		blas         *BLAS
		edit         func([]Geometry) []Geometry
		where, field string
		msg          string
	}{
		{"IndexBufferMayNotChange", b, func(g []Geometry) []Geometry {
			ib := append([]byte(nil), g[0].Triangles.IndexBuffer...)
			ib[0], ib[4] = ib[4], ib[0]
			g[0].Triangles.IndexBuffer = ib
			return g
		}, "geometry 0", "IndexBuffer", "may not change"},
		{"VertexCountMayNotChange", b, func(g []Geometry) []Geometry { g[0].Triangles.VertexCount--; return g }, "geometry 0", "VertexCount", "built with 25"},
		{"IndexCountMayNotChange", b, func(g []Geometry) []Geometry { g[0].Triangles.IndexCount -= 3; return g }, "geometry 0", "IndexCount", "built with"},
		{"VertexFormatMayNotChange", b, func(g []Geometry) []Geometry { g[0].Triangles.VertexFormat = FormatR32G32Float; return g }, "geometry 0", "VertexFormat", "R32G32B32_FLOAT"},
		{"IndexFormatMayNotChange", b, func(g []Geometry) []Geometry { g[1].Triangles.IndexFormat = IndexUint16; return g }, "geometry 1", "IndexFormat", "built with"},
		{"TransformMayNotBecomeNil", b, func(g []Geometry) []Geometry { g[0].Triangles.Transform = nil; return g }, "geometry 0", "Transform", "nil and non-nil"},
		{"TransformMayNotBecomeNonNil", b, func(g []Geometry) []Geometry { xf := vec.Identity3x4; g[1].Triangles.Transform = &xf; return g }, "geometry 1", "Transform", "identity"},
		{"GeometryFlagsMayNotChange", b, func(g []Geometry) []Geometry { g[1].Flags = 0; return g }, "geometry 1", "Flags", "may not change"},
		{"GeometryCountMayNotChange", b, func(g []Geometry) []Geometry { return g[:1] }, "update", "NumDescs", "built with 2"},
		{"GeometryTypeMayNotChange", b, func(g []Geometry) []Geometry { g[1] = AABBGeometry(nil); return g }, "geometry 1", "Type", "built as"},
		{"AABBCountMayNotChange", aabbs, func(g []Geometry) []Geometry {
			return []Geometry{AABBGeometry(randomBoxes(rand.New(rand.NewPCG(1, 2)), 9))}
		}, "geometry 0", "AABBs.Count", "built with 8"},
		{"NewDataIsValidated", b, func(g []Geometry) []Geometry {
			xf := vec.Mat3x4{{float32(math.NaN())}}
			g[0].Triangles.Transform = &xf
			return g
		}, "geometry 0", "Transform", "not finite"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := c.blas.Clone()
			err := c.blas.Update(c.edit(base()))
			wantInputError(t, err, c.where, c.field, c.msg)
			_, err = c.blas.UpdateInto(c.edit(base()))
			wantInputError(t, err, c.where, c.field, c.msg)
			if !slices.Equal(before.nodes, c.blas.nodes) {
				t.Fatal("a rejected update changed the structure")
			}
		})
	}
}

func TestUpdateRequiresAllowUpdate(t *testing.T) {
	pos, idx := grid(2, 1, vec.Vec3{})
	g := []Geometry{TriangleGeometry(pos, idx)}
	b := mustBLAS(t, g, BuildAllowCompaction)
	wantInputError(t, b.Update(g), "update", "Flags", "BuildAllowUpdate")
	_, err := b.UpdateInto(g)
	wantInputError(t, err, "update", "Flags", "BuildAllowUpdate")
	in := []Instance{{Transform: vec.Identity3x4, InstanceMask: 1, BLAS: b}}
	tl := mustTLAS(t, in, 0)
	wantInputError(t, tl.Update(in), "update", "Flags", "BuildAllowUpdate")
	_, err = tl.UpdateInto(in)
	wantInputError(t, err, "update", "Flags", "BuildAllowUpdate")
}

func TestUpdateConstraintInstanceCountMayNotChange(t *testing.T) {
	pos, idx := grid(2, 1, vec.Vec3{})
	b := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, 0)
	in := []Instance{{Transform: vec.Identity3x4, InstanceMask: 1, BLAS: b}, {Transform: vec.Identity3x4, InstanceMask: 1, BLAS: b}}
	tl := mustTLAS(t, in, BuildAllowUpdate)
	wantInputError(t, tl.Update(in[:1]), "update", "NumDescs", "may not change")
	bad := slices.Clone(in)
	bad[1].InstanceID = 1 << 24
	wantInputError(t, tl.Update(bad), "instance 1", "InstanceID", "24 bits")
	bad[1].InstanceID = 0
	bad[1].Transform = vec.Mat3x4{}
	wantInputError(t, tl.Update(bad), "instance 1", "Transform", "singular")
}

// A primitive active at build that becomes inactive in an update (NaN
// vertex x, NaN AABB min x) is never hit and keeps everyone's indices; a
// later update can make it active again.
func TestUpdatePrimitiveBecomesInactiveAndBack(t *testing.T) {
	pos, idx := grid(4, 1, vec.Vec3{})
	b := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, BuildAllowUpdate)
	nan := float32(math.NaN())
	moved := slices.Clone(pos)
	moved[6].X = nan // vertex 6 = (1,1): shared by several triangles
	if err := b.Update([]Geometry{TriangleGeometry(moved, idx)}); err != nil {
		t.Fatal(err)
	}
	if err := b.checkInvariants(); err != nil {
		t.Fatal(err)
	}
	uses := func(p int) bool { return idx[3*p] == 6 || idx[3*p+1] == 6 || idx[3*p+2] == 6 }
	fresh := mustBLAS(t, []Geometry{TriangleGeometry(moved, idx)}, 0)
	rng := rand.New(rand.NewPCG(3, 3))
	hits := 0
	for i := 0; i < 2000; i++ {
		o := vec.V3(float32(rng.Float64()*4), float32(rng.Float64()*4), 1)
		r := Ray{Origin: o, Direction: vec.V3(0, 0, -1), TMax: 10}
		h, ok := b.Intersect(r, 0)
		f, fok := fresh.Intersect(r, 0)
		if ok != fok || ok && (h.PrimitiveIndex != f.PrimitiveIndex || h.T != f.T) {
			t.Fatalf("ray %v: update %v %+v, fresh build %v %+v", o, ok, h, fok, f)
		}
		if ok {
			hits++
			if uses(int(h.PrimitiveIndex)) {
				t.Fatalf("hit inactive primitive %d", h.PrimitiveIndex)
			}
		}
	}
	if hits < 1000 {
		t.Fatalf("%d hits", hits)
	}
	if err := b.Update([]Geometry{TriangleGeometry(pos, idx)}); err != nil {
		t.Fatal(err)
	}
	if h, ok := b.Intersect(Ray{Origin: vec.V3(1.1, 1.05, 1), Direction: vec.V3(0, 0, -1), TMax: 10}, 0); !ok || !uses(int(h.PrimitiveIndex)) {
		t.Fatalf("reactivated primitive not hit: %v %+v", ok, h)
	}

	// Procedural: box 1 goes inactive, box 0 and 2 keep their indices.
	boxes := []AABB{{vec.V3(0, 0, 0), vec.V3(1, 1, 1)}, {vec.V3(0, 0, 2), vec.V3(1, 1, 3)}, {vec.V3(0, 0, 4), vec.V3(1, 1, 5)}}
	pb := mustBLAS(t, []Geometry{AABBGeometry(boxes)}, BuildAllowUpdate)
	boxes[1].Min.X = nan
	if err := pb.Update([]Geometry{AABBGeometry(boxes)}); err != nil {
		t.Fatal(err)
	}
	r := Ray{Origin: vec.V3(0.5, 0.5, -1), Direction: vec.V3(0, 0, 1), TMax: 100}
	if got := candidateSet(pb, r); !slices.Equal(got, []uint32{0, 2}) {
		t.Fatalf("candidates %v, want [0 2]", got)
	}
}

// A primitive inactive at build stays inactive: it has no place in the
// topology, so an update that would activate it is an error.
func TestUpdateInactiveAtBuildStaysInactive(t *testing.T) {
	pos, idx := grid(2, 1, vec.Vec3{})
	bad := slices.Clone(pos)
	bad[0].X = float32(math.NaN())
	b := mustBLAS(t, []Geometry{TriangleGeometry(bad, idx)}, BuildAllowUpdate)
	err := b.Update([]Geometry{TriangleGeometry(pos, idx)})
	wantInputError(t, err, "geometry 0", "VertexBuffer", "primitive 0 was inactive")
	boxes := []AABB{{vec.V3(float32(math.NaN()), 0, 0), vec.V3(1, 1, 1)}, {vec.V3(0, 0, 2), vec.V3(1, 1, 3)}}
	pb := mustBLAS(t, []Geometry{AABBGeometry(boxes)}, BuildAllowUpdate)
	boxes[0].Min.X = 0
	wantInputError(t, pb.Update([]Geometry{AABBGeometry(boxes)}), "geometry 0", "AABBs.Buffer", "primitive 0 was inactive")
}

// An update keeps the tree's topology, binary and wide, and refits its
// bounds to the new primitives: each leaf the union of its active
// triangles' boxes, each inner node (binary or wide) the union of its
// children's, whatever the chunks the refit ran in; the leaf rows are laid
// out as leafRows lays them out. It is written into the memory the
// structure had, and it serializes and deserializes to itself, its wide
// nodes included. The expectation here is computed serially from the
// input: a recursive refit of each tree, and leafRows on a fresh copy.
func TestUpdateKeepsTheTreesAndRefitsTheirBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	pos, idx := randomSoup(rng, 70000, 0.02) // several of the refit's chunks
	gpos, gidx := grid(190, 0.01, vec.Vec3{})
	spos, sidx := grid(50, 0.01, vec.Vec3{})
	cases := []struct {
		name     string
		geoms    []Geometry
		straight bool // fetched straight into the slots (slotsFollowPrimitives)
		whole    bool // refit as one part, as a tree laid out otherwise than by the builders
	}{
		{"one geometry, decoded and gathered", []Geometry{TriangleGeometry(pos, idx)}, false, false},
		{"one geometry, fetched straight", []Geometry{TriangleGeometry(gpos, gidx)}, true, false},
		{"three geometries", soupGeoms(rng, 3, 3000), false, false},
		{"one geometry, refit as one part", []Geometry{TriangleGeometry(gpos, gidx)}, true, true},
		// Below updateHoldMin: the parts one after the other.
		{"one geometry, small", []Geometry{TriangleGeometry(spos, sidx)}, true, false},
	}
	for _, c := range cases {
		// The leaf rows and leaf boxes of the assembly layout
		// (leafRowsAVX) where there is one, and of the Go loops.
		for _, fast := range slices.Compact([]bool{leafRowsFast, false}) {
			testRefit(t, c.name+layoutName(fast), c.geoms, c.straight, c.whole, fast, rng)
		}
	}
}

func layoutName(fast bool) string {
	if fast {
		return ", assembly leaf rows"
	}
	return ", Go leaf rows"
}

// testRefit builds geoms for update, moves them (some triangles made
// inactive) and checks that Update refits in place: the slots, the binary
// nodes and the wide ones, the leaf rows, each against its own
// computation from the moved geometry. whole refits the tree as one part
// (wholeTree), else in the parts planRefit cuts; fast sets leafRowsFast.
func testRefit(t *testing.T, name string, geoms []Geometry, straight, whole, fast bool, rng *rand.Rand) {
	t.Run(name, func(t *testing.T) {
		defer func(was bool) { leafRowsFast = was }(leafRowsFast)
		leafRowsFast = fast
		b := mustBLAS(t, geoms, BuildAllowUpdate|BuildPreferFastTrace)
		if in, err := b.checkUpdate(geoms); err != nil || (in.sole != nil) != straight {
			t.Fatalf("fetched straight: %v, want %v (%v)", in.sole != nil, straight, err)
		} else {
			in.release()
		}
		rows, tris := unsafe.SliceData(b.rows), unsafe.SliceData(b.tris)
		if whole {
			b.plan = wholeTree(b.nodes, uint32(len(b.primGeom)))
		}
		built := b.Clone()
		moved := make([]Geometry, len(geoms))
		for i := range geoms {
			moved[i] = jitter(rng, geoms[i], 0.05)
			// Half the space stretched along x: surface areas change
			// enough that the cut a new plan would make is another.
			vb := moved[i].Triangles.VertexBuffer
			for v := 0; v+12 <= len(vb); v += 12 {
				if x := math.Float32frombits(le32(vb[v:])); x > 0 {
					putLe32(vb[v:], math.Float32bits(40*x))
				}
			}
		}
		// A few triangles go inactive: a NaN or an infinite coordinate.
		vb := moved[0].Triangles.VertexBuffer
		putLe32(vb[12*5:], math.Float32bits(float32(math.NaN())))
		putLe32(vb[12*900+8:], math.Float32bits(float32(math.Inf(-1))))
		if err := b.Update(moved); err != nil {
			t.Fatal(err)
		}
		if parts := len(b.plan.parts); whole != (parts == 1) {
			t.Fatalf("refit in %d parts", parts)
		}

		want := &BLAS{typ: b.typ, geoms: b.geoms, primGeom: b.primGeom, primIndex: b.primIndex}
		want.nodes = slices.Clone(b.nodes)
		want.tris = make([]triVerts, len(b.tris))
		dec, err := decodeAll(moved, false)
		if err != nil {
			t.Fatal(err)
		}
		inactive := 0
		for s := range want.tris {
			tri := dec[b.primGeom[s]].tris[b.primIndex[s]]
			if !tri[0].IsFinite() || !tri[1].IsFinite() || !tri[2].IsFinite() {
				tri, inactive = inactiveTri, inactive+1
			}
			want.tris[s] = tri
		}
		if inactive < 2 && len(geoms) == 1 {
			t.Fatalf("%d inactive slots, want the two made so", inactive)
		}
		var refitBy func(n uint32) AABB
		refitBy = func(n uint32) AABB {
			nd := &want.nodes[n]
			bb := emptyAABB()
			if nd.isLeaf() {
				for s := nd.first; s < nd.first+nd.count; s++ {
					if tri := &want.tris[s]; tri[0].IsFinite() && tri[1].IsFinite() && tri[2].IsFinite() {
						bb = bb.Union(triBounds(tri))
					}
				}
			} else {
				bb = refitBy(nd.first).Union(refitBy(nd.first + 1))
			}
			nd.bounds = bb
			return bb
		}
		refitBy(0)
		leafRowsFast = false // the rows as the Go loop lays them out
		want.rows = want.leafRows()
		leafRowsFast = fast
		// The build's wide nodes, each slot's box the union of what
		// lies below it.
		want.wide = refittedWide(built.wide, func(s uint32) AABB {
			if tri := &want.tris[s]; tri[0].IsFinite() && tri[1].IsFinite() && tri[2].IsFinite() {
				return triBounds(tri)
			}
			return emptyAABB()
		})

		if !sameBytes(b.tris, want.tris) {
			t.Error("slots differ from the input's primitives")
		}
		if !sameBytes(b.nodes, want.nodes) {
			t.Error("nodes differ from the tree refitted")
		}
		if !sameBytes(b.wide, want.wide) {
			t.Error("wide nodes differ from the build's refitted")
		}
		if !sameBytes(b.rows, want.rows) {
			t.Error("leaf rows differ from leafRows of the refitted tree")
		}
		if unsafe.SliceData(b.rows) != rows || unsafe.SliceData(b.tris) != tris {
			t.Error("the update moved the slots or rows to new memory")
		}
		if sameBytes(widen(b.nodes), b.wide) {
			t.Fatal("a new plan would make the same cut: this case cannot tell a kept cut from a new one")
		}
		d, err := DeserializeBLAS(b.Serialize())
		if err != nil {
			t.Fatal(err)
		}
		if !sameBytes(d.wide, b.wide) || !sameBytes(d.wideSlots, b.wideSlots) || !sameBytes(d.rows, b.rows) {
			t.Error("the updated structure deserializes to other wide nodes or rows")
		}
	})
}

// sameBytes reports whether a and b hold the same bytes (NaNs included).
func sameBytes[E any](a, b []E) bool {
	if len(a) != len(b) {
		return false
	}
	size := int(unsafe.Sizeof(*new(E))) * len(a)
	return len(a) == 0 || slices.Equal(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a))), size),
		unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b))), size))
}

// A top-level update with the same active instances keeps the tree's
// topology too, binary and wide: each wide slot's box is the union of the
// instances' world boxes below it, the cut is the build's (a new plan
// would make another here), and the structure deserializes to itself.
func TestUpdateTLASKeepsTheWideCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	b := mustBLAS(t, soupGeoms(rng, 1, 50), 0)
	insts := make([]Instance, 3000)
	for i := range insts {
		m := vec.Identity3x4
		m[0][3], m[1][3], m[2][3] = float32(rng.Float64()*20), float32(rng.Float64()*20), float32(rng.Float64()*20)
		insts[i] = Instance{Transform: m, InstanceMask: 0xff, BLAS: b}
	}
	tl := mustTLAS(t, insts, BuildAllowUpdate)
	built := tl.Clone()
	for i := range insts {
		if x := insts[i].Transform[0][3]; x > 10 {
			insts[i].Transform[0][3] = 10 + 40*(x-10) // half the space stretched along x
		}
	}
	if err := tl.Update(insts); err != nil {
		t.Fatal(err)
	}
	want := refittedWide(built.wide, func(s uint32) AABB {
		in := &insts[tl.order[s]]
		return in.BLAS.Bounds().Transform(in.Transform)
	})
	if !sameBytes(tl.wide, want) {
		t.Error("wide nodes differ from the build's refitted")
	}
	if sameBytes(widen(tl.nodes), tl.wide) {
		t.Fatal("a new plan would make the same cut: this case cannot tell a kept cut from a new one")
	}
	d, err := DeserializeTLAS(tl.Serialize(), tl.BottomLevels())
	if err != nil {
		t.Fatal(err)
	}
	if !sameBytes(d.wide, tl.wide) || !sameBytes(d.wideSlots, tl.wideSlots) {
		t.Error("the updated top level deserializes to other wide nodes")
	}
	oracleTLAS(t, tl, insts, randRays(rng, 300, 20))
}

// refittedWide returns a copy of wide whose every slot's box is the union
// of what lies below it, leafBox giving each leaf slot's: the expectation
// of a refit that keeps the wide cut, computed recursively from the root.
func refittedWide(wide []wideNode, leafBox func(slot uint32) AABB) []wideNode {
	out := slices.Clone(wide)
	var refit func(w uint32) AABB
	refit = func(w uint32) AABB {
		nd := &out[w]
		all := emptyAABB()
		for k := range nd.n {
			bb := emptyAABB()
			if ref := nd.ref[k]; isLeafRef(ref) {
				first, end := leafRange(ref)
				for s := first; s < end; s++ {
					bb = bb.Union(leafBox(s))
				}
			} else {
				bb = refit(ref)
			}
			nd.set(int(k), &bb, nd.ref[k])
			all = all.Union(bb)
		}
		return all
	}
	refit(0)
	return out
}

// The straight fetch into the slots (one geometry whose slots follow its
// primitives) validates as decoding does before it writes anything: every
// broken input is an *InputError naming the field, and the structure is
// left as it was, by Update and UpdateInto alike.
func TestUpdateFetchedStraightRejectsBadInputUnchanged(t *testing.T) {
	pos, idx := grid(40, 0.05, vec.Vec3{})
	base := func() []Geometry {
		g := TriangleGeometry(pos, idx)
		xf := vec.Identity3x4
		g.Triangles.Transform = &xf
		return []Geometry{g}
	}
	b := mustBLAS(t, base(), BuildAllowUpdate)
	if in, err := b.checkUpdate(base()); err != nil || in.sole == nil {
		t.Fatalf("this case is not fetched straight (%v)", err)
	}
	cases := []struct {
		name, field, msg string
		edit             func(g *Triangles)
	}{
		{"IndexBufferChanged", "IndexBuffer", "may not change", func(g *Triangles) {
			ib := slices.Clone(g.IndexBuffer)
			ib[0], ib[4] = ib[4], ib[0]
			g.IndexBuffer = ib
		}},
		{"IndexOutOfRange", "IndexBuffer", "out of range", func(g *Triangles) {
			ib := slices.Clone(g.IndexBuffer)
			putLe32(ib[4*100:], uint32(g.VertexCount))
			g.IndexBuffer = ib
		}},
		{"VertexBufferShort", "VertexBuffer", "need", func(g *Triangles) { g.VertexBuffer = g.VertexBuffer[:len(g.VertexBuffer)-4] }},
		{"StrideNotAMultipleOf4", "VertexStride", "multiple", func(g *Triangles) { g.VertexStride = 14 }},
		{"TransformNotFinite", "Transform", "not finite", func(g *Triangles) {
			xf := vec.Identity3x4
			xf[1][3] = float32(math.Inf(1))
			g.Transform = &xf
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := b.Clone()
			g := base()
			c.edit(&g[0].Triangles)
			wantInputError(t, b.Update(g), "geometry 0", c.field, c.msg)
			_, err := b.UpdateInto(g)
			wantInputError(t, err, "geometry 0", c.field, c.msg)
			if !sameBytes(before.tris, b.tris) || !sameBytes(before.nodes, b.nodes) || !sameBytes(before.rows, b.rows) || !sameBytes(before.wide, b.wide) {
				t.Fatal("a rejected update changed the structure")
			}
		})
	}
}
