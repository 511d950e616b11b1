//go:build embree

package embree

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/internal/raygen"
	"github.com/raypipe/raypipe/vec"
)

// oracleHit is the brute-force answer for one ray: the closest t (+Inf on a
// miss), its triangle, and the smallest barycentric coordinate of that hit
// (how far inside the triangle it is).
type oracleHit struct {
	t      float64
	prim   int
	margin float64
}

// triHit intersects a ray with one triangle in float64 (Möller–Trumbore),
// returning t, the barycentrics (u, v) of vertices 1 and 2, and ok.
func triHit(r raygen.Ray, p0, p1, p2 vec.Vec3) (t, u, v float64, ok bool) {
	d := func(a vec.Vec3) [3]float64 { return [3]float64{float64(a.X), float64(a.Y), float64(a.Z)} }
	sub := func(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
	dot := func(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	cross := func(a, b [3]float64) [3]float64 {
		return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	}
	o, dir := d(r.Origin), d(r.Dir)
	a := d(p0)
	e1, e2 := sub(d(p1), a), sub(d(p2), a)
	pv := cross(dir, e2)
	det := dot(e1, pv)
	if det == 0 {
		return 0, 0, 0, false
	}
	inv := 1 / det
	tv := sub(o, a)
	u = dot(tv, pv) * inv
	qv := cross(tv, e1)
	v = dot(dir, qv) * inv
	t = dot(e2, qv) * inv
	ok = u >= 0 && v >= 0 && u+v <= 1 && t >= float64(r.TMin) && t <= float64(r.TMax)
	return t, u, v, ok
}

func oracle(pos []vec.Vec3, idx []uint32, r raygen.Ray) oracleHit {
	best := oracleHit{t: math.Inf(1), prim: -1}
	for i := 0; i < len(idx); i += 3 {
		t, u, v, ok := triHit(r, pos[idx[i]], pos[idx[i+1]], pos[idx[i+2]])
		if ok && t < best.t {
			best = oracleHit{t: t, prim: i / 3, margin: min(u, v, 1-u-v)}
		}
	}
	return best
}

func relClose(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*max(math.Abs(a), math.Abs(b), 1e-30)
}

// tClose reports whether Embree's t agrees with the oracle's within 1e-4
// relative to the larger of t and the ray's origin in units of t: a hit
// a hair from the origin carries float32 error of order |origin|*2^-24
// (robust mode's Pluecker test computes t from the vertices relative to
// the origin), which a purely relative test would flag.
func tClose(got float32, want float64, r raygen.Ray) bool {
	o := r.Origin
	scale := max(math.Abs(float64(o.X)), math.Abs(float64(o.Y)), math.Abs(float64(o.Z)))
	if l := float64(r.Dir.Len()); l > 0 {
		scale /= l
	}
	return math.Abs(float64(got)-want) <= 1e-4*max(math.Abs(float64(got)), math.Abs(want), scale)
}

func TestIntersectMatchesOracle(t *testing.T) {
	dev, err := NewDevice(2)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	// A robust device whose kernels are capped at SSE2 (other kernels,
	// Triangle4v leaves and the Pluecker intersector) must answer alike.
	robust, err := NewDeviceConfig(Config{Threads: 1, MaxISA: "sse2", Robust: true})
	if err != nil {
		t.Fatal(err)
	}
	defer robust.Close()
	type mesh struct {
		name     string
		pos      []vec.Vec3
		idx      []uint32
		quality  Quality
		parallel bool
		dev      *Device
	}
	var meshes []mesh
	p, i := meshgen.Terrain(800, 1)
	meshes = append(meshes, mesh{"terrain", p, i, Medium, false, dev})
	meshes = append(meshes, mesh{"terrain-robust-sse2", p, i, Medium, false, robust})
	p, i = meshgen.Soup(600, 2)
	meshes = append(meshes, mesh{"soup", p, i, High, true, dev})
	meshes = append(meshes, mesh{"soup-robust-sse2", p, i, High, true, robust})
	for _, m := range meshes {
		t.Run(m.name, func(t *testing.T) {
			sc, err := m.dev.BuildTriangles(m.pos, m.idx, m.quality)
			if err != nil {
				t.Fatal(err)
			}
			defer sc.Close()
			b := raygen.BoundsOf(m.pos)
			var rays []raygen.Ray
			rays = append(rays, raygen.Primary(b, 48, 32)...)
			rays = append(rays, raygen.Incoherent(b, 1500, 3)...)
			shadow := raygen.Shadow(m.pos, m.idx, b, 1500, 4)
			rays = append(rays, shadow...)
			hits := make([]Hit, len(rays))
			if m.parallel {
				sc.IntersectParallel(rays, hits, 3)
			} else {
				sc.Intersect(rays, hits)
			}
			nhit, edge := 0, 0
			for k, r := range rays {
				want, got := oracle(m.pos, m.idx, r), hits[k]
				if math.IsInf(want.t, 1) != got.Miss() {
					// Embree is not watertight: allow disagreement only for
					// hits on an edge.
					if !got.Miss() || want.margin > 1e-5 {
						t.Errorf("ray %d: embree %+v, oracle %+v", k, got, want)
					}
					edge++
					continue
				}
				if got.Miss() {
					continue
				}
				nhit++
				if !tClose(got.T, want.t, r) {
					t.Errorf("ray %d: embree t %g, oracle t %g", k, got.T, want.t)
				}
				if int(got.PrimID) != want.prim {
					// A tie (shared edge, overlap): Embree's triangle must be
					// hit at the same t.
					pr := int(got.PrimID)
					tt, _, _, ok := triHit(r, m.pos[m.idx[3*pr]], m.pos[m.idx[3*pr+1]], m.pos[m.idx[3*pr+2]])
					if !ok || !relClose(tt, want.t, 1e-4) {
						t.Errorf("ray %d: embree prim %d, oracle prim %d (t %g vs %g)", k, pr, want.prim, tt, want.t)
					}
					continue
				}
				// Barycentrics of the same triangle agree.
				_, ou, ov, _ := triHit(r, m.pos[m.idx[3*want.prim]], m.pos[m.idx[3*want.prim+1]], m.pos[m.idx[3*want.prim+2]])
				if math.Abs(float64(got.U)-ou) > 1e-3 || math.Abs(float64(got.V)-ov) > 1e-3 || got.GeomID != 0 {
					t.Errorf("ray %d: embree (u,v,geom) = (%g,%g,%d), oracle (%g,%g,0)", k, got.U, got.V, got.GeomID, ou, ov)
				}
			}
			if nhit < len(rays)/4 {
				t.Errorf("only %d of %d rays hit", nhit, len(rays))
			}
			t.Logf("%d rays, %d hits, %d edge disagreements", len(rays), nhit, edge)

			// Occluded agrees with Intersect (TMax is respected), and the
			// parallel version with the serial one.
			occ := make([]bool, len(rays))
			occ2 := make([]bool, len(rays))
			sc.Occluded(rays, occ)
			sc.OccludedParallel(rays, occ2, 4)
			for k := range rays {
				if occ[k] != !hits[k].Miss() || occ2[k] != occ[k] {
					t.Errorf("ray %d: occluded %v/%v, hit %+v", k, occ[k], occ2[k], hits[k])
				}
			}
		})
	}
}

// BuildTrianglesCut's filter functions reject every triangle whose
// primitive ID is a multiple of CutPeriod: its closest hits are the
// oracle's over the other triangles (the cut ones made degenerate, which
// keeps the IDs), and Occluded says whether any other is hit, on the
// scene and on instances of it.
func TestCutScenesSkipTheCutTriangles(t *testing.T) {
	dev, err := NewDevice(1)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	pos, idx := meshgen.Soup(600, 5)
	kept := slices.Clone(idx)
	for p := 0; p < len(idx)/3; p += CutPeriod {
		kept[3*p+1], kept[3*p+2] = kept[3*p], kept[3*p]
	}
	sc, err := dev.BuildTrianglesCut(pos, idx, Medium)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	inst, _, err := dev.BuildInstances(sc, []vec.Mat3x4{vec.Identity3x4}, Medium)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	b := raygen.BoundsOf(pos)
	rays := append(raygen.Primary(b, 40, 30), raygen.Incoherent(b, 1500, 6)...)
	for name, s := range map[string]*Scene{"scene": sc, "instances": inst} {
		hits, occ := make([]Hit, len(rays)), make([]bool, len(rays))
		s.Intersect(rays, hits)
		s.Occluded(rays, occ)
		nhit, cutBehind := 0, 0
		for k, r := range rays {
			want, got := oracle(pos, kept, r), hits[k]
			if math.IsInf(want.t, 1) != got.Miss() {
				if !got.Miss() || want.margin > 1e-5 {
					t.Fatalf("%s ray %d: embree %+v, oracle %+v", name, k, got, want)
				}
				continue
			}
			if occ[k] != !got.Miss() {
				t.Fatalf("%s ray %d: occluded %v, hit %+v", name, k, occ[k], got)
			}
			if got.Miss() {
				continue
			}
			nhit++
			if got.PrimID%CutPeriod == 0 || !tClose(got.T, want.t, r) {
				t.Fatalf("%s ray %d: embree prim %d at t %g, oracle prim %d at %g", name, k, got.PrimID, got.T, want.prim, want.t)
			}
			if all := oracle(pos, idx, r); all.prim%CutPeriod == 0 {
				cutBehind++ // a cut triangle in front of the hit
			}
		}
		if nhit < len(rays)/4 || cutBehind < 50 {
			t.Fatalf("%s: %d of %d rays hit, %d past a cut triangle", name, nhit, len(rays), cutBehind)
		}
	}
}

func TestShadowRaysStartAboveSurface(t *testing.T) {
	// Shadow rays leave the surface on the light's side, ShadowEpsilon away
	// from it: none hits the surface right at its origin (a hit on the
	// triangle it starts from would be at t ~ 0; neighbors at a concave
	// crease can be hit a few epsilons away).
	dev, err := NewDevice(1)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	pos, idx := meshgen.Terrain(2000, 5)
	sc, err := dev.BuildTriangles(pos, idx, Low)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	b := raygen.BoundsOf(pos)
	rays := raygen.Shadow(pos, idx, b, 4000, 1)
	hits := make([]Hit, len(rays))
	sc.Intersect(rays, hits)
	eps := raygen.ShadowEpsilon * b.Diagonal()
	for k, h := range hits {
		if !h.Miss() && h.T < eps/2 {
			t.Fatalf("shadow ray %d hits at t=%g (self-intersection)", k, h.T)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	dev, err := NewDevice(1)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	pos := []vec.Vec3{vec.V3(0, 0, 0), vec.V3(1, 0, 0), vec.V3(0, 1, 0)}
	for name, build := range map[string]func([]vec.Vec3, []uint32, Quality) (*Scene, error){
		"BuildTriangles": dev.BuildTriangles, "BuildTrianglesCut": dev.BuildTrianglesCut,
	} {
		if _, err := build(pos, []uint32{0, 1, 3}, Medium); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("%s: out-of-range index: %v", name, err)
		}
		if _, err := build(pos, []uint32{0, 1}, Medium); err == nil || !strings.Contains(err.Error(), "multiple of 3") {
			t.Errorf("%s: partial triangle: %v", name, err)
		}
		if _, err := build(pos, []uint32{0, 1, 2}, Quality(7)); err == nil {
			t.Errorf("%s: bad quality accepted", name)
		}
	}
	// An empty scene builds and misses everything.
	sc, err := dev.BuildTriangles(nil, nil, Medium)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	hits := make([]Hit, 1)
	sc.Intersect([]raygen.Ray{{Dir: vec.V3(0, 0, 1), TMax: float32(math.Inf(1))}}, hits)
	if !hits[0].Miss() || !math.IsInf(float64(hits[0].T), 1) {
		t.Errorf("empty scene hit %+v", hits[0])
	}
}

// A device's configuration is checked before Embree sees it: an unknown
// instruction set is refused with the sets it may be.
func TestConfigErrors(t *testing.T) {
	for _, isa := range []string{"avx3", "AVX2", "sse"} {
		d, err := NewDeviceConfig(Config{MaxISA: isa})
		if err == nil {
			d.Close()
			t.Errorf("MaxISA %q accepted", isa)
			continue
		}
		if !strings.Contains(err.Error(), isa) || !strings.Contains(err.Error(), "avx512") {
			t.Errorf("MaxISA %q: error %q does not name it and the choices", isa, err)
		}
	}
	for _, isa := range ISAs {
		d, err := NewDeviceConfig(Config{Threads: 1, MaxISA: isa})
		if err != nil {
			t.Errorf("MaxISA %q: %v", isa, err)
			continue
		}
		d.Close()
	}
}

// Config's fields become Embree's configuration string, and a negative
// verbosity is refused before Embree sees it.
func TestConfigString(t *testing.T) {
	for _, c := range []struct {
		c    Config
		want string
	}{
		{Config{}, ""},
		{Config{Threads: 2, MaxISA: "avx2"}, "threads=2,max_isa=avx2"},
		{Config{Threads: 1, Verbose: 2}, "threads=1,verbose=2"},
	} {
		if got, err := c.c.config(); err != nil || got != c.want {
			t.Errorf("%+v: %q, %v; want %q", c.c, got, err, c.want)
		}
	}
	if d, err := NewDeviceConfig(Config{Verbose: -1}); err == nil {
		d.Close()
		t.Error("negative verbosity accepted")
	} else if !strings.Contains(err.Error(), "verbosity -1") {
		t.Errorf("negative verbosity: error %q does not name it", err)
	}
}

func TestEmbreeError(t *testing.T) {
	// A malformed configuration is reported as an Embree error.
	if d, err := newDevice("threads=", false); err == nil {
		d.Close()
		t.Error("bad configuration accepted")
	} else {
		t.Log(err)
	}
	e := &Error{Code: 2, Message: "x"}
	if e.Error() != "embree: invalid argument: x" {
		t.Errorf("Error() = %q", e.Error())
	}
}

// Parallel hands f the chunks of [0, n) whatever the worker count: each
// call covers at most chunk items and together they cover every item once,
// so the one-thread rows time calls of the same size as the others.
func TestParallelCallsChunksForAnyWorkerCount(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 4096, 4097, 10000} {
		for _, workers := range []int{1, 2, 3, 2 * runtime.GOMAXPROCS(0)} {
			var mu sync.Mutex
			seen := make([]int, n)
			Parallel(n, 4096, workers, func(lo, hi int) {
				if hi-lo > 4096 || lo >= hi {
					t.Errorf("n %d, %d workers: call [%d, %d)", n, workers, lo, hi)
				}
				mu.Lock()
				defer mu.Unlock()
				for i := lo; i < hi; i++ {
					seen[i]++
				}
			})
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("n %d, %d workers: item %d covered %d times", n, workers, i, c)
				}
			}
		}
	}
}

