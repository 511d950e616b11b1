//go:build embree

package main

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
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

// TestBadInstanceFlagsAreErrors checks that -instances and -instance-tris
// with a bad size, and a -cpuprofile that cannot be written, end the run
// with an error that says which value, before anything is built or run.
func TestBadInstanceFlagsAreErrors(t *testing.T) {
	defer func(s, o, i, n string) { *flagSizes, *flagOBJ, *flagInstances, *flagInstTris = s, o, i, n }(*flagSizes, *flagOBJ, *flagInstances, *flagInstTris)
	*flagSizes, *flagOBJ = "", ""
	for _, c := range []struct{ instances, tris, bad string }{
		{"1k,lots", "10k", "lots"},
		{"1k", "many", "many"},
	} {
		*flagInstances, *flagInstTris = c.instances, c.tris
		if err := run(); err == nil || !strings.Contains(err.Error(), c.bad) {
			t.Errorf("-instances %q -instance-tris %q: error %v, want one naming %q", c.instances, c.tris, err, c.bad)
		}
	}
	ran := false
	err := profiled(filepath.Join(t.TempDir(), "no", "such", "dir", "cpu.prof"), func() error { ran = true; return nil })
	if err == nil || ran {
		t.Errorf("-cpuprofile into a missing directory: error %v, ran %v", err, ran)
	}
}

// TestBadSceneKindIsAnError checks that -scenes names the kind it does not
// know, and the kinds it does, before anything is built.
func TestBadSceneKindIsAnError(t *testing.T) {
	defer func(s, k, o string) { *flagSizes, *flagScenes, *flagOBJ = s, k, o }(*flagSizes, *flagScenes, *flagOBJ)
	*flagSizes, *flagScenes, *flagOBJ = "1k", "pipes,tubes", ""
	err := run()
	if err == nil || !strings.Contains(err.Error(), `"tubes"`) || !strings.Contains(err.Error(), "pipes") {
		t.Errorf("-scenes pipes,tubes: error %v, want one naming \"tubes\" and the known kinds", err)
	}
}
