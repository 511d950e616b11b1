package accel

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// COPY_MODE_CLONE: "the destination is a self-contained match for the
// source"; self-references are fixed up and updating one does not affect
// the other.
func TestCopyModeCloneIsIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	geoms := soupGeoms(rng, 2, 200)
	b := mustBLAS(t, geoms, BuildAllowUpdate)
	c := b.Clone()
	rays := randRays(rng, 500, 2)
	for i, r := range rays {
		if !equalKeys(traceBLAS(b, r, 0), traceBLAS(c, r, 0)) {
			t.Fatalf("ray %d: clone traces differently", i)
		}
	}
	var tr Traversal
	for _, r := range rays {
		tr.BeginBLAS(c, r, 0)
		for tr.Next() {
		}
		if h := tr.Committed(); h.Kind != KindNone && h.BLAS() != c {
			t.Fatal("a hit in the clone reports the source BLAS")
		}
	}
	if bi, ci := b.PostBuildInfo(), c.PostBuildInfo(); bi != ci {
		t.Fatalf("clone size %+v, source %+v: COPY_MODE_CLONE keeps the size", ci, bi)
	}
	moved := []Geometry{jitter(rng, geoms[0], 0.3), jitter(rng, geoms[1], 0.3)}
	if err := c.Update(moved); err != nil {
		t.Fatal(err)
	}
	oracleBLAS(t, b, rays)
	oracleBLAS(t, c, rays)

	insts := []Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: b}, {Transform: randomRotation(rng), InstanceMask: 0xff, BLAS: c}}
	tl := mustTLAS(t, insts, BuildAllowUpdate)
	tc := tl.Clone()
	before := slices.Clone(insts)
	insts[0].Transform = randomRotation(rng)
	if err := tc.Update(insts); err != nil {
		t.Fatal(err)
	}
	if tl.Instance(0).Transform != vec.Identity3x4 {
		t.Fatal("updating a TLAS clone changed the source")
	}
	if !slices.Equal(tc.BottomLevels(), []*BLAS{b, c}) {
		t.Fatal("a TLAS clone must point at the same BLASes")
	}
	oracleTLAS(t, tc, insts, rays)
	// The source traces its own instances still, and the other way round.
	oracleTLAS(t, tl, before, rays)
	if err := tl.Update(insts); err != nil {
		t.Fatal(err)
	}
	insts[1].Transform = randomRotation(rng)
	if err := tl.Update(insts); err != nil {
		t.Fatal(err)
	}
	oracleTLAS(t, tl, insts, rays)
	before[0].Transform = tc.Instance(0).Transform
	oracleTLAS(t, tc, before, rays)
}

