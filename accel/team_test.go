package accel

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
)

// Builds of teamMin to teamMax primitives on several processors run on a
// team (their pieces, the refs and copies in chunks, widen beside the leaf
// copies): "determinism based on fixed acceleration structure build input"
// holds all the same. Each size is built with GOMAXPROCS 1 (no team) and
// 2, 3 and 5 (teams of those sizes), over two triangle geometries with
// inactive triangles (the refs' Go fallback beside triRefsSSE) and over
// procedural boxes, and every array of the BLAS must be the serial one's.
func TestTeamBuildMatchesSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(71, 72))
	for _, n := range []int{teamMin, 3000, 20000} {
		pos, idx := randomSoup(rng, n, 0.05)
		for k := 5; k < len(idx)/3; k += 211 {
			pos[idx[3*k+1]].Y = nanF()
		}
		pos2, idx2 := randomSoup(rng, n/3, 0.05)
		cases := map[string][]Geometry{
			"triangles": {TriangleGeometry(pos, idx), TriangleGeometry(pos2, idx2)},
			"boxes":     {AABBGeometry(randomBoxes(rng, n))},
		}
		for name, geoms := range cases {
			var ref *BLAS
			for _, procs := range []int{1, 2, 3, 5} {
				runtime.GOMAXPROCS(procs)
				tm := teamFor(primitivesIn(geoms))
				tm.stop()
				if (tm != nil) != (procs > 1) {
					t.Fatalf("%d %s, GOMAXPROCS %d: team %v", n, name, procs, tm != nil)
				}
				if tm != nil && tm.size != procs {
					t.Fatalf("%d %s, GOMAXPROCS %d: team of %d", n, name, procs, tm.size)
				}
				b := mustBLAS(t, geoms, BuildPreferFastTrace)
				if err := b.checkInvariants(); err != nil {
					t.Fatalf("%d %s, GOMAXPROCS %d: %v", n, name, procs, err)
				}
				if ref == nil {
					ref = b
					continue
				}
				if !slices.Equal(ref.nodes, b.nodes) || !slices.Equal(ref.wide, b.wide) || !slices.Equal(ref.primIndex, b.primIndex) ||
					!slices.Equal(ref.primGeom, b.primGeom) || !slices.Equal(ref.tris, b.tris) || !slices.Equal(ref.rows, b.rows) ||
					!slices.Equal(ref.boxes, b.boxes) {
					t.Fatalf("%d %s, GOMAXPROCS %d: BLAS differs from GOMAXPROCS 1", n, name, procs)
				}
			}
		}
	}
}

// A team's pieces finish even if no helper ever runs one: whoever waits
// runs them, those that pieces start included.
func TestTeamWaiterRunsPendingPieces(t *testing.T) {
	tm := &team{size: 3} // no helpers started
	s := tasks{team: tm}
	var ran atomic.Int64
	var spawn func(depth int)
	spawn = func(depth int) {
		ran.Add(1)
		if depth < 6 {
			s.run(func() { spawn(depth + 1) })
			s.run(func() { spawn(depth + 1) })
		}
	}
	spawn(0)
	s.wait()
	if got, want := ran.Load(), int64(1<<7-1); got != want {
		t.Fatalf("%d pieces ran, want %d", got, want)
	}
	var out [1000]int
	tm.parallel(tm.chunks(len(out)), func(c, lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] += c + 1
		}
	})
	if n := len(tm.chunks(len(out))); n != 3 {
		t.Fatalf("%d chunks for a team of 3, want 3", n)
	}
	for i, v := range out {
		if v < 1 || v > 3 {
			t.Fatalf("item %d covered %d times", i, v)
		}
	}
}

// Teams only for builds of teamMin to teamMax primitives on more than one
// processor; primitivesIn reads counts from the descriptions, garbage
// included.
func TestTeamForSizes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, c := range []struct {
		geoms []Geometry
		want  bool
	}{
		{[]Geometry{{Type: GeometryTriangles, Triangles: Triangles{IndexFormat: IndexUint32, IndexCount: 3 * (teamMin - 1)}}}, false},
		{[]Geometry{{Type: GeometryTriangles, Triangles: Triangles{IndexFormat: IndexUint32, IndexCount: 3 * teamMin}}}, true},
		{[]Geometry{{Type: GeometryTriangles, Triangles: Triangles{VertexCount: 3 * teamMax}}}, true},
		{[]Geometry{{Type: GeometryProceduralAABBs, AABBs: AABBs{Count: teamMax + 1}}}, false},
		{[]Geometry{{Type: GeometryProceduralAABBs, AABBs: AABBs{Count: -5}}, {Type: GeometryProceduralAABBs, AABBs: AABBs{Count: teamMin}}}, true},
		{[]Geometry{{Type: GeometryTriangles, Triangles: Triangles{IndexFormat: IndexUint16, IndexCount: math.MaxInt}}}, false},
	} {
		tm := teamFor(primitivesIn(c.geoms))
		tm.stop()
		if (tm != nil) != c.want {
			t.Errorf("%d primitives: team %v, want %v", primitivesIn(c.geoms), tm != nil, c.want)
		}
	}
}

// One team at a time: a build that starts while another's team works gets
// none (its pieces go to goroutines of their own), and one after it does.
func TestOneTeamAtATime(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	first := teamFor(teamMin)
	if first == nil {
		t.Fatal("no team for the first build")
	}
	if second := teamFor(teamMin); second != nil {
		second.stop()
		first.stop()
		t.Fatal("a second team while the first works")
	}
	first.stop()
	first.stop() // stopping twice frees one place, not two
	third := teamFor(teamMin)
	if third == nil {
		t.Fatal("no team after the first stopped")
	}
	if fourth := teamFor(teamMin); fourth != nil {
		fourth.stop()
		third.stop()
		t.Fatal("two teams after a double stop")
	}
	third.stop()
}
