package accel

import (
	"math"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

func procRow() *BLAS {
	boxes := []AABB{
		{vec.V3(-1, -1, -1), vec.V3(1, 1, 1)},
		{vec.V3(3, -1, -1), vec.V3(4, 1, 1)},
		{vec.V3(6, -1, -1), vec.V3(7, 1, 1)},
		{vec.V3(9, 5, 5), vec.V3(10, 6, 6)}, // off the ray
	}
	b, _ := BuildBLAS([]Geometry{AABBGeometry(boxes)}, 0)
	return b
}

// Procedural primitives: the traversal stops at every AABB the ray enters
// (KindProcedural, for the intersection shader), including the box the ray
// starts in, with T the entry distance clamped to TMin.
func TestProceduralCandidatesForEnteredBoxes(t *testing.T) {
	b := procRow()
	r := Ray{Origin: vec.V3(0, 0, 0), Direction: vec.V3(1, 0, 0), TMin: 0.25, TMax: 100}
	var tr Traversal
	tr.BeginBLAS(b, r, 0)
	got := map[uint32]float32{}
	for tr.Next() {
		c := tr.Candidate()
		if c.Kind != KindProcedural || c.HitKind() != 0 {
			t.Fatalf("candidate %+v is not procedural", *c)
		}
		got[c.PrimitiveIndex] = c.T
	}
	want := map[uint32]float32{0: 0.25, 1: 3, 2: 6}
	if len(got) != len(want) {
		t.Fatalf("candidates %v, want %v", got, want)
	}
	for p, tt := range want {
		if got[p] != tt {
			t.Fatalf("candidates %v, want %v", got, want)
		}
	}
	if tr.Committed().Kind != KindNone {
		t.Fatal("nothing was committed")
	}
}

// ReportHit with THit in [RayTMin, RayTCurrent] commits and shrinks TMax;
// boxes beyond the new TMax are no longer entered.
func TestProceduralCommitShrinksTMax(t *testing.T) {
	b := procRow()
	r := Ray{Origin: vec.V3(0, 0, 0), Direction: vec.V3(1, 0, 0), TMax: 100}
	var tr Traversal
	tr.BeginBLAS(b, r, 0)
	var after []uint32
	committed := false
	for tr.Next() {
		c := tr.Candidate()
		if committed {
			after = append(after, c.PrimitiveIndex)
			continue
		}
		if c.PrimitiveIndex == 1 {
			th := float32(3.5)
			if !(th >= r.TMin && th <= tr.TMax()) {
				t.Fatal("bad test")
			}
			tr.CommitProcedural(th)
			committed = true
			if tr.TMax() != th {
				t.Fatalf("TMax %g after a commit at %g", tr.TMax(), th)
			}
		}
	}
	for _, p := range after {
		if p == 2 {
			t.Fatal("box 2 (entered at t=6) offered after a commit at t=3.5")
		}
	}
	if h := tr.Committed(); h.Kind != KindProcedural || h.PrimitiveIndex != 1 || h.T != 3.5 {
		t.Fatalf("committed %+v", *h)
	}
}

// "an AABB with NaN min x is inactive": never entered, and the other boxes
// keep their primitive indices.
func TestProceduralNaNMinXIsInactive(t *testing.T) {
	boxes := []AABB{
		{vec.V3(-1, -1, -1), vec.V3(1, 1, 1)},
		{vec.V3(float32(math.NaN()), -1, -1), vec.V3(4, 1, 1)},
		{vec.V3(6, -1, -1), vec.V3(7, 1, 1)},
	}
	b := mustBLAS(t, []Geometry{AABBGeometry(boxes)}, 0)
	if b.ActivePrimitives() != 2 || b.PrimitiveCount(0) != 3 {
		t.Fatalf("active %d of %d", b.ActivePrimitives(), b.PrimitiveCount(0))
	}
	r := Ray{Origin: vec.V3(-5, 0, 0), Direction: vec.V3(1, 0, 0), TMax: 100}
	if got := candidateSet(b, r); len(got) != 2 || got[0] != 0 || got[1] != 2 {
		t.Fatalf("candidates %v, want [0 2]", got)
	}
}
