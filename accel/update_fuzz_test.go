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
				t.Transform, u.Triangles.Transform = &m, &m
				id := vec.Identity3x4
				g.Triangles.Transform = &id
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
// over the moved triangles, up to the triangle test's own t error between
// two hits that close (tError).
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
		insts := []Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: fresh}}
		rays := rand.New(rand.NewPCG(uint64(len(data)), 1))
		for i, r := range randRays(rays, 64, 2) {
			want, wok := bruteClosest(insts, r, 0xff)
			got, gok := b.Intersect(r, 0)
			if wok != gok || wok && (got.T < want.T || !hitsAt(fresh, r, got) ||
				float64(got.T-want.T) > tError(fresh, r, want)+tError(fresh, r, got)) {
				t.Fatalf("ray %d: update %v %+v, oracle %v %+v", i, gok, got, wok, want)
			}
		}
	})
}

// tError bounds how far the watertight test's computed t for h's
// triangle of b may lie from the exact one: 16 roundings of the largest
// of the vertices' distances along the ray's dominant axis (the test
// weighs them into t; see robustScale). The closest-hit walks may take a
// hit whose t is within the two hits' errors of the brute-force one's:
// fuzzed meshes repeat triangles and make slivers far longer than the
// ray's distance to them.
func tError(b *BLAS, r Ray, h Hit) float64 {
	var w watertightRay
	w.setup(r.Origin, r.Direction)
	o, d := [3]float32{r.Origin.X, r.Origin.Y, r.Origin.Z}, [3]float32{r.Direction.X, r.Direction.Y, r.Direction.Z}
	far := math.Abs(float64(h.T))
	for s := range b.tris {
		if b.primGeom[s] == h.GeometryIndex && b.primIndex[s] == h.PrimitiveIndex {
			for _, v := range b.tris[s] {
				c := [3]float32{v.X, v.Y, v.Z}
				far = max(far, math.Abs(float64(c[w.kz]-o[w.kz])/float64(d[w.kz])))
			}
		}
	}
	return 16 * 0x1p-24 * far
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
