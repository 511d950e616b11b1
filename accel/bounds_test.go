package accel

import (
	"math"
	"math/rand/v2"
	"testing"
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
