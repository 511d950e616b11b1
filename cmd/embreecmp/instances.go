//go:build embree

package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/raypipe/raypipe/internal/raygen"
	"github.com/raypipe/raypipe/vec"
)

// placeInstances returns n placements: each a rotation about a random
// axis, scaled by 1/cbrt(n) so that the instances fill about the same
// volume whatever their count, moved to a random point of [-1,1]^3.
func placeInstances(n int, seed uint64) []vec.Mat3x4 {
	rng := rand.New(rand.NewPCG(seed, 0x1457))
	scale := 1 / math.Cbrt(float64(n))
	out := make([]vec.Mat3x4, n)
	u := func() float64 { return rng.Float64()*2 - 1 }
	for i := range out {
		ax, ay, az := u(), u(), u()
		l := math.Sqrt(ax*ax + ay*ay + az*az)
		if l < 1e-3 {
			ax, ay, az, l = 0, 1, 0, 1
		}
		x, y, z := ax/l, ay/l, az/l
		a := rng.Float64() * 2 * math.Pi
		s, c := math.Sin(a), math.Cos(a)
		r := [3][3]float64{ // Rodrigues' rotation
			{c + x*x*(1-c), x*y*(1-c) - z*s, x*z*(1-c) + y*s},
			{y*x*(1-c) + z*s, c + y*y*(1-c), y*z*(1-c) - x*s},
			{z*x*(1-c) - y*s, z*y*(1-c) + x*s, c + z*z*(1-c)},
		}
		for row := range 3 {
			for col := range 3 {
				out[i][row][col] = float32(r[row][col] * scale)
			}
		}
		out[i][0][3], out[i][1][3], out[i][2][3] = float32(u()), float32(u()), float32(u())
	}
	return out
}

// instanceBounds returns the world box of the instances of a mesh with
// object-space box b: the box of its corners, placed.
func instanceBounds(b raygen.Bounds, transforms []vec.Mat3x4) raygen.Bounds {
	inf := float32(math.Inf(1))
	w := raygen.Bounds{Min: vec.V3(inf, inf, inf), Max: vec.V3(-inf, -inf, -inf)}
	for _, m := range transforms {
		for k := range 8 {
			p := m.TransformPoint(b.Corner(k))
			w.Min, w.Max = w.Min.Min(p), w.Max.Max(p)
		}
	}
	return w
}

// instanceShadowRays returns n shadow rays as raygen.Shadow makes them,
// from points on the placed triangles: n triangles drawn at random
// (instance and triangle uniform), placed in world space, are the mesh
// raygen.Shadow draws from.
func instanceShadowRays(m mesh, b raygen.Bounds, n int, seed uint64) []raygen.Ray {
	rng := rand.New(rand.NewPCG(seed, 0x5ad0))
	ntri := len(m.indices) / 3
	pos := make([]vec.Vec3, 0, 3*n)
	idx := make([]uint32, 0, 3*n)
	for range n {
		xf := &m.instances[rng.IntN(len(m.instances))]
		t := rng.IntN(ntri)
		for k := range 3 {
			idx = append(idx, uint32(len(pos)))
			pos = append(pos, xf.TransformPoint(m.positions[m.indices[3*t+k]]))
		}
	}
	return raygen.Shadow(pos, idx, b, n, seed)
}