// COPY_MODE_COMPACT: "functionally equivalent ... a potentially smaller
// memory footprint (certainly no larger)", valid only with
// ALLOW_COMPACTION; post-build info reports the compacted size beforehand.
func TestCopyModeCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	geoms := soupGeoms(rng, 3, 300)
	plain := mustBLAS(t, geoms, 0)
	if _, err := plain.Compact(); err == nil {
		t.Fatal("Compact without BuildAllowCompaction must fail")
	} else {
		wantInputError(t, err, "compact", "Flags", "BuildAllowCompaction")
	}
	b := mustBLAS(t, geoms, BuildAllowCompaction|BuildAllowUpdate)
	info := b.PostBuildInfo()
	if info.CompactedSize > info.CurrentSize || info.CompactedSize == 0 {
		t.Fatalf("sizes %+v", info)
	}
	if info.CompactedSize == info.CurrentSize {
		t.Log("the build left no spare capacity")
	}
	c, err := b.Compact()
	if err != nil {
		t.Fatal(err)
	}
	ci := c.PostBuildInfo()
	if ci.CurrentSize != info.CompactedSize || ci.CompactedSize != ci.CurrentSize {
		t.Fatalf("compacted %+v, source said %d", ci, info.CompactedSize)
	}
	rays := randRays(rng, 500, 2)
	for i, r := range rays {
		if !equalKeys(traceBLAS(b, r, 0), traceBLAS(c, r, 0)) {
			t.Fatalf("ray %d: compacted copy traces differently", i)
		}
	}
	// A compacted structure built with ALLOW_UPDATE can still be updated.
	if err := c.Update([]Geometry{jitter(rng, geoms[0], 0.1), geoms[1], geoms[2]}); err != nil {
		t.Fatal(err)
	}
	insts := []Instance{{Transform: randomRotation(rng), InstanceMask: 0xff, BLAS: b}, {Transform: randomRotation(rng), InstanceMask: 0xff, BLAS: c}}
	if _, err := mustTLAS(t, insts, 0).Compact(); err == nil {
		t.Fatal("TLAS Compact without BuildAllowCompaction must fail")
	}
	tl := mustTLAS(t, insts, BuildAllowCompaction|BuildAllowUpdate)
	tc, err := tl.Compact()
	if err != nil {
		t.Fatal(err)
	}
	if tc.PostBuildInfo().CurrentSize != tl.PostBuildInfo().CompactedSize || tl.PostBuildInfo().CompactedSize > tl.PostBuildInfo().CurrentSize {
		t.Fatalf("TLAS sizes %+v %+v", tl.PostBuildInfo(), tc.PostBuildInfo())
	}
	oracleTLAS(t, tc, insts, rays)
	// The compacted copy is a structure of its own: updating the source
	// leaves it tracing the instances it was compacted with.
	moved := slices.Clone(insts)
	moved[0].Transform = randomRotation(rng)
	if err := tl.Update(moved); err != nil {
		t.Fatal(err)
	}
	oracleTLAS(t, tl, moved, rays)
	oracleTLAS(t, tc, insts, rays)
}

// POSTBUILD_INFO_SERIALIZATION: SerializedSizeInBytes is the exact size of
// the serialized data, and NumBottomLevelAccelerationStructurePointers is 0
// for a BLAS and the number of distinct referenced BLASes for a TLAS.
func TestPostBuildInfoSerializationSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	tri := mustBLAS(t, soupGeoms(rng, 2, 50), 0)
	box := mustBLAS(t, []Geometry{AABBGeometry(randomBoxes(rng, 40))}, 0)
	empty := mustBLAS(t, nil, 0)
	for _, b := range []*BLAS{tri, box, empty} {
		info := b.PostBuildInfo()
		if info.SerializedSize != uint64(len(b.Serialize())) || info.NumBottomLevelPointers != 0 {
			t.Fatalf("%+v, serialized %d bytes", info, len(b.Serialize()))
		}
	}
	insts := []Instance{{Transform: vec.Identity3x4, InstanceMask: 1, BLAS: box}, {Transform: vec.Identity3x4, BLAS: tri},
		{Transform: vec.Identity3x4, InstanceMask: 1, BLAS: box}, {Transform: vec.Identity3x4, InstanceMask: 1}, {Transform: vec.Identity3x4, InstanceMask: 1, BLAS: empty}}
	tl := mustTLAS(t, insts, 0)
	info := tl.PostBuildInfo()
	if info.SerializedSize != uint64(len(tl.Serialize())) || info.NumBottomLevelPointers != 3 {
		t.Fatalf("%+v, serialized %d bytes", info, len(tl.Serialize()))
	}
	if !slices.Equal(tl.BottomLevels(), []*BLAS{box, tri, empty}) {
		t.Fatal("BottomLevels must list distinct BLASes in first-use order")
	}
}

