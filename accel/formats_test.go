package accel

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// encodeMesh writes positions in format f at the given stride (garbage in
// the padding and in the ignored A component) with indices in format ifmt;
// IndexNone expands the vertices per triangle.
func encodeMesh(rng *rand.Rand, pos []vec.Vec3, idx []uint32, f VertexFormat, stride int, ifmt IndexFormat) Geometry {
	verts := pos
	if ifmt == IndexNone {
		verts = nil
		for _, i := range idx {
			verts = append(verts, pos[i])
		}
	}
	vb := make([]byte, stride*len(verts))
	for i := range vb {
		vb[i] = byte(rng.Uint32())
	}
	le := binary.LittleEndian
	for i, p := range verts {
		b := vb[i*stride:]
		switch f {
		case FormatR32G32B32Float:
			le.PutUint32(b, math.Float32bits(p.X))
			le.PutUint32(b[4:], math.Float32bits(p.Y))
			le.PutUint32(b[8:], math.Float32bits(p.Z))
		case FormatR32G32Float:
			le.PutUint32(b, math.Float32bits(p.X))
			le.PutUint32(b[4:], math.Float32bits(p.Y))
		case FormatR16G16Float:
			le.PutUint16(b, Float16Bits(p.X))
			le.PutUint16(b[2:], Float16Bits(p.Y))
		case FormatR16G16B16A16Float:
			le.PutUint16(b, Float16Bits(p.X))
			le.PutUint16(b[2:], Float16Bits(p.Y))
			le.PutUint16(b[4:], Float16Bits(p.Z))
		}
	}
	t := Triangles{VertexBuffer: vb, VertexFormat: f, VertexStride: stride, VertexCount: len(verts), IndexFormat: ifmt}
	switch ifmt {
	case IndexUint16:
		t.IndexBuffer = make([]byte, 2*len(idx)+3) // trailing bytes are fine
		for i, x := range idx {
			le.PutUint16(t.IndexBuffer[2*i:], uint16(x))
		}
		t.IndexCount = len(idx)
	case IndexUint32:
		t.IndexBuffer = make([]byte, 4*len(idx))
		for i, x := range idx {
			le.PutUint32(t.IndexBuffer[4*i:], x)
		}
		t.IndexCount = len(idx)
	}
	return Geometry{Type: GeometryTriangles, Flags: GeometryOpaque, Triangles: t}
}