// Together's start line: every goroutine prepares before any runs, and
// each index is prepared and run exactly once, for counts below, at and
// above GOMAXPROCS.
func TestTogetherStartsNoneBeforeAllArePrepared(t *testing.T) {
	for _, n := range []int{1, 2, runtime.GOMAXPROCS(0), 2*runtime.GOMAXPROCS(0) + 1} {
		var prepared atomic.Int32
		prep := make([]atomic.Int32, n)
		ran := make([]atomic.Int32, n)
		var early atomic.Int32
		start := Together(n, func(w int) {
			prep[w].Add(1)
			prepared.Add(1)
		}, func(w int) {
			if prepared.Load() != int32(n) {
				early.Add(1)
			}
			ran[w].Add(1)
		})
		if start.IsZero() {
			t.Errorf("n %d: no start time", n)
		}
		if early.Load() != 0 {
			t.Errorf("n %d: %d goroutines ran before every one had prepared", n, early.Load())
		}
		for w := range n {
			if prep[w].Load() != 1 || ran[w].Load() != 1 {
				t.Errorf("n %d: goroutine %d prepared %d times and ran %d", n, w, prep[w].Load(), ran[w].Load())
			}
		}
	}
}

// Parallel's time covers every chunk's work, including the last worker's:
// with each of eight chunks taking at least 2 ms and at most as many
// workers as chunks, the busiest worker takes 2 ms or more.
func TestParallelTimesTheWholeBatch(t *testing.T) {
	for _, workers := range []int{1, 2, 8, 16} {
		d := Parallel(8*100, 100, workers, func(lo, hi int) { time.Sleep(2 * time.Millisecond) })
		if want := time.Duration(8/min(workers, 8)) * 2 * time.Millisecond; d < want {
			t.Errorf("%d workers: Parallel took %v, want at least %v", workers, d, want)
		}
	}
}

