package accel

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// fuzzGeometry makes a triangle geometry description from data: its
// vertex and index formats (some unsupported), stride and counts (some
// inconsistent with the buffers), transform (none, fuzzed, or not
// finite), and the buffers' bytes, the vertex buffer placed at an offset
// of 0 to 3 bytes into its allocation as the data says (builds read
// word-aligned 32-bit vertices and indices in place, others with checked
// reads); and the build flags.
func fuzzGeometry(data []byte) (Geometry, BuildFlags, int) {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	head := [8]byte{}
	for i := range head {
		head[i] = next()
	}
	t := Triangles{
		VertexFormat: VertexFormat(head[0] % 5),
		IndexFormat:  IndexFormat(head[1] % 4),
		VertexCount:  int(head[2] % 40),
		IndexCount:   3*int(head[3]%40) + int(head[4]/252),
	}
	switch head[5] % 8 {
	case 0, 1, 2, 3:
		// tightly packed
	case 4:
		t.VertexStride = t.VertexFormat.Size() + 4
	case 5:
		t.VertexStride = 16
	case 6:
		t.VertexStride = 6
	default:
		t.VertexStride = -4
	}
	switch head[6] % 8 {
	case 0:
		m := vec.Mat3x4{{0.5, 0.1, 0, 1}, {0, 1, 0.2, -1}, {0.3, 0, 2, 0}}
		t.Transform = &m
	case 1:
		m := vec.Identity3x4
		m[1][1] = float32(math.NaN())
		t.Transform = &m
	}
	offset := int(head[7] % 4)
	bad := head[4] % 8 // 1: a vertex buffer a byte short, 2: an index buffer, 3: indices out of range
	vsize := max(0, t.VertexCount-1)*max(t.VertexStride, t.VertexFormat.Size()) + t.VertexFormat.Size()
	if bad == 1 {
		vsize--
	}
	vb := make([]byte, offset+max(vsize, 0))
	for i := offset; i < len(vb); i++ {
		vb[i] = next()
	}
	if t.VertexFormat <= FormatR32G32Float && head[4]&8 == 0 {
		// Mostly coordinates a ray of the oracle's can meet: finite
		// float32 beyond 1e6 folded into [-100, 100] (NaNs, infinities
		// and tiny values kept); with head[4]'s bit 3 the bytes as they
		// are, up to 3.4e38.
		for i := offset; i+4 <= len(vb); i += 4 {
			f := math.Float32frombits(binary.LittleEndian.Uint32(vb[i:]))
			if a := math.Abs(float64(f)); a > 1e6 && a <= math.MaxFloat32 {
				binary.LittleEndian.PutUint32(vb[i:], math.Float32bits(float32(math.Mod(float64(f), 100))))
			}
		}
	}
	t.VertexBuffer = vb[offset:]
	if t.IndexFormat != IndexNone {
		isize := 2 << (t.IndexFormat / 2)
		n := isize * max(t.IndexCount, 0)
		if bad == 2 && n > 0 {
			n--
		}
		ib := make([]byte, n)
		vc := uint32(max(t.VertexCount, 1))
		if bad == 3 {
			vc++ // now and then out of range
		}
		for i := 0; i+isize <= len(ib); i += isize {
			x := uint32(next()) % vc
			if isize == 2 {
				binary.LittleEndian.PutUint16(ib[i:], uint16(x))
			} else {
				binary.LittleEndian.PutUint32(ib[i:], x)
			}
		}
		t.IndexBuffer = ib
	}
	flags := []BuildFlags{0, BuildPreferFastTrace, BuildPreferFastBuild, BuildAllowUpdate, BuildPreferFastTrace | BuildAllowCompaction}[next()%5]
	return Geometry{Type: GeometryTriangles, Triangles: t}, flags, offset
}

// refused reports whether a fuzzed build refused its input, failing t
// where it did so with an error other than an *InputError.
func refused(t *testing.T, err error) bool {
	t.Helper()
	var ie *InputError
	if err != nil && !errors.As(err, &ie) {
		t.Fatalf("error %v is not an *InputError", err)
	}
	return err != nil
}