// Vertex formats (D3D12_RAYTRACING_GEOMETRY_TRIANGLES_DESC.VertexFormat):
// R32G32B32_FLOAT, R32G32_FLOAT and R16G16_FLOAT (third component 0),
// R16G16B16A16_FLOAT (A ignored); any stride at least the vertex size; 16-
// and 32-bit indices or none. Each gives the same hits as the equivalent
// float32 mesh.
func TestVertexFormatsStridesAndIndexFormatsMatchFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	// A 6x6 grid whose coordinates are exact in float16.
	pos, idx := grid(6, 0.25, vec.V3(-0.75, -0.75, 0))
	pos3 := make([]vec.Vec3, len(pos))
	for i, p := range pos {
		pos3[i] = vec.V3(p.X, p.Y, float32(rng.IntN(9))/8)
	}
	rays := make([]Ray, 1500)
	for i := range rays {
		o := vec.V3(float32(rng.Float64()*2-1), float32(rng.Float64()*2-1), 3)
		rays[i] = Ray{Origin: o, Direction: vec.V3(float32(rng.Float64()-0.5)*0.3, float32(rng.Float64()-0.5)*0.3, -1), TMax: 10}
	}
	ref3 := mustBLAS(t, []Geometry{TriangleGeometry(pos3, idx)}, 0)
	ref2 := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, 0)
	cases := []struct {
		f       VertexFormat
		strides []int
		threeD  bool
	}{
		{FormatR32G32B32Float, []int{0, 12, 16, 20, 64}, true},
		{FormatR32G32Float, []int{0, 8, 12, 32}, false},
		{FormatR16G16Float, []int{0, 4, 6, 10}, false},
		{FormatR16G16B16A16Float, []int{0, 8, 10, 24}, true},
	}
	for _, c := range cases {
		for _, stride := range c.strides {
			for _, ifmt := range []IndexFormat{IndexNone, IndexUint16, IndexUint32} {
				src, ref := pos, ref2
				if c.threeD {
					src, ref = pos3, ref3
				}
				s := stride
				if s == 0 {
					s = c.f.Size()
				}
				g := encodeMesh(rng, src, idx, c.f, s, ifmt)
				g.Triangles.VertexStride = stride
				b, err := BuildBLAS([]Geometry{g}, 0)
				if err != nil {
					t.Fatalf("%s stride %d index %d: %v", c.f, stride, ifmt, err)
				}
				hits := 0
				for i, r := range rays {
					h, ok := b.Intersect(r, 0)
					w, wok := ref.Intersect(r, 0)
					if ok != wok || ok && (h.T != w.T || h.U != w.U || h.V != w.V || h.PrimitiveIndex != w.PrimitiveIndex || h.FrontFace != w.FrontFace) {
						t.Fatalf("%s stride %d index %d ray %d: %v %+v, float32 mesh %v %+v", c.f, stride, ifmt, i, ok, h, wok, w)
					}
					if ok {
						hits++
					}
				}
				if hits < 500 {
					t.Fatalf("%d hits", hits)
				}
			}
		}
	}
}

// Float16 and Float16Bits round-trip every binary16 value (NaNs stay NaN
// with their sign; the payload is not kept).
func TestFloat16RoundTripAllValues(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := Float16(uint16(h))
		back := Float16Bits(f)
		isNaN16 := h&0x7c00 == 0x7c00 && h&0x3ff != 0
		if isNaN16 {
			if f == f || back&0x7c00 != 0x7c00 || back&0x3ff == 0 || back&0x8000 != uint16(h)&0x8000 {
				t.Fatalf("NaN %#04x -> %v -> %#04x", h, f, back)
			}
			continue
		}
		if back != uint16(h) {
			t.Fatalf("%#04x -> %v -> %#04x", h, f, back)
		}
	}
}

// Float16Bits rounds to the nearest binary16, ties to even, overflowing to
// infinity: checked against the neighbours in float64.
func TestFloat16BitsRoundsToNearestEven(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	for i := 0; i < 200000; i++ {
		f := math.Float32frombits(rng.Uint32())
		if i%2 == 0 {
			f = float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(40)-24)))
		}
		if f != f || math.Abs(float64(f)) > 65519 {
			continue // NaN, or rounds to infinity (checked below)
		}
		h := Float16Bits(f)
		got := float64(Float16(h))
		err := math.Abs(got - float64(f))
		for _, n := range []uint16{h - 1, h + 1} {
			if n&0x7c00 == 0x7c00 || (n^h)&0x8000 != 0 {
				continue
			}
			alt := math.Abs(float64(Float16(n)) - float64(f))
			if alt < err || alt == err && h&1 != 0 {
				t.Fatalf("%g -> %#04x (%g), but %#04x (%g) is nearer or even", f, h, got, n, Float16(n))
			}
		}
	}
	for _, c := range []struct {
		f float32
		h uint16
	}{{65504, 0x7bff}, {65520, 0x7c00}, {-65520, 0xfc00}, {1 + 1.0/2048, 0x3c00}, {1 + 3.0/2048, 0x3c02}, {0x1p-25, 0}, {0x1p-24 * 1.5, 2}} {
		if got := Float16Bits(c.f); got != c.h {
			t.Errorf("Float16Bits(%g) = %#04x, want %#04x", c.f, got, c.h)
		}
	}
}