// TestDeviceOutlivesItsScenes checks that closing a device with scenes
// still open keeps it (and the C state its error callback writes) until
// the last of them is closed, and that the scenes still trace meanwhile.
func TestDeviceOutlivesItsScenes(t *testing.T) {
	dev, err := NewDevice(1)
	if err != nil {
		t.Fatal(err)
	}
	pos, idx := meshgen.Terrain(2000, 5)
	a, err := dev.BuildTriangles(pos, idx, Medium)
	if err != nil {
		t.Fatal(err)
	}
	b, err := dev.BuildTriangles(pos, idx, Medium)
	if err != nil {
		t.Fatal(err)
	}
	dev.Close()
	if dev.d == nil {
		t.Fatal("the device was released with two scenes open")
	}
	if _, err := dev.BuildTriangles(pos, idx, Medium); err == nil {
		t.Error("a closed device built a scene")
	}
	rays := raygen.Incoherent(raygen.BoundsOf(pos), 1000, 2)
	want, got := make([]Hit, len(rays)), make([]Hit, len(rays))
	a.Intersect(rays, want)
	a.Close()
	if dev.d == nil {
		t.Fatal("the device was released with one scene open")
	}
	b.Intersect(rays, got)
	for i := range rays {
		if got[i] != want[i] {
			t.Fatalf("ray %d: %+v after the device's Close, %+v before", i, got[i], want[i])
		}
	}
	b.Close()
	if dev.d != nil {
		t.Error("the device was not released with its last scene")
	}
	b.Close() // a second Close is a no-op
	dev.Close()
}

