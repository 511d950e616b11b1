package accel

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// fuzzMeshes makes, from data, the geometry a BLAS is built from and the
// geometry an update then gives it: one mesh of up to 64 triangles, a
// second one where the first byte's bit 0 says so (so that the update
// decodes and gathers instead of fetching straight into the slots);
// vertices from the data's float bits (NaNs and infinities included, so
// that some triangles are inactive at build or become so), the update's
// vertices from the data after them. The second byte's bits change the
// update's input the ways the spec rules out or that are bad anyway: an
// index, the vertex count, a stride that is not a multiple of 4, a
// vertex buffer too short, a non-finite transform.
func fuzzMeshes(data []byte) (built, moved []Geometry, flags BuildFlags) {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	float := func() float32 {
		var b [4]byte
		for i := range b {
			b[i] = next()
		}
		f := math.Float32frombits(binary.LittleEndian.Uint32(b[:]))
		if f == f && math.Abs(float64(f)) > 1e6 && math.Abs(float64(f)) <= math.MaxFloat32 {
			f = float32(math.Mod(float64(f), 100)) // mostly boxes a ray can meet
		}
		return f
	}
	shape, change := next(), next()
	flags = BuildAllowUpdate
	if shape&2 != 0 {
		flags |= BuildPreferFastTrace
	}
	meshes := 1 + int(shape&1)
	for m := 0; m < meshes; m++ {
		nv := 3 + int(next()%30)
		nt := 1 + int(next()%64)
		idx := make([]uint32, 3*nt)
		for i := range idx {
			idx[i] = uint32(next()) % uint32(nv)
		}
		pos := make([]vec.Vec3, nv)
		for i := range pos {
			pos[i] = vec.V3(float(), float(), float())
		}
		g := TriangleGeometry(pos, idx)
		for i := range pos {
			pos[i] = vec.V3(float(), float(), float())
		}
		u := TriangleGeometry(pos, idx)
		if m == 0 {
			t := &u.Triangles
			switch {
			case change&1 != 0:
				binary.LittleEndian.PutUint32(t.IndexBuffer[4*(int(change)%len(idx)):], uint32(int(change)%(nv+2)))
			case change&2 != 0:
				t.VertexCount--
			case change&4 != 0:
				t.VertexStride = 13
			case change&8 != 0:
				t.VertexBuffer = t.VertexBuffer[:len(t.VertexBuffer)-1]
			case change&16 != 0:
				m := vec.Identity3x4
				m[0][3] = float32(math.Inf(1))
				t.Transform = &m
				id := vec.Identity3x4
				g.Triangles.Transform = &id // built with one: only its values are bad
			}
		}
		built, moved = append(built, g), append(moved, u)
	}
	return built, moved, flags
}

// FuzzUpdate builds a BLAS for updates from fuzzed meshes and updates it
// to fuzzed vertices (and, now and then, to an input the update
// constraints rule out): Update never panics; it returns nil or an
// *InputError, and an error leaves the structure byte for byte as it was;
// an updated structure keeps its invariants, equals the update of its
// copy (UpdateInto), and answers every ray as the brute-force oracle does
// over the moved triangles, up to the triangle test's own rounding of t
// (closestAsOracle).
func FuzzUpdate(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 9))
	for i := range 24 {
		seed := make([]byte, 2+2*(3+64*3+2*30*12))
		for k := range seed {
			seed[k] = byte(rng.Uint32())
		}
		seed[0], seed[1] = byte(i%4), byte(1<<(i/4))>>1 // every shape, no change, then each change
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		built, moved, flags := fuzzMeshes(data)
		b, err := BuildBLAS(built, flags)
		if err != nil {
			t.Skip(err) // the build's own input checks are not the subject here
		}
		before := b.Serialize()
		c, cerr := b.UpdateInto(moved)
		if err := b.Update(moved); err != nil || cerr != nil {
			var ie, cie *InputError
			if err == nil || cerr == nil || !errors.As(err, &ie) || !errors.As(cerr, &cie) {
				t.Fatalf("Update: %v; UpdateInto: %v (want the same *InputError)", err, cerr)
			}
			if !sameSerialized(b.Serialize(), before) {
				t.Fatalf("a rejected update (%v) changed the structure", err)
			}
			return
		}
		if err := b.checkInvariants(); err != nil {
			t.Fatal(err)
		}
		if !sameSerialized(b.Serialize(), c.Serialize()) {
			t.Fatal("Update and UpdateInto disagree")
		}
		// The oracle over the moved triangles as a fresh build of them
		// holds them (the same slots' primitives; no BVH consulted).
		fresh, err := BuildBLAS(moved, flags&^BuildAllowUpdate)
		if err != nil {
			t.Fatalf("the moved meshes do not build: %v", err)
		}
		closestAsOracle(t, b, fresh, randRays(rand.New(rand.NewPCG(uint64(len(data)), 1)), 64, 2))
	})
}

