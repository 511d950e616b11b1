package vec

import (
	"math/rand/v2"
	"testing"
)

func TestInverseRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000; i++ {
		var m Mat3x4
		for r := range m {
			for c := range m[r] {
				m[r][c] = float32(rng.NormFloat64())
			}
		}
		inv, ok := m.Inverse()
		if !ok {
			continue
		}
		p := V3(float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64()))
		q := inv.TransformPoint(m.TransformPoint(p))
		if d := q.Sub(p).Len(); d > 1e-3*(1+p.Len()) && abs(m.Det()) > 1e-2 {
			t.Fatalf("inverse round trip: %v -> %v (det %g)", p, q, m.Det())
		}
	}
}

func TestMulAppliesRightFirst(t *testing.T) {
	a := Translate3x4(V3(1, 2, 3))
	b := Scale3x4(V3(2, 2, 2))
	got := a.Mul(b).TransformPoint(V3(1, 1, 1))
	if want := V3(3, 4, 5); got != want {
		t.Fatalf("got %v want %v", got, want)
	}
}

func TestSingularInverse(t *testing.T) {
	if _, ok := Scale3x4(V3(1, 0, 1)).Inverse(); ok {
		t.Fatal("singular matrix inverted")
	}
}

func abs(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
}

func TestBoxCornerBits(t *testing.T) {
	lo, hi := V3(-1, -2, -3), V3(4, 5, 6)
	for i, want := range []Vec3{
		{-1, -2, -3}, {4, -2, -3}, {-1, 5, -3}, {4, 5, -3},
		{-1, -2, 6}, {4, -2, 6}, {-1, 5, 6}, {4, 5, 6},
	} {
		if got := BoxCorner(lo, hi, i); got != want {
			t.Errorf("corner %d: %v, want %v", i, got, want)
		}
	}
}
