//go:build embree

package main

import (
	"math"
	"slices"
	"testing"

	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/internal/raygen"
)

// TestPlaceInstancesAreScaledRotations checks the -instances placements:
// as many as asked, the same for the same seed, each a rotation scaled by
// 1/cbrt(n) (determinant 1/n, rows of length 1/cbrt(n)) moved into
// [-1,1]^3.
func TestPlaceInstancesAreScaledRotations(t *testing.T) {
	const n = 500
	xfs := placeInstances(n, 3)
	if len(xfs) != n || !slices.Equal(xfs, placeInstances(n, 3)) || slices.Equal(xfs, placeInstances(n, 4)) {
		t.Fatalf("placeInstances(%d): %d placements, or not one set per seed", n, len(xfs))
	}
	s := 1 / math.Cbrt(n)
	for i, m := range xfs {
		if d := float64(m.Det()); math.Abs(d-1.0/n) > 1e-5/n {
			t.Errorf("placement %d: determinant %g, want %g", i, d, 1.0/n)
		}
		for r := range 3 {
			l := math.Sqrt(float64(m[r][0]*m[r][0] + m[r][1]*m[r][1] + m[r][2]*m[r][2]))
			if math.Abs(l-s) > 1e-5 || math.Abs(float64(m[r][3])) > 1 {
				t.Errorf("placement %d row %d: length %g (want %g), move %g", i, r, l, s, m[r][3])
			}
		}
	}
}

// TestInstanceBoundsHoldEveryPlacedVertex checks instanceBounds against
// the vertices themselves, placed.
func TestInstanceBoundsHoldEveryPlacedVertex(t *testing.T) {
	pos, _ := meshgen.Terrain(200, 2)
	xfs := placeInstances(50, 2)
	b := instanceBounds(raygen.BoundsOf(pos), xfs)
	for i, m := range xfs {
		for _, p := range pos {
			if w := m.TransformPoint(p); !b.Contains(w, 1e-5) {
				t.Fatalf("instance %d: vertex %v placed at %v, outside %+v", i, p, w, b)
			}
		}
	}
}