// Inactive primitives (a NaN vertex x, or any non-finite coordinate) never
// hit but keep their indices: the other primitives' PrimitiveIndex values
// are unchanged.
func TestInactivePrimitivesKeepIndices(t *testing.T) {
	var pos []vec.Vec3
	for i := 0; i < 4; i++ {
		x := float32(3 * i)
		pos = append(pos, vec.V3(x-1, -1, 0), vec.V3(x+1, -1, 0), vec.V3(x, 1, 0))
	}
	pos[3].X = float32(math.NaN())  // triangle 1
	pos[7].Y = float32(math.Inf(1)) // triangle 2
	b := mustBLAS(t, []Geometry{TriangleGeometry(pos, nil)}, 0)
	if b.ActivePrimitives() != 2 || b.PrimitiveCount(0) != 4 {
		t.Fatalf("active %d of %d", b.ActivePrimitives(), b.PrimitiveCount(0))
	}
	for i := 0; i < 4; i++ {
		r := Ray{Origin: vec.V3(float32(3*i), -0.2, 5), Direction: vec.V3(0, 0, -1), TMax: 10}
		h, ok := b.Intersect(r, RayFlagForceNonOpaque)
		if want := i == 0 || i == 3; ok != want || ok && h.PrimitiveIndex != uint32(i) {
			t.Fatalf("triangle %d: hit %v %+v", i, ok, h)
		}
		if countHits(b, r) != map[bool]int{true: 1, false: 0}[i == 0 || i == 3] {
			t.Fatalf("triangle %d: candidates", i)
		}
	}
}

// The common layout's fetch (float32 x, y, z and 32-bit indices) reads
// every vertex as readVertex reads it, bit for bit (NaN payloads, signed
// zeros, subnormals), in place where the buffers are aligned to their
// words and through the checked loop where they are not, at any stride,
// in index order or in a given one.
func TestCommonLayoutFetchesAsReadVertex(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	special := []uint32{0x80000000, 0x00000001, 0x7f800000, 0xff800000, 0x7fc00001, 0xffbfffff}
	for _, stride := range []int{12, 16, 20, 36} {
		for _, off := range []int{0, 4, 1, 2} {
			const nv, ntri = 300, 5000
			vb := make([]byte, off+nv*stride)[off:]
			for i := 0; i+4 <= len(vb); i += 4 {
				x := rng.Uint32()
				if rng.IntN(10) == 0 {
					x = special[rng.IntN(len(special))]
				}
				binary.LittleEndian.PutUint32(vb[i:], x)
			}
			ib := make([]byte, off+12*ntri)[off:]
			for i := 0; i < 3*ntri; i++ {
				binary.LittleEndian.PutUint32(ib[4*i:], uint32(rng.IntN(nv)))
			}
			// In index order, and in an order of the update's kind (slot
			// order: some triangles, each once, shuffled).
			order := rng.Perm(ntri)[:ntri/2]
			for _, ord := range [][]int{nil, order} {
				var o32 []uint32
				n := ntri
				if ord != nil {
					n = len(ord)
					for _, p := range ord {
						o32 = append(o32, uint32(p))
					}
				}
				tris := make([]triVerts, n)
				fetchR32x3U32(tris, vb, ib, stride, o32)
				for i := range tris {
					p := i
					if ord != nil {
						p = ord[i]
					}
					for j := range 3 {
						v := int(binary.LittleEndian.Uint32(ib[12*p+4*j:]))
						want := readVertex(vb[v*stride:], FormatR32G32B32Float)
						got := tris[i][j]
						if math.Float32bits(got.X) != math.Float32bits(want.X) || math.Float32bits(got.Y) != math.Float32bits(want.Y) ||
							math.Float32bits(got.Z) != math.Float32bits(want.Z) {
							t.Fatalf("stride %d, offset %d, order %v: triangle %d vertex %d is %v, want %v", stride, off, ord != nil, p, j, got, want)
						}
					}
				}
			}
		}
	}
}