// TestInstancesMatchFlattenedOracle builds a scene of instances of a
// small terrain, rotated, scaled and moved, and checks its hits against
// the brute-force oracle on the flattened world mesh (every instance's
// triangles mapped to world space): the same t, the instance as GeomID
// and the triangle as PrimID (the flattened triangle's index is instance
// times triangles plus triangle), ties and edges as in
// TestIntersectMatchesOracle.
func TestInstancesMatchFlattenedOracle(t *testing.T) {
	dev, bottom, pos, idx, xfs := instancedTerrain(t)
	defer dev.Close()
	defer bottom.Close()
	sc, commit, err := dev.BuildInstances(bottom, xfs, Medium)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if commit <= 0 {
		t.Errorf("commit time %v", commit)
	}
	checkInstances(t, sc, pos, idx, xfs)
	t.Logf("commit %v", commit)
}

// checkInstances checks sc, a scene of instances of the mesh pos, idx
// placed by xfs, against the brute-force oracle on the mesh flattened
// into world space: closest hits' t, and the instance and triangle hit
// (or one at the same t).
func checkInstances(t *testing.T, sc *Scene, pos []vec.Vec3, idx []uint32, xfs []vec.Mat3x4) {
	t.Helper()
	var wpos []vec.Vec3
	var widx []uint32
	for _, m := range xfs {
		base := uint32(len(wpos))
		for _, p := range pos {
			wpos = append(wpos, m.TransformPoint(p))
		}
		for _, i := range idx {
			widx = append(widx, base+i)
		}
	}
	ntri := len(idx) / 3
	b := raygen.BoundsOf(wpos)
	rays := append(raygen.Incoherent(b, 3000, 7), raygen.Primary(b, 40, 30)...)
	hits := make([]Hit, len(rays))
	sc.Intersect(rays, hits)
	nhit := 0
	for k, r := range rays {
		want, got := oracle(wpos, widx, r), hits[k]
		if math.IsInf(want.t, 1) != got.Miss() {
			if !got.Miss() || want.margin > 1e-5 {
				t.Errorf("ray %d: embree %+v, oracle %+v", k, got, want)
			}
			continue
		}
		if got.Miss() {
			continue
		}
		nhit++
		if !relClose(float64(got.T), want.t, 1e-4) {
			t.Errorf("ray %d: embree t %g, oracle t %g", k, got.T, want.t)
		}
		flat := int(got.GeomID)*ntri + int(got.PrimID)
		if int(got.GeomID) >= len(xfs) || int(got.PrimID) >= ntri {
			t.Errorf("ray %d: instance %d triangle %d out of range", k, got.GeomID, got.PrimID)
			continue
		}
		if flat != want.prim {
			tt, _, _, ok := triHit(r, wpos[widx[3*flat]], wpos[widx[3*flat+1]], wpos[widx[3*flat+2]])
			if !ok || !relClose(tt, want.t, 1e-4) {
				t.Errorf("ray %d: embree instance %d triangle %d, oracle flattened triangle %d", k, got.GeomID, got.PrimID, want.prim)
			}
		}
	}
	if nhit < len(rays)/5 {
		t.Errorf("only %d of %d rays hit", nhit, len(rays))
	}
}

