//go:build embree

package main

import (
	"fmt"
	"math"

	"github.com/raypipe/raypipe/internal/raygen"
)

// agreement counts how two tracers' answers for the same rays compare.
type agreement struct {
	rays    int
	same    int      // same primitive and t within relTol (see relClose), or both miss
	ties    int      // different primitives at the same t (shared edges, overlaps)
	hitMiss int      // one hit, the other missed
	differ  int      // everything else
	example []string // a few of the disagreements
}

// relTol is the relative tolerance on t for hits on the same primitive.
const relTol = 1e-5

// relClose reports whether a and b agree within relTol relative to the
// larger of |a|, |b| and scale. scale is the ray's own coordinate magnitude
// in units of t (largest origin component over the direction length): a
// hit a hair from the origin has t ~ 0 but float32 error of order
// scale*2^-24, so a purely relative test would flag rounding.
func relClose(a, b, scale float32) bool {
	d := math.Abs(float64(a) - float64(b))
	return d <= relTol*max(math.Abs(float64(a)), math.Abs(float64(b)), float64(scale))
}

// tScale returns the coordinate magnitude of r in units of t.
func tScale(r raygen.Ray) float32 {
	o := r.Origin
	m := max(abs32(o.X), abs32(o.Y), abs32(o.Z))
	if l := r.Dir.Len(); l > 0 {
		return m / l
	}
	return 0
}

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }

func (a *agreement) note(format string, args ...any) {
	if len(a.example) < 3 {
		a.example = append(a.example, fmt.Sprintf(format, args...))
	}
}

// compareHits compares closest hits of the same rays.
func compareHits(rays []raygen.Ray, got, want []hit) agreement {
	a := agreement{rays: len(rays)}
	for i := range rays {
		g, w := got[i], want[i]
		switch {
		case g.Miss() && w.Miss():
			a.same++
		case g.Miss() != w.Miss():
			a.hitMiss++
			a.note("ray %d: %+v vs %+v", i, g, w)
		case g.PrimID == w.PrimID && g.GeomID == w.GeomID:
			if relClose(g.T, w.T, tScale(rays[i])) {
				a.same++
			} else {
				a.differ++
				a.note("ray %d: prim %d t %g vs %g", i, g.PrimID, g.T, w.T)
			}
		case relClose(g.T, w.T, tScale(rays[i])):
			a.ties++
		default:
			a.differ++
			a.note("ray %d: prim %d t %g vs prim %d t %g", i, g.PrimID, g.T, w.PrimID, w.T)
		}
	}
	return a
}

// compareOccluded compares any-hit answers of the same rays.
func compareOccluded(got, want []bool) agreement {
	a := agreement{rays: len(got)}
	for i := range got {
		if got[i] == want[i] {
			a.same++
		} else {
			a.hitMiss++
			a.note("ray %d: occluded %v vs %v", i, got[i], want[i])
		}
	}
	return a
}

func (a agreement) String() string {
	s := fmt.Sprintf("%d rays: %d same, %d ties, %d hit/miss, %d differ", a.rays, a.same, a.ties, a.hitMiss, a.differ)
	if a.hitMiss+a.differ > 0 {
		s += fmt.Sprintf(" (%.4f%%)", 100*float64(a.hitMiss+a.differ)/float64(max(a.rays, 1)))
	}
	return s
}