// compareInstances is compare for a scene of instances: every tracer
// builds the mesh once (untimed) and then the top level over the
// instances, which is timed -build-reps times, and traces primary, shadow
// and incoherent rays through it. Build rows count instances a second:
// "top build" times the whole call from the instances' descriptions
// (raypipe's BuildTLAS; Embree's new scene with an instance geometry per
// instance, then rtcCommitScene), "top commit" Embree's rtcCommitScene
// alone (a program that moves its instances keeps their geometries and
// commits again; raypipe's row repeats its whole build). With -updates,
// "top update" times moving every instance a little, and back, in turn
// (best of twice -build-reps, each after a garbage collection): Embree
// setting each instance's transform and committing its scene again (which
// rebuilds the top-level BVH; embree.BuildMovableInstances), raypipe's
// TLAS.Update of a TLAS built with BuildAllowUpdate (a refit) from the
// instances' descriptions. Hits name the instance as their geometry.
func compareInstances(m mesh, tracers []tracer) error {
	n := len(m.instances)
	b := instanceBounds(raygen.BoundsOf(m.positions), m.instances)
	fmt.Printf("\n== %s: %d instances of %d triangles\n", m.name, n, len(m.indices)/3)
	kinds := []rayKind{
		{name: "primary", rays: raygen.Primary(b, *flagRes, *flagRes)},
		{name: "shadow", rays: instanceShadowRays(m, b, *flagRays, *flagSeed), occluded: true},
		{name: "incoherent", rays: raygen.Incoherent(b, *flagRays, *flagSeed)},
	}
	nt := *flagThreads
	rows := []string{"top build 1T Minst/s", fmt.Sprintf("top build %dT Minst/s", nt), "top commit 1T Minst/s", fmt.Sprintf("top commit %dT Minst/s", nt)}
	if *flagUpdates {
		rows = append(rows, "top update 1T Minst/s", fmt.Sprintf("top update %dT Minst/s", nt))
	}
	rows = append(rows, traceRows(kinds)...)
	results := newResults(len(tracers))
	scenes, err := buildPhases(tracers, func(ti int, t tracer, threads int) (scene, error) {
		d, commit, sc, err := bestTopBuild(t, m, threads)
		if err != nil {
			return nil, err
		}
		ri := 1
		if threads == 1 {
			ri = 0
		}
		results[ti][rows[ri]] = float64(n) / d.Seconds() / 1e6
		results[ti][rows[2+ri]] = float64(n) / commit.Seconds() / 1e6
		if *flagUpdates {
			u, err := bestTopUpdate(t, m, threads)
			if err != nil {
				sc.Close()
				return nil, err
			}
			results[ti][rows[4+ri]] = float64(n) / u.Seconds() / 1e6
		}
		return sc, nil
	})
	if err != nil {
		return err
	}
	defer closeAll(scenes)
	traceAndReport(kinds, tracers, scenes, results, rows, "same instance and primitive")
	return record(m.name, rows, tracers, results)
}

// bestTopBuild is bestBuild for compareInstances: the builder builds the
// mesh once, untimed, then the top level (bestRuns); it returns the best
// time of the whole call and the best commit time (see builder.Top), and
// the last scene, whose bottom level the builder's device keeps.
func bestTopBuild(t tracer, m mesh, threads int) (build, commit time.Duration, sc scene, err error) {
	b, done, err := openBuilder(t, threads)
	if err != nil {
		return 0, 0, nil, err
	}
	defer done()
	bot, err := b.Bottom(m.positions, m.indices)
	if err != nil {
		return 0, 0, nil, err
	}
	defer bot.Close() // the top levels hold their own references
	return bestRuns(func() (scene, time.Duration, error) { return b.Top(bot, m.instances) })
}

// bestTopUpdate returns the best time of twice -build-reps moves of the
// instances of a top level over m built for moving (untimed) with t, with
// the given threads (0: all), each after a garbage collection: to
// movedTransforms and back, in turn.
func bestTopUpdate(t tracer, m mesh, threads int) (time.Duration, error) {
	b, done, err := openBuilder(t, threads)
	if err != nil {
		return 0, err
	}
	defer done()
	bot, err := b.Bottom(m.positions, m.indices)
	if err != nil {
		return 0, err
	}
	defer bot.Close()
	mv, err := b.TopMovable(bot, m.instances)
	if err != nil {
		return 0, err
	}
	defer mv.Close()
	moved := movedTransforms(m.instances, instanceBounds(raygen.BoundsOf(m.positions), m.instances))
	return bestMoves(func(back bool) error {
		if back {
			return mv.Move(m.instances)
		}
		return mv.Move(moved)
	})
}

// movedTransforms returns transforms each moved by up to a thousandth of
// the scene's bounds' diagonal, in a direction fixed by its index: the
// instances of a scene moving a little from one frame to the next.
func movedTransforms(transforms []vec.Mat3x4, b raygen.Bounds) []vec.Mat3x4 {
	s := 1e-3 * b.Max.Sub(b.Min).Len()
	out := slices.Clone(transforms)
	for i := range out {
		a := float64(i)
		out[i][0][3] += s * float32(math.Sin(a))
		out[i][1][3] += s * float32(math.Cos(a))
		out[i][2][3] += s * float32(math.Sin(2*a))
	}
	return out
}