// instancedTerrain returns a device (two threads), a terrain built on it
// as the bottom of instances, the terrain's mesh and three placements of
// it (the identity, a rotation with scale, a rotation about y).
func instancedTerrain(t *testing.T) (*Device, *Scene, []vec.Vec3, []uint32, []vec.Mat3x4) {
	t.Helper()
	dev, err := NewDevice(2)
	if err != nil {
		t.Fatal(err)
	}
	pos, idx := meshgen.Terrain(300, 5)
	bottom, err := dev.BuildTriangles(pos, idx, Medium)
	if err != nil {
		dev.Close()
		t.Fatal(err)
	}
	xfs := []vec.Mat3x4{
		{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}},
		{{0, -0.5, 0, 1.5}, {0.5, 0, 0, 0.2}, {0, 0, 0.5, -0.3}},
		{{0.7, 0, 0.7, -1.2}, {0, 1, 0, 0.5}, {-0.7, 0, 0.7, 0.4}},
	}
	return dev, bottom, pos, idx, xfs
}

// Movable instances answer for the transforms they were last moved to
// (checked against the flattened oracle after a move that changes every
// instance's place), and Move refuses another count of transforms or a
// closed scene.
func TestMovedInstancesFollowTheirTransforms(t *testing.T) {
	dev, bottom, pos, idx, xfs := instancedTerrain(t)
	defer dev.Close()
	defer bottom.Close()
	sc, err := dev.BuildMovableInstances(bottom, xfs, Medium)
	if err != nil {
		t.Fatal(err)
	}
	checkInstances(t, sc.Scene, pos, idx, xfs)
	moved := []vec.Mat3x4{
		{{0, 1, 0, 2}, {-1, 0, 0, 0.1}, {0, 0, 1, 0.3}},
		{{0.5, 0, 0, -1}, {0, 0.5, 0, 0.7}, {0, 0, 0.5, 0}},
		{{1, 0, 0, 0.5}, {0, 0.7, -0.7, 1}, {0, 0.7, 0.7, -0.2}},
	}
	if err := sc.Move(moved); err != nil {
		t.Fatal(err)
	}
	checkInstances(t, sc.Scene, pos, idx, moved)
	if err := sc.Move(moved[1:]); err == nil || !strings.Contains(err.Error(), "3 instances") {
		t.Errorf("Move of 2 transforms on 3 instances: error %v", err)
	}
	sc.Close()
	if err := sc.Move(moved); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Move on a closed scene: error %v", err)
	}
}

