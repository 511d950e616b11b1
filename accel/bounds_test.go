package accel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/raypipe/raypipe/vec"
)

// randomRefs returns n refs with lattice coordinates (exact ties), zeros of
// both signs, and random values of several scales, and ids that read as
// subnormal floats.
func randomRefs(rng *rand.Rand, n int) []bref {
	comp := func() float32 {
		switch rng.IntN(6) {
		case 0:
			return float32(math.Copysign(0, float64(rng.IntN(2)*2-1)))
		case 1, 2:
			return float32(rng.IntN(7) - 3)
		case 3:
			return float32((rng.Float64()*2 - 1) * 1e20)
		default:
			return float32(rng.Float64()*8 - 4)
		}
	}
	refs := make([]bref, n)
	for i := range refs {
		var lo, hi [3]float32
		for a := range 3 {
			x, y := comp(), comp()
			lo[a], hi[a] = min(x, y), max(x, y)
		}
		refs[i] = bref{lo[0], lo[1], lo[2], -hi[0], -hi[1], -hi[2], uint32(rng.IntN(1 << 20))}
	}
	return refs
}

func sameBits(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }

func sameBinBox(a, b *binBox) bool {
	return sameBits(a.minX, b.minX) && sameBits(a.minY, b.minY) && sameBits(a.minZ, b.minZ) &&
		sameBits(a.nmaxX, b.nmaxX) && sameBits(a.nmaxY, b.nmaxY) && sameBits(a.nmaxZ, b.nmaxZ)
}

// The assembly bounds (refBounds) must give rangeBounds' Go loop's box bit
// for bit (it becomes node bounds: Go's min puts -0 below +0) and
// centroidBounds' centroid bounds up to the sign of a zero, on 1 to 300
// refs with exact ties and zeros of both signs.
func TestRefBoundsMatchesGo(t *testing.T) {
	if !boundsAsm {
		t.Skip("no assembly bounds on this architecture")
	}
	rng := rand.New(rand.NewPCG(61, 62))
	for it := 0; it < 20000; it++ {
		refs := randomRefs(rng, 1+rng.IntN(300))
		wantBox, wantCent := rangeBoundsGo(refs)
		gotBox, gotCent := rangeBounds(refs)
		if !sameBinBox(&gotBox, &wantBox) {
			t.Fatalf("iteration %d (%d refs): box %+v, want %+v", it, len(refs), gotBox, wantBox)
		}
		if gotCent != wantCent || centroidBounds(refs) != centroidBoundsGo(refs) {
			t.Fatalf("iteration %d (%d refs): centroids %+v, want %+v", it, len(refs), gotCent, wantCent)
		}
	}
}

// The assembly binning (binRefsSSE) must give binRefs' Go loop's bins: the
// same counts and boxes bit for bit, for strides 1 to 4 and 8 to 32 bins.
func TestBinRefsMatchesGo(t *testing.T) {
	if !boundsAsm {
		t.Skip("no assembly binning on this architecture")
	}
	rng := rand.New(rand.NewPCG(63, 64))
	for it := 0; it < 20000; it++ {
		refs := randomRefs(rng, 1+rng.IntN(300))
		cb := centroidBoundsGo(refs)
		bn, usable := newBinning(8+rng.IntN(maxBins-7), &cb)
		if !usable {
			continue
		}
		stride := 1 + rng.IntN(4)
		var got, want binScratch
		binRefs(refs, &bn, &got, stride)
		e := emptyBinBox()
		for a := range want.boxes {
			for i := range want.boxes[a] {
				want.boxes[a][i] = e
			}
		}
		binRefsGo(refs, &bn, &want, stride)
		for a := 0; a < 3; a++ {
			for i := 0; i < bn.nb; i++ {
				if got.counts[a][i] != want.counts[a][i] || !sameBinBox(&got.boxes[a][i], &want.boxes[a][i]) {
					t.Fatalf("iteration %d (%d refs, stride %d) axis %d bin %d: %d %+v, want %d %+v",
						it, len(refs), stride, a, i, got.counts[a][i], got.boxes[a][i], want.counts[a][i], want.boxes[a][i])
				}
			}
		}
	}
}

