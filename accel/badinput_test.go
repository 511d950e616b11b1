package accel

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// hugeStrideMsg is what a VertexStride of math.MaxInt is refused for: past
// the range [0, 2^32) where int has 64 bits; on 32-bit platforms it is in
// range (2^31-1) and no multiple of the component size.
var hugeStrideMsg = map[bool]string{true: "out of range", false: "multiple"}[math.MaxInt > math.MaxUint32]

// Bad build input gives an *InputError that names the geometry or instance
// and the field ("Errors and bad input" in DESIGN.md; the spec leaves these
// cases undefined). Claimed counts are checked against the buffers before
// anything is allocated.
func TestBuildRejectsBadInput(t *testing.T) {
	pos, idx := grid(2, 1, vec.Vec3{})
	ok := func() Geometry { return TriangleGeometry(pos, idx) }
	nan := float32(math.NaN())
	geomCases := []struct {
		name         string
		geoms        func() []Geometry
		where, field string
		msg          string
	}{
		{"IndexCountNotMultipleOf3", func() []Geometry { g := ok(); g.Triangles.IndexCount = 5; return []Geometry{ok(), g} }, "geometry 1", "IndexCount", "multiple of 3"},
		{"VertexCountExceedsBuffer", func() []Geometry { g := ok(); g.Triangles.VertexCount = 10; return []Geometry{g} }, "geometry 0", "VertexBuffer", "need 120 bytes, have 108"},
		{"IndexCountExceedsBuffer", func() []Geometry { g := ok(); g.Triangles.IndexCount = 27; return []Geometry{g} }, "geometry 0", "IndexBuffer", "need 108 bytes"},
		{"IndexOutOfRange", func() []Geometry { g := TriangleGeometry(pos, []uint32{0, 1, 9}); return []Geometry{g} }, "geometry 0", "IndexBuffer", "index 9 (position 2) out of range (vertex count 9)"},
		{"NonIndexedVertexCountNotMultipleOf3", func() []Geometry { return []Geometry{TriangleGeometry(pos[:8], nil)} }, "geometry 0", "VertexCount", "not a multiple of 3"},
		{"NegativeVertexCount", func() []Geometry { g := ok(); g.Triangles.VertexCount = -1; return []Geometry{g} }, "geometry 0", "VertexCount", "out of range"},
		{"OddStride", func() []Geometry { g := ok(); g.Triangles.VertexStride = 13; return []Geometry{g} }, "geometry 0", "VertexStride", "multiple"},
		{"Float32StrideNotMultipleOf4", func() []Geometry { g := ok(); g.Triangles.VertexStride = 14; return []Geometry{g} }, "geometry 0", "VertexStride", "R32G32B32_FLOAT"},
		{"HugeStride", func() []Geometry { g := ok(); g.Triangles.VertexStride = math.MaxInt; return []Geometry{g} }, "geometry 0", "VertexStride", hugeStrideMsg},
		{"NegativeStride", func() []Geometry { g := ok(); g.Triangles.VertexStride = -12; return []Geometry{g} }, "geometry 0", "VertexStride", "out of range"},
		{"UnknownVertexFormat", func() []Geometry { g := ok(); g.Triangles.VertexFormat = 9; return []Geometry{g} }, "geometry 0", "VertexFormat", "unsupported"},
		{"UnknownIndexFormat", func() []Geometry { g := ok(); g.Triangles.IndexFormat = 7; return []Geometry{g} }, "geometry 0", "IndexFormat", "unsupported"},
		{"UnknownGeometryType", func() []Geometry { g := ok(); g.Type = 5; return []Geometry{g} }, "geometry 0", "Type", "unknown"},
		{"UnknownGeometryFlags", func() []Geometry { g := ok(); g.Flags = 0x10; return []Geometry{g} }, "geometry 0", "Flags", "unknown bits"},
		{"NonFiniteGeometryTransform", func() []Geometry {
			g := ok()
			xf := vec.Identity3x4
			xf[1][3] = nan
			g.Triangles.Transform = &xf
			return []Geometry{g}
		}, "geometry 0", "Transform", "not finite"},
		{"MixedTrianglesAndAABBs", func() []Geometry { return []Geometry{ok(), AABBGeometry([]AABB{{}})} }, "geometry 1", "Type", "mixes triangles and procedural AABBs"},
		{"AABBStrideNotMultipleOf4", func() []Geometry { g := AABBGeometry(make([]AABB, 2)); g.AABBs.Stride = 26; return []Geometry{g} }, "geometry 0", "AABBs.Stride", "multiple of 4"},
		{"AABBCountExceedsBuffer", func() []Geometry { g := AABBGeometry(make([]AABB, 2)); g.AABBs.Count = 3; return []Geometry{g} }, "geometry 0", "AABBs.Buffer", "need 72 bytes, have 48"},
		// Huge counts with small buffers must fail before allocating.
		{"HugeVertexCountSmallBuffer", func() []Geometry {
			g := ok()
			g.Triangles.VertexCount = 3 << 27
			g.Triangles.IndexFormat = IndexNone
			return []Geometry{g}
		}, "geometry 0", "VertexBuffer", "have 108"},
		{"HugeIndexCountSmallBuffer", func() []Geometry { g := ok(); g.Triangles.IndexCount = 3 << 27; return []Geometry{g} }, "geometry 0", "IndexBuffer", "have 96"},
		{"HugeAABBCountSmallBuffer", func() []Geometry { g := AABBGeometry(make([]AABB, 2)); g.AABBs.Count = 1 << 28; return []Geometry{g} }, "geometry 0", "AABBs.Buffer", "have 48"},
		{"CountBeyondLimit", func() []Geometry { g := AABBGeometry(make([]AABB, 2)); g.AABBs.Count = 1<<28 + 1; return []Geometry{g} }, "geometry 0", "AABBs.Count", "out of range"},
	}
	for _, c := range geomCases {
		t.Run(c.name, func(t *testing.T) {
			geoms := c.geoms()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := BuildBLAS(geoms, 0)
			runtime.ReadMemStats(&after)
			wantInputError(t, err, c.where, c.field, c.msg)
			if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
				t.Fatalf("allocated %d bytes before failing", d)
			}
		})
	}
	b := mustBLAS(t, []Geometry{ok()}, 0)
	good := Instance{Transform: vec.Identity3x4, InstanceMask: 1, BLAS: b}
	instCases := []struct {
		name       string
		edit       func(*Instance)
		field, msg string
	}{
		{"NaNTransform", func(in *Instance) { in.Transform[0][0] = nan }, "Transform", "not finite"},
		{"InfTransform", func(in *Instance) { in.Transform[2][3] = float32(math.Inf(-1)) }, "Transform", "not finite"},
		{"SingularTransform", func(in *Instance) { in.Transform = vec.Scale3x4(vec.V3(1, 0, 1)) }, "Transform", "singular"},
		{"InstanceIDOverflows24Bits", func(in *Instance) { in.InstanceID = 1 << 24 }, "InstanceID", "24 bits"},
		{"ContributionOverflows24Bits", func(in *Instance) { in.InstanceContributionToHitGroupIndex = 0x1000000 }, "InstanceContributionToHitGroupIndex", "24 bits"},
		{"UnknownInstanceFlags", func(in *Instance) { in.Flags = 0x10 }, "Flags", "unknown bits"},
		{"ForceOpaqueAndNonOpaque", func(in *Instance) { in.Flags = InstanceForceOpaque | InstanceForceNonOpaque }, "Flags", "mutually exclusive"},
	}
	for _, c := range instCases {
		t.Run(c.name, func(t *testing.T) {
			insts := []Instance{good, good, good}
			c.edit(&insts[2])
			_, err := BuildTLAS(insts, 0)
			wantInputError(t, err, "instance 2", c.field, c.msg)
		})
	}
	// The maximal 24-bit values are fine, and a singular transform is
	// allowed on an instance without a BLAS (it is inactive anyway).
	edge := []Instance{good, {Transform: vec.Mat3x4{}, InstanceMask: 1}}
	edge[0].InstanceID, edge[0].InstanceContributionToHitGroupIndex = 1<<24-1, 1<<24-1
	if _, err := BuildTLAS(edge, 0); err != nil {
		t.Fatal(err)
	}
	for _, f := range []BuildFlags{BuildPerformUpdate, 0x4000, BuildPreferFastTrace | BuildPreferFastBuild} {
		_, err := BuildBLAS([]Geometry{ok()}, f)
		wantInputError(t, err, "build flags", "", "")
	}
}

