//go:build embree

package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/internal/embree"
	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/internal/raygen"
	"github.com/raypipe/raypipe/vec"
)

// TestTracerNamesRoundTrip checks that every tracer name the command's doc
// lists makes the tracer it names (robust and stream Embree variants,
// batch raypipe ones), and that -embree-isa reaches Embree's tracers.
func TestTracerNamesRoundTrip(t *testing.T) {
	names := []string{
		"embree-low", "embree-medium", "embree-high",
		"embree-medium-robust", "embree-high-robust-stream", "embree-medium-stream",
		"raypipe-fastbuild", "raypipe-fasttrace", "raypipe-fasttrace-batch",
		"embree-medium-cut", "embree-high-stream-cut", "raypipe-fasttrace-cut",
	}
	ts, err := makeTracers(strings.Join(names, ","), "avx2")
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range ts {
		if tr.Name() != names[i] {
			t.Errorf("tracer %q is named %q", names[i], tr.Name())
		}
		if e, ok := tr.(embreeTracer); ok && e.maxISA != "avx2" {
			t.Errorf("tracer %q: max ISA %q, want avx2", names[i], e.maxISA)
		}
	}
	if e := ts[3].(embreeTracer); !e.robust || e.stream || e.quality != embree.Medium {
		t.Errorf("embree-medium-robust made %+v", e)
	}
}

// TestBadTracersAndISAAreErrors checks that a tracer name out of the
// list, variants in the wrong order or on the wrong library, and an
// unknown -embree-isa end the run naming the value.
func TestBadTracersAndISAAreErrors(t *testing.T) {
	for _, name := range []string{"embree-best", "embree-medium-stream-robust", "raypipe-fasttrace-stream", "embree-medium-batch", "raypipe-robust",
		"raypipe-fasttrace-batch-cut", "raypipe-fasttrace-cut-batch", "embree-medium-cut-stream", ""} {
		if _, err := makeTracers(name, ""); err == nil || (name != "" && !strings.Contains(err.Error(), name)) {
			t.Errorf("tracers %q: error %v, want one naming it", name, err)
		}
	}
	defer func(isa string) { *flagEmbreeISA = isa }(*flagEmbreeISA)
	*flagEmbreeISA = "avx1024"
	if err := run(); err == nil || !strings.Contains(err.Error(), "avx1024") {
		t.Errorf("-embree-isa avx1024: error %v, want one naming it", err)
	}
}