// The assembly refs of triangles (triRefsSSE) must be the Go loop's
// (primBox, then the ref's fields): bounds bit for bit with Go's min and
// max (-0 below +0), ids counted from the first, and inactive triangles
// (any coordinate infinite or NaN) marked inactiveID and counted, on
// triangles with exact ties, zeros of both signs and huge values, the
// triangles read from a slice that ends right after them.
func TestTriRefsMatchesGo(t *testing.T) {
	if !boundsAsm {
		t.Skip("no assembly bounds on this architecture")
	}
	rng := rand.New(rand.NewPCG(65, 66))
	comp := func() float32 {
		switch rng.IntN(12) {
		case 0, 1:
			return float32(math.Copysign(0, float64(rng.IntN(2)*2-1)))
		case 2, 3, 4:
			return float32(rng.IntN(5) - 2)
		case 5:
			return float32((rng.Float64()*2 - 1) * 1e38)
		case 6:
			if rng.IntN(20) == 0 {
				return []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}[rng.IntN(3)]
			}
			fallthrough
		default:
			return float32(rng.Float64()*8 - 4)
		}
	}
	inactiveSeen := 0
	for it := 0; it < 3000; it++ {
		n := rng.IntN(40)
		d := decodedGeometry{typ: GeometryTriangles, tris: make([]triVerts, n)}
		for i := range d.tris {
			for v := range 3 {
				d.tris[i][v] = vec.V3(comp(), comp(), comp())
			}
		}
		first := uint32(rng.IntN(1 << 20))
		want := make([]bref, n)
		wantInactive := 0
		for i := range want {
			box, ok := d.primBox(i)
			if !ok {
				want[i].id = inactiveID
				wantInactive++
				continue
			}
			want[i] = bref{box.Min.X, box.Min.Y, box.Min.Z, -box.Max.X, -box.Max.Y, -box.Max.Z, first + uint32(i)}
		}
		got := make([]bref, n+1) // one more, which must stay untouched
		got[n] = bref{id: 12345}
		var inactive int
		if n > 0 {
			inactive = triRefsSSE(&d.tris[0], n, first, &got[0])
		}
		if inactive != wantInactive {
			t.Fatalf("iteration %d: %d inactive, want %d", it, inactive, wantInactive)
		}
		inactiveSeen += inactive
		for i := range want {
			g, w := got[i], want[i]
			if g.id != w.id || !sameBits(g.minX, w.minX) || !sameBits(g.minY, w.minY) || !sameBits(g.minZ, w.minZ) ||
				!sameBits(g.nmaxX, w.nmaxX) || !sameBits(g.nmaxY, w.nmaxY) || !sameBits(g.nmaxZ, w.nmaxZ) {
				t.Fatalf("iteration %d, triangle %d %v: ref %+v, want %+v", it, i, d.tris[i], g, w)
			}
		}
		if got[n] != (bref{id: 12345}) {
			t.Fatalf("iteration %d: wrote past the last ref", it)
		}
	}
	if inactiveSeen == 0 {
		t.Fatal("no inactive triangle was generated")
	}
}