// TestBuildInstancesErrors checks that BuildInstances refuses, with an
// error that names the problem, a missing bottom scene, one built on
// another device or already closed, a bad quality and a closed device.
func TestBuildInstancesErrors(t *testing.T) {
	dev, err := NewDevice(1)
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewDevice(1)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	pos := []vec.Vec3{vec.V3(0, 0, 0), vec.V3(1, 0, 0), vec.V3(0, 1, 0)}
	bottom, err := dev.BuildTriangles(pos, []uint32{0, 1, 2}, Medium)
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := other.BuildTriangles(pos, []uint32{0, 1, 2}, Medium)
	if err != nil {
		t.Fatal(err)
	}
	defer foreign.Close()
	xfs := []vec.Mat3x4{vec.Identity3x4}
	want := func(name string, err error, msg string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want one saying %q", name, err, msg)
		}
	}
	_, _, err = dev.BuildInstances(nil, xfs, Medium)
	want("nil bottom", err, "same device")
	_, _, err = dev.BuildInstances(foreign, xfs, Medium)
	want("bottom of another device", err, "same device")
	_, _, err = dev.BuildInstances(bottom, xfs, Quality(7))
	want("bad quality", err, "unknown build quality")
	bottom.Close()
	_, _, err = dev.BuildInstances(bottom, xfs, Medium)
	want("closed bottom", err, "must be open")
	dev.Close()
	_, _, err = dev.BuildInstances(bottom, xfs, Medium)
	want("closed device", err, "device is closed")
}

