package raypipe

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// TestSetHitInPlaceResetsEveryField: TraceRay's opaque path stores the hit
// straight into a HitObject (TLAS.IntersectTo) and sets the other fields
// one by one (setHitInPlace). Over a HitObject full of stale values it
// must give what a new HitObject literal gives, field for field; the field
// count makes a new field fail here until both know it.
func TestSetHitInPlaceResetsEveryField(t *testing.T) {
	if n := reflect.TypeOf(HitObject{}).NumField(); n != 11 {
		t.Fatalf("HitObject has %d fields; setHitInPlace and this test know 11", n)
	}
	quad := accel.TriangleGeometry([]vec.Vec3{{X: -1, Y: -1}, {X: 1, Y: -1}, {X: 1, Y: 1}, {X: -1, Y: 1}}, []uint32{0, 1, 2, 0, 2, 3})
	blas, err := accel.BuildBLAS([]accel.Geometry{quad}, 0)
	if err != nil {
		t.Fatal(err)
	}
	tlas, err := accel.BuildTLAS([]accel.Instance{{Transform: vec.Translate3x4(vec.V3(0, 0, 4)), InstanceMask: 0xff,
		InstanceContributionToHitGroupIndex: 3, BLAS: blas}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ray := accel.Ray{Origin: vec.V3(0.5, 0.25, 0), TMin: 0.5, Direction: vec.V3(0, 0, 1), TMax: 9}
	const flags = accel.RayFlagCullFrontFacingTriangles
	hit, ok := tlas.Intersect(ray, 0, 0xff)
	if !ok {
		t.Fatal("the ray misses the quad")
	}
	got := HitObject{kind: hitObjectMiss, hasRecord: false, hitKind: 9, flags: accel.RayFlagForceOpaque,
		ray: accel.Ray{TMax: 1}, tCur: 7, record: 77, attrType: TypeOf[int](), attr: attrBuf{1, 2, 3, 4}, time: 3}
	got.hit = hit
	got.setHitInPlace(ray, flags, 5, 2)
	want := HitObject{kind: hitObjectHit, hasRecord: true, hitKind: hit.HitKind(), flags: flags, ray: ray, tCur: hit.T,
		record: uint32(hitGroupIndex(5, 2, &hit)), hit: hit, attrType: builtinAttrType}
	attr := BuiltInTriangleIntersectionAttributes{Barycentrics: [2]float32{hit.U, hit.V}}
	want.attr.set(unsafe.Pointer(&attr), unsafe.Sizeof(attr))
	if got != want {
		t.Fatalf("setHitInPlace over stale fields: %+v, want %+v", got, want)
	}
}