// TestCutTracersAgree traces a soup and a top level of its instances with
// the -cut tracers, Embree's filter functions and raypipe's Traversal
// loop: the same closest hits and shadow answers, none on a cut triangle,
// where the uncut Embree scene does hit cut triangles.
func TestCutTracersAgree(t *testing.T) {
	ts, err := makeTracers("embree-medium-cut,raypipe-fasttrace-cut,embree-medium", "")
	if err != nil {
		t.Fatal(err)
	}
	pos, idx := meshgen.Soup(3000, 9)
	b := raygen.BoundsOf(pos)
	rays := append(raygen.Incoherent(b, 3000, 10), raygen.Primary(b, 40, 40)...)
	shadow := raygen.Shadow(pos, idx, b, 3000, 11)
	xf := []vec.Mat3x4{vec.Identity3x4, vec.Translate3x4(vec.V3(0.3, 0, 0))}
	hits := make([][]hit, len(ts))
	occ := make([][]bool, len(ts))
	for _, level := range []string{"mesh", "instances"} {
		for i, tr := range ts {
			bd, err := tr.Builder(1)
			if err != nil {
				t.Fatal(err)
			}
			var sc scene
			if level == "mesh" {
				sc, err = bd.Build(pos, idx)
			} else {
				var bot bottom
				if bot, err = bd.Bottom(pos, idx); err == nil {
					sc, _, err = bd.Top(bot, xf)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			hits[i], occ[i] = make([]hit, len(rays)), make([]bool, len(shadow))
			sc.Intersect(rays, hits[i])
			sc.Occluded(shadow, occ[i])
			sc.Close()
			bd.Close()
		}
		if a := compareHits(rays, hits[1], hits[0]); a.hitMiss+a.differ > len(rays)/1000 {
			t.Errorf("%s: raypipe's cut hits against Embree's: %v", level, a)
		}
		if a := compareOccluded(occ[1], occ[0]); a.hitMiss+a.differ > len(shadow)/1000 {
			t.Errorf("%s: raypipe's cut shadow rays against Embree's: %v", level, a)
		}
		cutHit, uncutHit, same := 0, 0, 0
		for k := range rays {
			if h := hits[1][k]; !h.Miss() && h.PrimID%embree.CutPeriod == 0 {
				cutHit++
			}
			if h := hits[2][k]; !h.Miss() && h.PrimID%embree.CutPeriod == 0 {
				uncutHit++
			}
			if hits[1][k] == hits[2][k] {
				same++
			}
		}
		if cutHit != 0 || uncutHit < 100 || same == len(rays) {
			t.Errorf("%s: %d hits on cut triangles (uncut Embree: %d), %d of %d hits as uncut", level, cutHit, uncutHit, same, len(rays))
		}
	}
}

// TestOneThreadBuildsComeFirst checks buildPhases' order: every tracer's
// one-thread build before any all-threads build (whose scene stays open,
// and with it an Embree device that would lift the next one-thread
// device's limit), each tracer once per phase, and an error that names
// the tracer and stops the builds.
func TestOneThreadBuildsComeFirst(t *testing.T) {
	ts, err := makeTracers("embree-medium,embree-medium-robust,raypipe-fasttrace", "")
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	_, err = buildPhases(ts, func(ti int, tr tracer, threads int) (scene, error) {
		calls = append(calls, fmt.Sprintf("%d:%d", ti, threads))
		return nopScene{}, nil
	})
	want := []string{"0:1", "1:1", "2:1", "0:0", "1:0", "2:0"}
	if err != nil || !slices.Equal(calls, want) {
		t.Errorf("builds %v (error %v), want %v", calls, err, want)
	}
	calls = nil
	_, err = buildPhases(ts, func(ti int, tr tracer, threads int) (scene, error) {
		calls = append(calls, fmt.Sprintf("%d:%d", ti, threads))
		if ti == 1 {
			return nil, errors.New("out of memory")
		}
		return nopScene{}, nil
	})
	if err == nil || !strings.Contains(err.Error(), "embree-medium-robust: out of memory") || len(calls) != 2 {
		t.Errorf("a failing build: error %v after builds %v", err, calls)
	}
}

// nopScene is a scene that traces nothing, for buildPhases' tests.
type nopScene struct{}

func (nopScene) Intersect([]raygen.Ray, []hit) {}
func (nopScene) Occluded([]raygen.Ray, []bool) {}
func (nopScene) Close()                        {}

// -tree-stats describes each raypipe tracer's tree with the areas of its
// TreeStats, and passes over Embree's scenes (Embree prints its own).
func TestTreeLinesDescribeRaypipeTrees(t *testing.T) {
	ts, err := makeTracers("embree-medium,raypipe-fasttrace", "")
	if err != nil {
		t.Fatal(err)
	}
	m := mesh{positions: []vec.Vec3{{X: 0, Y: 0, Z: 0}, {X: 1, Y: 0, Z: 0}, {X: 0, Y: 1, Z: 1}}, indices: []uint32{0, 1, 2}}
	var scenes []scene
	for _, tr := range ts {
		b, err := tr.Builder(1)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := b.Build(m.positions, m.indices)
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		defer b.Close()
		scenes = append(scenes, sc)
	}
	lines := treeLines(ts, scenes)
	// One triangle: one wide node and one leaf, each with the root's box.
	want := "tree of raypipe-fasttrace: 1 wide nodes, 1 leaves (1.0 references each); area of wide nodes 1.000, of leaves 1.000, relative to the root's"
	if len(lines) != 1 || lines[0] != want {
		t.Errorf("lines %q, want [%q]", lines, want)
	}
}

// The update rows move every vertex by a little (at most a thousandth of
// the bounds' diagonal in each axis, not at all nowhere), and both kinds
// of tracer take such an update, and refuse one with another vertex count.
func TestUpdatesMoveEveryVertexALittle(t *testing.T) {
	m := mesh{name: "terrain"}
	m.positions, m.indices = meshgen.Terrain(2000, 1)
	moved := movedPositions(m.positions)
	b := raygen.BoundsOf(m.positions)
	limit := 1e-3 * b.Max.Sub(b.Min).Len()
	for i, p := range m.positions {
		d := moved[i].Sub(p)
		if d == (vec.Vec3{}) || max(abs32(d.X), abs32(d.Y), abs32(d.Z)) > limit*1.0001 {
			t.Fatalf("vertex %d moved by %v (limit %g)", i, d, limit)
		}
	}
	ts, err := makeTracers("embree-medium,raypipe-fasttrace", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range ts {
		d, err := bestUpdate(tr, m, 1)
		if err != nil || d <= 0 {
			t.Fatalf("%s: update %v, %v", tr.Name(), d, err)
		}
		bl, err := tr.Builder(1)
		if err != nil {
			t.Fatal(err)
		}
		u, err := bl.Updatable(m.positions, m.indices)
		if err != nil {
			t.Fatal(err)
		}
		if err := u.Update(moved[1:]); err == nil {
			t.Errorf("%s: an update with one vertex fewer was taken", tr.Name())
		}
		if ru, ok := u.(raypipeUpdatable); ok {
			// raypipe's copies the positions into its vertex buffer: the
			// updated BLAS hits what one built over them hits.
			for _, pos := range [][]vec.Vec3{moved, m.positions} {
				if err := u.Update(pos); err != nil {
					t.Fatal(err)
				}
				fresh, err := accel.BuildBLAS([]accel.Geometry{accel.TriangleGeometry(pos, m.indices)}, 0)
				if err != nil {
					t.Fatal(err)
				}
				hits := 0
				for i := range 200 {
					r := accel.Ray{Origin: vec.V3(b.Min.X+(b.Max.X-b.Min.X)*float32(i)/200, b.Max.Y+1, (b.Min.Z+b.Max.Z)/2), Direction: vec.V3(0.01, -1, 0.02), TMax: 1e30}
					got, gok := ru.blas.Intersect(r, 0)
					want, wok := fresh.Intersect(r, 0)
					if gok != wok || gok && (got.T != want.T || got.PrimitiveIndex != want.PrimitiveIndex) {
						t.Fatalf("ray %d: updated %v %+v, fresh %v %+v", i, gok, got, wok, want)
					}
					if gok {
						hits++
					}
				}
				if hits < 100 {
					t.Fatalf("%d of 200 rays hit", hits)
				}
			}
		}
		u.Close()
		bl.Close()
	}
}