// A large index buffer is checked in parallel chunks; the error must
// still name the first index out of range, whichever chunk holds it and
// whatever the later ones hold, for 32-bit indices (the common fetch) and
// 16-bit ones (the general one), on one goroutine and several.
func TestBuildNamesFirstIndexOutOfRange(t *testing.T) {
	const tris = 200_000 // several chunks of workGrain
	pos := make([]vec.Vec3, 9)
	for i := range pos {
		pos[i] = vec.V3(float32(i), float32(i*i%7), 1)
	}
	idx := make([]uint32, 3*tris)
	for i := range idx {
		idx[i] = uint32(i % 9)
	}
	idx[3*tris-1] = 1000 // in the last chunk
	idx[310_001] = 77    // the first, in a middle chunk
	idx[450_000] = 9     // between them
	wide := TriangleGeometry(pos, idx)
	narrow := wide
	ib := make([]byte, 2*len(idx))
	for i, x := range idx {
		ib[2*i], ib[2*i+1] = byte(x), byte(x>>8)
	}
	narrow.Triangles.IndexBuffer, narrow.Triangles.IndexFormat = ib, IndexUint16
	const want = "index 77 (position 310001) out of range (vertex count 9)"
	for _, procs := range []int{1, 3} {
		old := runtime.GOMAXPROCS(procs)
		for name, g := range map[string]Geometry{"uint32": wide, "uint16": narrow} {
			_, err := BuildBLAS([]Geometry{g}, BuildPreferFastTrace)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("GOMAXPROCS %d, %s indices: error %v, want one containing %q", procs, name, err, want)
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// Instances are checked in parallel chunks; of several bad ones the error
// names the first by index, whatever GOMAXPROCS cuts the chunks into, in
// a build and in an update alike.
func TestBadInstancesNamesTheFirst(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	b := mustBLAS(t, []Geometry{TriangleGeometry([]vec.Vec3{{}, {X: 1}, {Y: 1}}, nil)}, 0)
	insts := make([]Instance, 20000)
	for i := range insts {
		insts[i] = Instance{Transform: vec.Identity3x4, InstanceMask: 1, BLAS: b}
	}
	tl, err := BuildTLAS(insts, BuildAllowUpdate)
	if err != nil {
		t.Fatal(err)
	}
	insts[17000].InstanceID = 1 << 24
	insts[4100].Transform[1][1] = float32(math.NaN())
	insts[9000].Flags = 0x20
	for _, procs := range []int{1, 2, 7} {
		runtime.GOMAXPROCS(procs)
		_, err := BuildTLAS(insts, 0)
		wantInputError(t, err, "instance 4100", "Transform", "not finite")
		wantInputError(t, tl.Update(insts), "instance 4100", "Transform", "not finite")
	}
}

// Geometry.SetPositions writes the positions as TriangleGeometry lays them
// out, and refuses, writing nothing, a geometry it cannot write them into
// or another count of vertices, with an *InputError naming the field.
func TestSetPositionsWritesTriangleGeometrysLayoutOrRefuses(t *testing.T) {
	pos := []vec.Vec3{{X: 1, Y: 2, Z: 3}, {X: -4, Y: 5.5, Z: 0}, {X: 7, Y: -8, Z: 9.25}, {X: 0.5}}
	moved := []vec.Vec3{{X: 2}, {Y: -1, Z: 3}, {X: 1e-3, Y: 1e3, Z: -7}, {X: 9, Y: 9, Z: 9}}
	g := TriangleGeometry(pos, []uint32{0, 1, 2, 0, 2, 3})
	if err := g.SetPositions(moved); err != nil {
		t.Fatal(err)
	}
	if want := TriangleGeometry(moved, nil).Triangles.VertexBuffer; string(g.Triangles.VertexBuffer) != string(want) {
		t.Fatalf("vertex buffer % x, want % x", g.Triangles.VertexBuffer, want)
	}
	boxes := Geometry{Type: GeometryProceduralAABBs}
	strided := TriangleGeometry(pos, nil)
	strided.Triangles.VertexStride = 16
	half := TriangleGeometry(pos, nil)
	half.Triangles.VertexFormat = FormatR16G16B16A16Float
	for _, c := range []struct {
		name  string
		g     *Geometry
		pos   []vec.Vec3
		field string
	}{
		{"boxes", &boxes, moved, "Type"},
		{"stride 16", &strided, moved, "VertexFormat"},
		{"half floats", &half, moved, "VertexFormat"},
		{"a vertex fewer", &g, moved[1:], "positions"},
		{"a vertex more", &g, append(moved, vec.Vec3{}), "positions"},
	} {
		before := string(c.g.Triangles.VertexBuffer)
		err := c.g.SetPositions(c.pos)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Field != c.field || !strings.Contains(err.Error(), "SetPositions") {
			t.Errorf("%s: error %v, want an *InputError on %s", c.name, err, c.field)
		}
		if string(c.g.Triangles.VertexBuffer) != before {
			t.Errorf("%s: the vertex buffer changed", c.name)
		}
	}
}