// A refittable scene answers for the vertices it was last refitted to
// (checked against the brute-force oracle after a move that changes every
// box), and Refit refuses another vertex count.
func TestRefitFollowsTheMovedVertices(t *testing.T) {
	dev, err := NewDevice(2)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	pos, idx := meshgen.Terrain(800, 1)
	sc, err := dev.BuildRefittable(pos, idx)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	moved := make([]vec.Vec3, len(pos))
	for i, p := range pos {
		moved[i] = vec.V3(p.X+0.1*p.Y, p.Y, 0.5+2*p.Z) // sheared, lifted, steeper
	}
	if err := sc.Refit(moved); err != nil {
		t.Fatal(err)
	}
	rays := raygen.Incoherent(raygen.BoundsOf(moved), 3000, 5)
	hits := make([]Hit, len(rays))
	sc.Intersect(rays, hits)
	nhit := 0
	for k, r := range rays {
		want, got := oracle(moved, idx, r), hits[k]
		if math.IsInf(want.t, 1) != got.Miss() {
			if want.margin > 1e-5 {
				t.Errorf("ray %d: embree %+v, oracle %+v", k, got, want)
			}
			continue
		}
		if !got.Miss() {
			nhit++
			if !tClose(got.T, want.t, r) {
				t.Errorf("ray %d: embree t %g, oracle t %g", k, got.T, want.t)
			}
		}
	}
	if nhit < len(rays)/10 {
		t.Errorf("only %d of %d rays hit", nhit, len(rays))
	}
	if err := sc.Refit(moved[1:]); err == nil {
		t.Error("Refit took fewer vertices than the scene has")
	}
}