// COPY_MODE_VISUALIZATION_DECODE_FOR_TOOLS: geometries in the original
// order with the original flags; building them gives the same hits.
func TestCopyModeVisualization(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	geoms := soupGeoms(rng, 3, 200)
	b := mustBLAS(t, geoms, 0)
	vis := b.Visualize()
	if len(vis) != 3 || vis[2].Flags != geoms[2].Flags || vis[0].Flags != geoms[0].Flags {
		t.Fatal("visualization must keep geometry order and flags")
	}
	v := mustBLAS(t, vis, 0)
	for i, r := range randRays(rng, 500, 2) {
		g, gok := b.Intersect(r, 0)
		w, wok := v.Intersect(r, 0)
		if gok != wok || gok && (g.T != w.T || g.GeometryIndex != w.GeometryIndex || g.PrimitiveIndex != w.PrimitiveIndex || g.U != w.U || g.V != w.V) {
			t.Fatalf("ray %d: %v %+v vs visualization %v %+v", i, gok, g, wok, w)
		}
	}
	boxes := randomBoxes(rng, 10)
	boxes[3].Min.X = nanF()
	pb := mustBLAS(t, []Geometry{AABBGeometry(boxes)}, 0)
	pv := mustBLAS(t, pb.Visualize(), 0)
	if pv.PrimitiveCount(0) != 10 || pv.ActivePrimitives() != 9 {
		t.Fatal("visualization must keep inactive primitives' indices")
	}
	insts := []Instance{{Transform: vec.Identity3x4, InstanceID: 7, InstanceMask: 3, BLAS: b}}
	if got := mustTLAS(t, insts, 0).Visualize(); !slices.Equal(got, insts) {
		t.Fatalf("TLAS visualization %+v", got)
	}
}

// POSTBUILD_INFO_CURRENT_SIZE and _COMPACTED_SIZE count every array a
// structure holds: the sizes agree with the fixed part plus each slice
// field's capacity (length), found by reflection, so that an array added
// to BLAS or TLAS and left out of memSize fails here. (The TLAS's
// instance slots, 64 bytes an instance, were left out from 2026-11-25
// to 2026-11-29.) A BLAS's refit plan, a pointer, is counted apart
// (TestUpdateCountsItsPlanInCurrentSize); the test holds none.
func TestPostBuildInfoCountsEveryArray(t *testing.T) {
	rng := rand.New(rand.NewPCG(37, 38))
	b := mustBLAS(t, soupGeoms(rng, 2, 60), BuildAllowUpdate)
	box := mustBLAS(t, []Geometry{AABBGeometry(randomBoxes(rng, 30))}, 0)
	insts := []Instance{{Transform: randomRotation(rng), InstanceMask: 0xff, BLAS: b}, {Transform: randomRotation(rng), InstanceMask: 0xff, BLAS: box}}
	tl := mustTLAS(t, insts, BuildAllowUpdate)
	arrays := func(v reflect.Value, capacity bool) uint64 {
		n := uint64(v.Type().Size())
		for i := range v.NumField() {
			f := v.Field(i)
			if f.Kind() != reflect.Slice {
				continue
			}
			k := f.Len()
			if capacity {
				k = f.Cap()
			}
			n += uint64(k) * uint64(f.Type().Elem().Size())
		}
		return n
	}
	for _, c := range []struct {
		name string
		info PostBuildInfo
		v    reflect.Value
	}{{"BLAS", b.PostBuildInfo(), reflect.ValueOf(b).Elem()}, {"procedural BLAS", box.PostBuildInfo(), reflect.ValueOf(box).Elem()},
		{"TLAS", tl.PostBuildInfo(), reflect.ValueOf(tl).Elem()}} {
		if want := arrays(c.v, true); c.info.CurrentSize != want {
			t.Errorf("%s: CurrentSize %d, its fixed part and arrays' capacities take %d", c.name, c.info.CurrentSize, want)
		}
		if want := arrays(c.v, false); c.info.CompactedSize != want {
			t.Errorf("%s: CompactedSize %d, its fixed part and arrays' lengths take %d", c.name, c.info.CompactedSize, want)
		}
	}
}