// tError bounds how far the watertight test's computed t for h's
// triangle of b may lie from the exact one. The test weighs the vertices'
// distances along the ray's dominant axis, t_i, into t by its edge
// functions, which are all of one sign for a hit: so t lies between the
// smallest and the largest t_i, up to the roundings of the terms, 16 of
// the largest |t_i| (see robustScale). Within that span, the weights'
// own error is about a rounding times the projected triangle's condition
// (its longest edge squared over twice its area, in the plane the test
// projects onto): 8 of those times the span. The closest-hit walks may
// take a hit within the two hits' errors of the brute-force one: fuzzed
// meshes repeat triangles, and make slivers far longer than the ray's
// distance to them or seen edge on, whose computed t is that far off.
func tError(b *BLAS, r Ray, h Hit) float64 {
	const u = 0x1p-24
	var w watertightRay
	w.setup(r.Origin, r.Direction)
	o := [3]float64{float64(r.Origin.X), float64(r.Origin.Y), float64(r.Origin.Z)}
	d := [3]float64{float64(r.Direction.X), float64(r.Direction.Y), float64(r.Direction.Z)}
	for s := range b.tris {
		if b.primGeom[s] != h.GeometryIndex || b.primIndex[s] != h.PrimitiveIndex {
			continue
		}
		var ti, px, py [3]float64
		for k, v := range b.tris[s] {
			c := [3]float64{float64(v.X), float64(v.Y), float64(v.Z)}
			ti[k] = (c[w.kz] - o[w.kz]) / d[w.kz]
			px[k] = c[w.kx] - o[w.kx] - d[w.kx]*ti[k]
			py[k] = c[w.ky] - o[w.ky] - d[w.ky]*ti[k]
		}
		lo, hi := min(ti[0], ti[1], ti[2]), max(ti[0], ti[1], ti[2])
		far := max(math.Abs(lo), math.Abs(hi), math.Abs(float64(h.T)))
		area2 := math.Abs((px[1]-px[0])*(py[2]-py[0]) - (px[2]-px[0])*(py[1]-py[0]))
		edge2 := 0.0
		for k := range 3 {
			dx, dy := px[(k+1)%3]-px[k], py[(k+1)%3]-py[k]
			edge2 = max(edge2, dx*dx+dy*dy)
		}
		span := hi - lo
		if area2 > 0 {
			span = min(span, 8*u*edge2/area2*span)
		}
		return 16*u*far + span
	}
	return math.Inf(1)
}

// hitsAt reports whether h's primitive of b, tested alone with the
// watertight test, hits r at h's t with h's barycentrics: a closest hit
// tied or nearly tied with another primitive's is as right as the
// oracle's.
func hitsAt(b *BLAS, r Ray, h Hit) bool {
	var w watertightRay
	w.setup(r.Origin, r.Direction)
	for s := range b.tris {
		if b.primGeom[s] != h.GeometryIndex || b.primIndex[s] != h.PrimitiveIndex {
			continue
		}
		t, u, v, _, ok := w.intersect(&b.tris[s], r.TMin, math.Nextafter32(h.T, float32(math.Inf(1))))
		if ok && t == h.T && u == h.U && v == h.V {
			return true
		}
	}
	return false
}