// TestTransformIsTheCornersBox checks AABB.Transform, which sums the
// smaller and larger products of each matrix entry (Arvo's method),
// against its definition: the box of the eight corners, each mapped with
// every product rounded to float32 and summed in TransformPoint's order,
// then padded. They must agree bit for bit (zeros' signs included) on
// matrices and boxes with zeros of both signs, lattice values (ties
// between corners), flat boxes and magnitudes up to overflow.
func TestTransformIsTheCornersBox(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	comp := func(scale float64) float32 {
		switch rng.IntN(6) {
		case 0:
			return float32(math.Copysign(0, float64(rng.IntN(2)*2-1)))
		case 1, 2:
			return float32(rng.IntN(5) - 2)
		default:
			return float32((rng.Float64()*2 - 1) * scale)
		}
	}
	corners := func(a AABB, m vec.Mat3x4) AABB {
		r := emptyAABB()
		for i := range 8 {
			c := [3]float32{a.Min.X, a.Min.Y, a.Min.Z}
			hi := [3]float32{a.Max.X, a.Max.Y, a.Max.Z}
			for j := range 3 {
				if i&(1<<j) != 0 {
					c[j] = hi[j]
				}
			}
			var p [3]float32
			for row := range 3 {
				s := float32(m[row][0] * c[0])
				s += float32(m[row][1] * c[1])
				s += float32(m[row][2] * c[2])
				p[row] = s + m[row][3]
			}
			r = r.Extend(vec.V3(p[0], p[1], p[2]))
		}
		return r.pad()
	}
	f := math.Float32bits
	same := func(a, b AABB) bool {
		return f(a.Min.X) == f(b.Min.X) && f(a.Min.Y) == f(b.Min.Y) && f(a.Min.Z) == f(b.Min.Z) &&
			f(a.Max.X) == f(b.Max.X) && f(a.Max.Y) == f(b.Max.Y) && f(a.Max.Z) == f(b.Max.Z)
	}
	overflow := 0
	for i := range 200000 {
		scale := []float64{1, 1e3, 1e19, 1e30}[i%4]
		var m vec.Mat3x4
		for r := range 3 {
			for c := range 4 {
				m[r][c] = comp(scale)
			}
		}
		a := AABB{vec.V3(comp(scale), comp(scale), comp(scale)), vec.V3(comp(scale), comp(scale), comp(scale))}
		a = AABB{a.Min.Min(a.Max), a.Min.Max(a.Max)}
		want := corners(a, m)
		if !want.Min.IsFinite() || !want.Max.IsFinite() {
			overflow++
		}
		if got := a.Transform(m); !same(got, want) && !(got != got && want != want) {
			t.Fatalf("box %v matrix %v: Transform %v, corners %v", a, m, got, want)
		}
	}
	if overflow == 0 {
		t.Errorf("no case overflowed: the fallback went untested")
	}
}

// The assembly sweep (sweepSSE) must give sweepAxisGo's split and cost,
// bit for bit, on 2 to 32 non-empty bins of boxes with exact ties, flat
// and coinciding boxes, zeros of both signs and junk in the pads (which
// binRefsSSE leaves), counts from 1 to large.
func TestSweepMatchesGo(t *testing.T) {
	if !boundsAsm {
		t.Skip("no assembly sweep on this architecture")
	}
	rng := rand.New(rand.NewPCG(67, 68))
	coord := func() float32 {
		switch rng.IntN(8) {
		case 0:
			return float32(math.Copysign(0, float64(rng.IntN(2)*2-1)))
		case 1, 2:
			return float32(rng.IntN(5) - 2)
		}
		return rng.Float32()*200 - 100
	}
	for it := 0; it < 50000; it++ {
		var boxes [maxBins]binBox
		var counts [maxBins]int32
		var idx [maxBins]uint8
		k := 2 + rng.IntN(maxBins-1)
		for j, i := range rng.Perm(maxBins)[:k] {
			idx[j] = uint8(i)
		}
		slices.Sort(idx[:k])
		for _, i := range idx[:k] {
			lo := [3]float32{coord(), coord(), coord()}
			hi := lo
			for a := range hi {
				if rng.IntN(4) != 0 {
					hi[a] += float32(rng.IntN(3)) * rng.Float32() * 50
				}
			}
			boxes[i] = binBox{minX: lo[0], minY: lo[1], minZ: lo[2], nmaxX: -hi[0], nmaxY: -hi[1], nmaxZ: -hi[2]}
			// Junk pads, as binRefsSSE leaves them.
			*(*uint32)(unsafe.Add(unsafe.Pointer(&boxes[i]), 12)) = rng.Uint32()
			*(*uint32)(unsafe.Add(unsafe.Pointer(&boxes[i]), 28)) = rng.Uint32()
			counts[i] = int32(1 + rng.IntN(1+rng.IntN(1<<20)))
		}
		gs, gc := sweepSSE(&boxes, &counts, &idx, k)
		ws, wc := sweepAxisGo(&boxes, &counts, &idx, k)
		if gs != ws || math.Float32bits(gc) != math.Float32bits(wc) {
			t.Fatalf("iteration %d (%d bins): split %d cost %v, want %d %v", it, k, gs, gc, ws, wc)
		}
	}
}