// FuzzBuildBLAS builds a BLAS from fuzzed triangle descriptions (every
// vertex and index format, strides, counts, transforms, buffers too short,
// indices out of range, NaN and infinite coordinates): BuildBLAS never
// panics and returns nil or an *InputError; a built structure keeps its
// invariants and answers every ray as the brute-force oracle does over
// its triangles (up to the triangle test's t error between two hits that
// close, tError, and a miss where the oracle's hit lies within its error
// of tMax); and the same bytes one byte further into their
// allocation, which builds read through the checked loops instead of in
// place, build the same structure byte for byte.
func FuzzBuildBLAS(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 8))
	for i := range 40 {
		seed := make([]byte, 8+40*16+120*4+8)
		for k := range seed {
			seed[k] = byte(rng.Uint32())
		}
		// Every vertex format, 16- and 32-bit indices, valid buffers (bad
		// 0), no transform, packed, word-aligned: most build.
		seed[0], seed[1], seed[4], seed[5], seed[6], seed[7] = byte(i%4), byte(1+i/4%2), 0, 0, 7, 0
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, flags, offset := fuzzGeometry(data)
		b, err := BuildBLAS([]Geometry{g}, flags)
		if refused(t, err) {
			return
		}
		if err := b.checkInvariants(); err != nil {
			t.Fatal(err)
		}
		closestAsOracle(t, b, b, randRays(rand.New(rand.NewPCG(uint64(len(data)), 2)), 32, 2))
		// The same bytes, moved by a byte.
		moved := g
		shifted := make([]byte, len(g.Triangles.VertexBuffer)+4)
		at := offset + 1
		copy(shifted[at:], g.Triangles.VertexBuffer)
		moved.Triangles.VertexBuffer = shifted[at : at+len(g.Triangles.VertexBuffer)]
		if g.Triangles.IndexBuffer != nil {
			ib := make([]byte, len(g.Triangles.IndexBuffer)+1)
			copy(ib[1:], g.Triangles.IndexBuffer)
			moved.Triangles.IndexBuffer = ib[1:]
		}
		c, err := BuildBLAS([]Geometry{moved}, flags)
		if err != nil {
			t.Fatalf("the same bytes at another offset: %v", err)
		}
		if !sameSerialized(b.Serialize(), c.Serialize()) {
			t.Fatal("the same bytes at another offset build another structure")
		}
	})
}

// closestAsOracle checks walked's closest hits against the brute-force
// oracle over tris's triangles (the same primitives), up to the triangle
// test's own rounding: two hits within their t errors of each other may
// come either way (tError), and a miss is right where the oracle's hit is
// one only by rounding: its t within its error of tMax (a sliver far
// longer than the ray whose computed t lies below tMax while the exact
// one, and its box, lie beyond), or its triangle's box out of the ray's
// way in float64 (the edge functions of a sliver 10^22 long, rounded,
// can put a ray that passes it inside).
func closestAsOracle(t *testing.T, walked, tris *BLAS, rays []Ray) {
	t.Helper()
	insts := []Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: tris}}
	for i, r := range rays {
		want, wok := bruteClosest(insts, r, 0xff)
		got, gok := walked.Intersect(r, 0)
		if wok && !gok && (float64(want.T)+tError(tris, r, want) >= float64(r.TMax) || !meetsBox64(r, hitBox(tris, want))) {
			continue
		}
		if wok != gok || wok && (got.T < want.T || !hitsAt(tris, r, got) ||
			float64(got.T-want.T) > tError(tris, r, want)+tError(tris, r, got)) {
			t.Fatalf("ray %d: walk %v %+v, oracle %v %+v", i, gok, got, wok, want)
		}
	}
}

// hitBox returns the bounds of h's triangle of b.
func hitBox(b *BLAS, h Hit) AABB {
	for s := range b.tris {
		if b.primGeom[s] == h.GeometryIndex && b.primIndex[s] == h.PrimitiveIndex {
			return triBounds(&b.tris[s])
		}
	}
	return emptyAABB()
}

// meetsBox64 reports whether r meets box over [TMin, TMax], slab by slab
// in float64, each plane moved out by 10^-9 of its and the origin's
// magnitudes (float64's rounding, so that a ray grazing the box counts as
// meeting it; the box of a float32 triangle is exact).
func meetsBox64(r Ray, box AABB) bool {
	o := [3]float64{float64(r.Origin.X), float64(r.Origin.Y), float64(r.Origin.Z)}
	d := [3]float64{float64(r.Direction.X), float64(r.Direction.Y), float64(r.Direction.Z)}
	lo := [3]float64{float64(box.Min.X), float64(box.Min.Y), float64(box.Min.Z)}
	hi := [3]float64{float64(box.Max.X), float64(box.Max.Y), float64(box.Max.Z)}
	near, far := float64(r.TMin), float64(r.TMax)
	for a := range 3 {
		l := lo[a] - 1e-9*(math.Abs(lo[a])+math.Abs(o[a]))
		h := hi[a] + 1e-9*(math.Abs(hi[a])+math.Abs(o[a]))
		if d[a] == 0 {
			if o[a] < l || o[a] > h {
				return false
			}
			continue
		}
		t0, t1 := (l-o[a])/d[a], (h-o[a])/d[a]
		if t0 > t1 {
			t0, t1 = t1, t0
		}
		near, far = max(near, t0), min(far, t1)
	}
	return near <= far
}
