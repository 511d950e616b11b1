package accel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/vec"
)

// Benchmarks over procedural scenes generated here: a heightfield
// "terrain" (a regular grid, coherent) and a random triangle soup. Run
// with, e.g.:
//
//	go test -run='^$' -bench=. -benchtime=1x ./accel/
//
// The 2M-triangle build is BenchmarkBuildLarge, selected only by name.

var benchSizes = []benchSize{{"1k", 1000}, {"100k", 100000}, {"1M", 1000000}}

// benchSize is a benchmark scene's size, named for the benchmark's name.
type benchSize struct {
	name string
	tris int
}

// The benchmarks loop over b.N, not b.Loop: with b.Loop, Go 1.26's testing
// reports the first -cpu value from the run it makes before it sets that
// value (related: golang/go#49980), so "-cpu 1,4,16" on 16 cores gave a
// 1M-triangle build "on one processor" in 38 ms, its 16-processor time.

// terrain returns a heightfield of about n triangles over [-1,1]^2.
func terrain(n int) ([]vec.Vec3, []uint32) {
	k := int(math.Sqrt(float64(n) / 2))
	if k < 1 {
		k = 1
	}
	pos := make([]vec.Vec3, 0, (k+1)*(k+1))
	for j := 0; j <= k; j++ {
		for i := 0; i <= k; i++ {
			x, y := -1+2*float64(i)/float64(k), -1+2*float64(j)/float64(k)
			h := 0.15*math.Sin(5*x)*math.Cos(4*y) + 0.05*math.Sin(23*x+17*y)
			pos = append(pos, vec.V3(float32(x), float32(y), float32(h)))
		}
	}
	idx := make([]uint32, 0, 6*k*k)
	at := func(i, j int) uint32 { return uint32(j*(k+1) + i) }
	for j := 0; j < k; j++ {
		for i := 0; i < k; i++ {
			idx = append(idx, at(i, j), at(i+1, j), at(i+1, j+1), at(i, j), at(i+1, j+1), at(i, j+1))
		}
	}
	return pos, idx
}

func benchScene(kind string, n int) Geometry {
	if kind == "terrain" {
		pos, idx := terrain(n)
		return TriangleGeometry(pos, idx)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 99))
	pos, idx := randomSoup(rng, n, float32(2/math.Cbrt(float64(n))))
	return TriangleGeometry(pos, idx)
}

func benchBuild(b *testing.B, kind string, n int) {
	g := benchScene(kind, n)
	tris := g.Triangles.IndexCount / 3
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := BuildBLAS([]Geometry{g}, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(tris)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mtris/s")
}

func BenchmarkBuild(b *testing.B) {
	for _, kind := range []string{"terrain", "soup"} {
		for _, s := range benchSizes {
			b.Run(kind+"/"+s.name, func(b *testing.B) { benchBuild(b, kind, s.tris) })
		}
	}
}

// BenchmarkBuildPhases times the stages of BuildBLAS (decode, refs, tree,
// the wait for the slot arrays' allocation, widen's plan, numbering and
// fill, slot copies, leaf rows) on the 100k and 1M terrain and soup, in
// milliseconds a build; compare processor counts with -cpu 1,4,8,16 to see
// which stage stops scaling. Stage names are the marks in blas.go and
// wide.go (buildPhase).
func BenchmarkBuildPhases(b *testing.B) {
	for _, kind := range []string{"terrain", "soup"} {
		for _, s := range benchSizes[1:] {
			g := benchScene(kind, s.tris)
			b.Run(kind+"/"+s.name, func(b *testing.B) {
				timePhases(b, true, func(int) {
					if _, err := BuildBLAS([]Geometry{g}, 0); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// BenchmarkUpdatePhases times the stages of BLAS.Update (the input's
// checks and index hash, the parts of the tree, the inner nodes and the
// wide nodes above them: the marks in update.go) on BenchmarkUpdate's
// scenes, in milliseconds an update, for -cpu 1,4,8,16 as
// BenchmarkBuildPhases.
func BenchmarkUpdatePhases(b *testing.B) {
	for _, kind := range []string{"terrain", "soup"} {
		for _, s := range updateSizes() {
			g := benchScene(kind, s.tris)
			moved := jitter(rand.New(rand.NewPCG(uint64(s.tris), 5)), g, 1e-3)
			b.Run(kind+"/"+s.name, func(b *testing.B) {
				blas, err := BuildBLAS([]Geometry{g}, BuildAllowUpdate|BuildPreferFastTrace)
				if err != nil {
					b.Fatal(err)
				}
				timePhases(b, false, func(i int) {
					in := g
					if i%2 == 0 {
						in = moved
					}
					if err := blas.Update([]Geometry{in}); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

// timePhases runs op(0), ..., op(b.N-1), timing the stages that end at
// each buildPhase mark ("start" begins one), and reports each stage's
// milliseconds per op. With collect, each op follows a garbage collection
// outside the timing, as cmd/embreecmp times builds: back to back, a
// build's allocations started a collection somewhere in the next one,
// whose stages then took turns paying for it (on 16 processors, moving the
// CAD engine's slot arrays' allocation from after its tree to beside it
// moved 1.7 ms from the stages after the tree into the tree).
//
// With RAYPIPE_BENCH_CPU set (where processCPU can tell), each stage's
// processor time is reported too, in milliseconds an op summed over the
// process's threads: user ("-user-ms": the crew's workers spin a while
// before they park, so it reads high where they wait) and kernel
// ("-sys-ms": page faults, madvise); a stage of 2 ms with 16 ms of user
// time kept about eight processors busy.
func timePhases(b *testing.B, collect bool, op func(i int)) {
	type stage struct{ wall, user, sys time.Duration }
	var order []string
	total := map[string]*stage{}
	var last time.Time
	var lastUser, lastSys time.Duration
	cpu := os.Getenv("RAYPIPE_BENCH_CPU") != ""
	testHookBuildPhase = func(phase string) {
		now := time.Now()
		var user, sys time.Duration
		if cpu {
			user, sys, cpu = processCPU()
		}
		if phase != "start" {
			st := total[phase]
			if st == nil {
				st = &stage{}
				total[phase] = st
				order = append(order, phase)
			}
			st.wall += now.Sub(last)
			st.user += user - lastUser
			st.sys += sys - lastSys
		}
		last, lastUser, lastSys = now, user, sys
	}
	defer func() { testHookBuildPhase = nil }()
	chained, reportChain := timeSBVHChain(b)
	defer reportChain()
	b.ResetTimer()
	for i := range b.N {
		if collect {
			b.StopTimer()
			runtime.GC()
			b.StartTimer()
		}
		op(i)
		chained()
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 / float64(b.N) }
	for _, phase := range order {
		st := total[phase]
		b.ReportMetric(ms(st.wall), phase+"-ms")
		if cpu {
			b.ReportMetric(ms(st.user), phase+"-user-ms")
			b.ReportMetric(ms(st.sys), phase+"-sys-ms")
		}
	}
}

func BenchmarkBuildLarge(b *testing.B) {
	for _, kind := range []string{"terrain", "soup"} {
		b.Run(kind+"/2M", func(b *testing.B) { benchBuild(b, kind, 2000000) })
	}
}

// BenchmarkBuildSmall times builds of 1.5k to 16k triangles back to
// back; compare processor counts with -cpu 1,2. Back to back, with this
// benchmark's small heap, the garbage collector runs every few builds,
// and a build that kept the second processor busy polling (the team of
// helpers in the README, tried and not kept) ran slower here although it
// ran faster right after a collection.
func BenchmarkBuildSmall(b *testing.B) {
	for _, kind := range []string{"terrain", "soup"} {
		for _, n := range []int{1500, 4000, 16000} {
			b.Run(fmt.Sprint(kind, "/", n), func(b *testing.B) { benchBuild(b, kind, n) })
		}
	}
}

// BenchmarkBuildTiny times builds of BLASes of one leaf or a few: an
// instanced decal or prop, a tetrahedron (4 triangles), 8 and 64 (the
// stages' fixed costs: allocations, chunks, goroutines).
func BenchmarkBuildTiny(b *testing.B) {
	tetra := TriangleGeometry(
		[]vec.Vec3{vec.V3(0, 0, 0), vec.V3(1, 0, 0), vec.V3(0, 1, 0), vec.V3(0, 0, 1)},
		[]uint32{0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3})
	b.Run("tetrahedron", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := BuildBLAS([]Geometry{tetra}, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, n := range []int{8, 64} {
		b.Run(fmt.Sprint("soup/", n), func(b *testing.B) { benchBuild(b, "soup", n) })
	}
}

// BenchmarkUpdate refits a BLAS built with BuildAllowUpdate to its
// geometry moved by a little, and back, in turn (BuildRaytracing
// AccelerationStructure with PERFORM_UPDATE, as a program that deforms a
// mesh every frame), beside a build with the same flags ("build"), in
// Mtris/s, on terrains and soups of 10k, 100k and 1M triangles.
func BenchmarkUpdate(b *testing.B) {
	const flags = BuildAllowUpdate | BuildPreferFastTrace
	for _, kind := range []string{"terrain", "soup"} {
		for _, s := range updateSizes() {
			g := benchScene(kind, s.tris)
			moved := jitter(rand.New(rand.NewPCG(uint64(s.tris), 5)), g, 1e-3)
			tris := g.Triangles.IndexCount / 3
			b.Run(kind+"/"+s.name+"/update", func(b *testing.B) {
				blas, err := BuildBLAS([]Geometry{g}, flags)
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := range b.N {
					in := g
					if i%2 == 0 {
						in = moved
					}
					if err := blas.Update([]Geometry{in}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(tris)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mtris/s")
			})
			b.Run(kind+"/"+s.name+"/build", func(b *testing.B) {
				for range b.N {
					if _, err := BuildBLAS([]Geometry{g}, flags); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(tris)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mtris/s")
			})
		}
	}
}

// updateSizes are the sizes of BenchmarkUpdate's scenes: 10k, where an
// update takes about 0.1 ms, and benchSizes' from 100k.
func updateSizes() []benchSize { return append([]benchSize{{"10k", 10000}}, benchSizes[1:]...) }

// BenchmarkBuildTLAS times top-level builds over 1k, 10k and 100k
// instances of one small BLAS, placed at random (rotated, scaled, spread
// over a cube), as a program that moves its instances rebuilds the top
// level every frame; compare processor counts with -cpu 1,2.
func BenchmarkBuildTLAS(b *testing.B) {
	bl := cachedBLAS(b, "soup", 1000)
	for _, n := range []int{1000, 10000, 100000} {
		insts := benchInstances(bl, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := BuildTLAS(insts, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minstances/s")
		})
	}
}

// BenchmarkBuildTLASPhases times the stages of BuildTLAS (the instances'
// checks, inverses and world boxes; the builder's refs; the binary tree;
// widen's plan, numbering and fill; the derived tables and instance
// slots) on BenchmarkBuildTLAS's instances, in milliseconds a build, each
// after a collection, as BenchmarkBuildPhases times BuildBLAS's. Run it
// with GOGC=off too: then the build starts no collection of its own, as
// in a program whose heap holds a scene. On a 2-vCPU Zen 5 a collection
// inside the build took one of the two processors for its marking and
// made the serial stages fault pages in, so that two threads built 10k
// instances slower than one (6.7-7.6 against 4.9 ms; 100k: 44-47 against
// 61-62); with GOGC=off 3.6-3.7 against 4.6 (100k: 35 against 54).
func BenchmarkBuildTLASPhases(b *testing.B) {
	bl := cachedBLAS(b, "soup", 1000)
	for _, n := range []int{1000, 10000, 100000} {
		insts := benchInstances(bl, n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			timePhases(b, true, func(int) {
				if _, err := BuildTLAS(insts, 0); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkUpdateTLAS updates a top level built with BuildAllowUpdate to
// its instances moved a little, and back, in turn (the same active
// instances: a refit), as a program that moves its instances every frame
// may instead of rebuilding (BenchmarkBuildTLAS).
func BenchmarkUpdateTLAS(b *testing.B) {
	bl := cachedBLAS(b, "soup", 1000)
	for _, n := range []int{1000, 10000, 100000} {
		insts := benchInstances(bl, n)
		moved := slices.Clone(insts)
		for i := range moved {
			moved[i].Transform[0][3] += 1e-3
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			tl, err := BuildTLAS(insts, BuildAllowUpdate)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				in := insts
				if i%2 == 0 {
					in = moved
				}
				if err := tl.Update(in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Minstances/s")
		})
	}
}

// benchInstances places n instances of bl at random: rotated about a
// random axis, scaled by 1/cbrt(n) and spread over [-1,1]^3.
func benchInstances(bl *BLAS, n int) []Instance {
	rng := rand.New(rand.NewPCG(uint64(n), 5))
	scale := float32(1 / math.Cbrt(float64(n)))
	insts := make([]Instance, n)
	for i := range insts {
		axis := randVec(rng, 1).Normalize()
		angle := rng.Float64() * 2 * math.Pi
		s, c := float32(math.Sin(angle)), float32(math.Cos(angle))
		x, y, z := axis.X, axis.Y, axis.Z
		// Rodrigues' rotation, scaled.
		r := [3][3]float32{
			{c + x*x*(1-c), x*y*(1-c) - z*s, x*z*(1-c) + y*s},
			{y*x*(1-c) + z*s, c + y*y*(1-c), y*z*(1-c) - x*s},
			{z*x*(1-c) - y*s, z*y*(1-c) + x*s, c + z*z*(1-c)},
		}
		o := randVec(rng, 1)
		var m vec.Mat3x4
		for row := range 3 {
			for col := range 3 {
				m[row][col] = r[row][col] * scale
			}
		}
		m[0][3], m[1][3], m[2][3] = o.X, o.Y, o.Z
		insts[i] = Instance{Transform: m, InstanceMask: 0xff, BLAS: bl}
	}
	return insts
}

var benchBLAS sync.Map // "kind/n" -> *BLAS

func cachedBLAS(b *testing.B, kind string, n int) *BLAS {
	key := fmt.Sprint(kind, "/", n)
	if v, ok := benchBLAS.Load(key); ok {
		return v.(*BLAS)
	}
	bl, err := BuildBLAS([]Geometry{benchScene(kind, n)}, 0)
	if err != nil {
		b.Fatal(err)
	}
	benchBLAS.Store(key, bl)
	return bl
}

const benchRays = 1 << 14

// benchRaySet returns rays of a kind: primary (a pinhole camera above the
// scene looking down, a coherent grid), shadow (from points on the z = 0
// plane toward a light, tested with Occluded) and incoherent (random
// origins and directions in the scene's box).
func benchRaySet(kind string) []Ray {
	rng := rand.New(rand.NewPCG(7, 7))
	rays := make([]Ray, benchRays)
	side := int(math.Sqrt(benchRays))
	inf := float32(math.Inf(1))
	for i := range rays {
		switch kind {
		case "primary":
			u, v := float32(i%side)/float32(side)*2-1, float32(i/side)/float32(side)*2-1
			rays[i] = Ray{Origin: vec.V3(0, -0.5, 3), Direction: vec.V3(u*0.4, v*0.4+0.15, -1), TMax: inf}
		case "shadow":
			p := vec.V3(float32(rng.Float64()*2-1), float32(rng.Float64()*2-1), 0)
			rays[i] = Ray{Origin: p, Direction: vec.V3(0.3, 0.2, 1), TMin: 1e-3, TMax: 10}
		default:
			rays[i] = Ray{Origin: randVec(rng, 1), Direction: randVec(rng, 1), TMax: inf}
		}
	}
	return rays
}

func BenchmarkTrace(b *testing.B) {
	for _, rk := range []string{"primary", "shadow", "incoherent"} {
		rays := benchRaySet(rk)
		for _, kind := range []string{"terrain", "soup"} {
			for _, s := range benchSizes {
				b.Run(rk+"/"+kind+"/"+s.name, func(b *testing.B) {
					bl := cachedBLAS(b, kind, s.tris)
					tl, err := BuildTLAS([]Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: bl}}, 0)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					hits := 0
					b.ResetTimer()
					for range b.N {
						for i := range rays {
							if rk == "shadow" {
								if tl.Occluded(rays[i], 0, 0xff) {
									hits++
								}
							} else if _, ok := tl.Intersect(rays[i], 0, 0xff); ok {
								hits++
							}
						}
					}
					b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
					b.ReportMetric(float64(hits)/float64(b.N)/float64(len(rays)), "hit-ratio")
				})
			}
		}
	}
}

// BenchmarkTraceBatch is BenchmarkTrace through TLAS.IntersectBatch and
// OccludedBatch, all rays in one call. Only the 1M-triangle scenes are over
// the size from which batches interleave; the others show the cost of the
// call itself.
func BenchmarkTraceBatch(b *testing.B) {
	for _, rk := range []string{"primary", "shadow", "incoherent"} {
		rays := benchRaySet(rk)
		hits := make([]Hit, len(rays))
		found := make([]bool, len(rays))
		for _, kind := range []string{"terrain", "soup"} {
			for _, s := range benchSizes {
				b.Run(rk+"/"+kind+"/"+s.name, func(b *testing.B) {
					bl := cachedBLAS(b, kind, s.tris)
					tl, err := BuildTLAS([]Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: bl}}, 0)
					if err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						if rk == "shadow" {
							err = tl.OccludedBatch(rays, 0, 0xff, found)
						} else {
							err = tl.IntersectBatch(rays, 0, 0xff, hits, found)
						}
						if err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
				})
			}
		}
	}
}

// BenchmarkRayFixedCost times what a single ray costs before and after
// its walk: camera rays turned away from the 10k terrain, so that the
// root's children are all missed and the walk is one node test. "asm" is
// the one-call assembly query alone (rayIntersectAVX2, where it runs),
// "IntersectTo" and "Occluded" the public entries around it; the
// differences are the Go layers. On an AMD Zen 3 (2026-11-27): 20, 26
// and 27 ns a ray (the first 21 before the root's test came from
// registers, 322c7e2); Embree's rtcIntersect1 takes 25 ns on the rays that
// miss WusonOBJ.obj, through a C loop that converts each ray and hit as
// cmd/embreecmp's does. Run with:
//
//	go test -run='^$' -bench=RayFixedCost -cpu 1 ./accel/
func BenchmarkRayFixedCost(b *testing.B) {
	pos, idx := meshgen.Terrain(10_000, 1)
	bl := mustBLAS(b, []Geometry{TriangleGeometry(pos, idx)}, BuildPreferFastTrace)
	side := 256
	rays := make([]Ray, side*side)
	for i := range rays {
		u, v := float32(i%side)/float32(side)*2-1, float32(i/side)/float32(side)*2-1
		// From above the terrain (x and z in [-1, 1], heights within
		// 0.3 of y = 0), upwards and fanned out as camera rays are.
		rays[i] = Ray{Origin: vec.V3(u, 2, v), Direction: vec.V3(u*0.4, 1, v*0.4+0.15), TMax: float32(math.Inf(1))}
	}
	perRay := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rays)), "ns/ray")
	}
	b.Run("asm", func(b *testing.B) {
		if !bl.queriesInAsm() {
			b.Skip("the one-call assembly queries do not run here")
		}
		var h fastHit
		wide, rows := bl.asmArrays()
		b.ResetTimer()
		for range b.N {
			for i := range rays {
				if rayIntersectAVX2(wide, len(bl.wide), rows, len(bl.rows), &rays[i], &h) != rayMiss {
					b.Fatalf("ray %d: not a miss", i)
				}
			}
		}
		perRay(b)
	})
	b.Run("IntersectTo", func(b *testing.B) {
		var h Hit
		for range b.N {
			for i := range rays {
				if bl.IntersectTo(&rays[i], 0, &h) {
					b.Fatalf("ray %d: a hit", i)
				}
			}
		}
		perRay(b)
	})
	b.Run("Occluded", func(b *testing.B) {
		for range b.N {
			for i := range rays {
				if bl.Occluded(rays[i], 0) {
					b.Fatalf("ray %d: occluded", i)
				}
			}
		}
		perRay(b)
	})
}

// BenchmarkWalkKernels traces the same rays with each of the scalar
// build's walks on this processor, in one process: "sse" is the Go loop
// with the SSE kernels (nodeWalk, leafTest), "avx2" the fused AVX2 walks
// (walkAVX2, occludeAVX2), where the processor has AVX2. Run with, e.g.:
//
//	go test -run='^$' -bench=WalkKernels ./accel/
func BenchmarkWalkKernels(b *testing.B) {
	if !slabAsm || useSIMD {
		b.Skip("the assembly walks run in the scalar amd64 build only")
	}
	modes := []string{"sse"}
	if haveAVX2 {
		modes = append(modes, "avx2")
	}
	for _, rk := range []string{"primary", "shadow", "incoherent"} {
		rays := benchRaySet(rk)
		for _, kind := range []string{"terrain", "soup"} {
			for _, s := range benchSizes[1:] {
				for _, mode := range modes {
					b.Run(rk+"/"+kind+"/"+s.name+"/"+mode, func(b *testing.B) {
						bl := cachedBLAS(b, kind, s.tris)
						defer func(old bool) { fusedAVX2 = old }(fusedAVX2)
						fusedAVX2 = mode == "avx2"
						b.ReportAllocs()
						traceRays(b, bl, rk == "shadow", rays)
					})
				}
			}
		}
	}
}

// BenchmarkHeightQueries casts rays straight down onto the terrains from
// random points above them, a height query ("down": a direction with two
// zero components, whose inverse is infinite there), the same rays
// tilted by 1e-3 ("tilted"), and rays straight down through the
// terrain's vertices ("down-vertices": edge cases at every hit), one at
// a time and in one batch: the axis rays take the NaN walks
// (rayIntersectNaNAVX2), and ran at about a third of the tilted rays'
// rate when they took the Go walk.
func BenchmarkHeightQueries(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 9))
	down := make([]Ray, benchRays)
	for i := range down {
		o := vec.V3(float32(rng.Float64()*1.9-0.95), float32(rng.Float64()*1.9-0.95), 1)
		down[i] = Ray{Origin: o, Direction: vec.V3(0, 0, -1), TMax: float32(math.Inf(1))}
	}
	tilted := slices.Clone(down)
	for i := range tilted {
		tilted[i].Direction = vec.V3(1e-3, 1e-3, -1)
	}
	hits := make([]Hit, len(down))
	found := make([]bool, len(down))
	for _, s := range benchSizes[1:] {
		// Straight down through the terrain's vertices: every ray meets
		// edge functions of zero (EXACTLANE decides them).
		pos, _ := terrain(s.tris)
		vertex := slices.Clone(down)
		for i := range vertex {
			v := pos[rng.IntN(len(pos))]
			vertex[i].Origin.X, vertex[i].Origin.Y = v.X, v.Y
		}
		for _, dir := range []string{"down", "tilted", "down-vertices"} {
			rays := map[string][]Ray{"down": down, "tilted": tilted, "down-vertices": vertex}[dir]
			for _, mode := range []string{"single", "batch"} {
				b.Run(s.name+"/"+dir+"/"+mode, func(b *testing.B) {
					bl := cachedBLAS(b, "terrain", s.tris)
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						if mode == "batch" {
							if err := bl.IntersectBatch(rays, 0, hits, found); err != nil {
								b.Fatal(err)
							}
							continue
						}
						for i := range rays {
							found[i] = bl.IntersectTo(&rays[i], 0, &hits[i])
						}
					}
					b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
				})
			}
		}
	}
}

// BenchmarkHeightQueriesOnTiles is BenchmarkHeightQueries' straight-down
// and tilted rays, one at a time, over a TLAS of 64 tiles of the 100k
// terrain (each an eighth of it, on an 8x8 grid): world rays with
// infinite inverse components, which the one-call TLAS walks leave to
// their NaN variants (rayTLASWalkNaNAVX2, rayTLASOccludeNaNAVX2).
func BenchmarkHeightQueriesOnTiles(b *testing.B) {
	bl := cachedBLAS(b, "terrain", 100000)
	var insts []Instance
	for i := range 64 {
		m := vec.Mat3x4{{0.125, 0, 0, -0.875 + 0.25*float32(i%8)}, {0, 0.125, 0, -0.875 + 0.25*float32(i/8)}, {0, 0, 0.125, 0}}
		insts = append(insts, Instance{Transform: m, InstanceMask: 0xff, BLAS: bl})
	}
	tl, err := BuildTLAS(insts, 0)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 11))
	for _, dir := range []string{"down", "tilted"} {
		d := vec.V3(0, 0, -1)
		if dir == "tilted" {
			d = vec.V3(1e-3, 1e-3, -1)
		}
		rays := make([]Ray, benchRays)
		for i := range rays {
			rays[i] = Ray{Origin: vec.V3(float32(rng.Float64()*1.9-0.95), float32(rng.Float64()*1.9-0.95), 1), Direction: d, TMax: float32(math.Inf(1))}
		}
		for _, q := range []string{"intersect", "occluded"} {
			b.Run(dir+"/"+q, func(b *testing.B) {
				var h Hit
				b.ResetTimer()
				for range b.N {
					for i := range rays {
						if q == "occluded" {
							tl.Occluded(rays[i], 0, 0xff)
						} else {
							tl.IntersectTo(&rays[i], 0, 0xff, &h)
						}
					}
				}
				b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
			})
		}
	}
}

// BenchmarkTraceInstances traces BenchmarkTrace's shadow and incoherent
// rays, one at a time and in one batch, through a TLAS of 64 instances:
// the 100k terrain and soup, each scaled to a quarter and placed on a
// 4x4x4 grid over [-1,1]^3 (terrains and soups alternating), so that a
// ray crosses several instances and the top-level walk's order matters.
func BenchmarkTraceInstances(b *testing.B) {
	for _, rk := range []string{"shadow", "incoherent"} {
		rays := benchRaySet(rk)
		hits := make([]Hit, len(rays))
		found := make([]bool, len(rays))
		for _, mode := range []string{"single", "batch"} {
			b.Run(rk+"/"+mode, func(b *testing.B) {
				blases := []*BLAS{cachedBLAS(b, "terrain", 100000), cachedBLAS(b, "soup", 100000)}
				var insts []Instance
				for i := range 64 {
					x, y, z := i%4, i/4%4, i/16
					m := vec.Mat3x4{
						{0.25, 0, 0, -0.75 + 0.5*float32(x)},
						{0, 0.25, 0, -0.75 + 0.5*float32(y)},
						{0, 0, 0.25, -0.75 + 0.5*float32(z)},
					}
					insts = append(insts, Instance{Transform: m, InstanceMask: 0xff, BLAS: blases[i%2]})
				}
				tl, err := BuildTLAS(insts, 0)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					switch {
					case mode == "batch" && rk == "shadow":
						err = tl.OccludedBatch(rays, 0, 0xff, found)
					case mode == "batch":
						err = tl.IntersectBatch(rays, 0, 0xff, hits, found)
					default:
						for i := range rays {
							if rk == "shadow" {
								found[i] = tl.Occluded(rays[i], 0, 0xff)
							} else {
								hits[i], found[i] = tl.Intersect(rays[i], 0, 0xff)
							}
						}
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
			})
		}
	}
}

// BenchmarkSoleInstance traces BenchmarkTrace's shadow and incoherent rays
// over the 1k terrain one at a time, through the BLAS's own queries and
// through a TLAS of one identity instance of it, which skips its top level
// (soleQuery): on a scene that small the difference is what the TLAS's
// entry costs a ray (checks, placing the hit's ray, the Hit's return).
func BenchmarkSoleInstance(b *testing.B) {
	bl := cachedBLAS(b, "terrain", 1000)
	tl, err := BuildTLAS([]Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: bl}}, 0)
	if err != nil {
		b.Fatal(err)
	}
	for _, rk := range []string{"shadow", "incoherent"} {
		rays := benchRaySet(rk)
		for _, via := range []string{"blas", "tlas"} {
			b.Run(rk+"/"+via, func(b *testing.B) {
				hits := 0
				b.ResetTimer()
				for range b.N {
					for i := range rays {
						var ok bool
						switch {
						case rk == "shadow" && via == "blas":
							ok = bl.Occluded(rays[i], 0)
						case rk == "shadow":
							ok = tl.Occluded(rays[i], 0, 0xff)
						case via == "blas":
							_, ok = bl.Intersect(rays[i], 0)
						default:
							_, ok = tl.Intersect(rays[i], 0, 0xff)
						}
						if ok {
							hits++
						}
					}
				}
				b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
			})
		}
	}
}

// BenchmarkAcceptFirstHit traces the shadow and incoherent rays of
// BenchmarkTrace with RayFlagAcceptFirstHitAndEndSearch (the flags of a
// DXR shadow ray, which TraceRay on opaque geometry hands to Intersect),
// one at a time (first) and in one IntersectBatch call (first-batch),
// beside Occluded on the same rays: the first hit is found by Occluded's
// walk, so the difference is what committing and building the Hit costs.
func BenchmarkAcceptFirstHit(b *testing.B) {
	for _, rk := range []string{"shadow", "incoherent"} {
		rays := benchRaySet(rk)
		for _, kind := range []string{"terrain", "soup"} {
			for _, s := range benchSizes {
				for _, via := range []string{"occluded", "first", "first-batch"} {
					b.Run(rk+"/"+kind+"/"+s.name+"/"+via, func(b *testing.B) {
						bl := cachedBLAS(b, kind, s.tris)
						tl, err := BuildTLAS([]Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: bl}}, 0)
						if err != nil {
							b.Fatal(err)
						}
						hits, found := make([]Hit, len(rays)), make([]bool, len(rays))
						const flags = RayFlagAcceptFirstHitAndEndSearch | RayFlagSkipClosestHitShader
						b.ResetTimer()
						for range b.N {
							switch via {
							case "occluded":
								for i := range rays {
									found[i] = tl.Occluded(rays[i], 0, 0xff)
								}
							case "first":
								for i := range rays {
									hits[i], found[i] = tl.Intersect(rays[i], flags, 0xff)
								}
							default:
								if err := tl.IntersectBatch(rays, flags, 0xff, hits, found); err != nil {
									b.Fatal(err)
								}
							}
						}
						b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
					})
				}
			}
		}
	}
}

// BenchmarkSpatialSplits builds and traces the 100k-triangle pipes
// (meshgen.Pipes: long thin triangles across the axes, as in CAD meshes)
// as a fast-trace BLAS with spatial splits ("split") and without them
// ("whole": the same build parameters, ALLOW_UPDATE, which never splits),
// so that one run measures what the splits buy and cost.
func BenchmarkSpatialSplits(b *testing.B) {
	pos, idx := meshgen.Pipes(100_000, 1)
	g := TriangleGeometry(pos, idx)
	for _, v := range []struct {
		name  string
		flags BuildFlags
	}{{"split", BuildPreferFastTrace}, {"whole", BuildPreferFastTrace | BuildAllowUpdate}} {
		b.Run("build/"+v.name, func(b *testing.B) {
			b.ResetTimer()
			for range b.N {
				if _, err := BuildBLAS([]Geometry{g}, v.flags); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(idx)/3)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mtris/s")
		})
		bl := mustBLAS(b, []Geometry{g}, v.flags)
		for _, rk := range []string{"primary", "shadow", "incoherent"} {
			rays := benchRaySet(rk)
			b.Run(rk+"/"+v.name, func(b *testing.B) { traceRays(b, bl, rk == "shadow", rays) })
		}
	}
}

// traceRays traces rays through bl ray by ray, with Occluded if shadow,
// else Intersect, and reports the rate.
func traceRays(b *testing.B, bl *BLAS, shadow bool, rays []Ray) {
	b.ResetTimer()
	for range b.N {
		for i := range rays {
			if shadow {
				bl.Occluded(rays[i], 0)
			} else {
				bl.Intersect(rays[i], 0)
			}
		}
	}
	b.ReportMetric(float64(len(rays))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
}

// BenchmarkTraversalCost times a Traversal over non-opaque triangles that
// commits every candidate (the path of any hit shaders and of a RayQuery's
// loop) beside the plain query over the same triangles opaque: both answer
// the same (checked before timing), so the difference is what the
// Traversal costs a ray, its set-up and its returns to Go at leaves with
// candidates. "blas" begins with BeginBLAS on the 10k terrain; "instances"
// with Begin on a top level of 1k rotated, scaled and scattered instances
// of it, where the Traversal returns to Go at each instance entered too.
// On the Zen 5 of the README (697e66e), ns a ray, plain / Traversal: blas
// primary 38 / 58, incoherent 64 / 89, shadow (first hit) 45 / 67;
// instances primary 468 / 635, incoherent 519 / 702. Run with:
//
//	go test -run='^$' -bench=TraversalCost -cpu 1 ./accel/
func BenchmarkTraversalCost(b *testing.B) {
	pos, idx := meshgen.Terrain(10_000, 1)
	opaque := mustBLAS(b, []Geometry{TriangleGeometry(pos, idx)}, BuildPreferFastTrace)
	g := TriangleGeometry(pos, idx)
	g.Flags = 0 // non-opaque: every triangle hit is a candidate
	cands := mustBLAS(b, []Geometry{g}, BuildPreferFastTrace)
	topOf := func(bl *BLAS) *TLAS {
		rng := rand.New(rand.NewPCG(3, 5)) // the same placements for both
		ins := make([]Instance, 1000)
		for i := range ins {
			m := randomRotation(rng)
			for r := range 3 {
				for c := range 3 {
					m[r][c] *= 0.1
				}
				m[r][3] = rng.Float32()*2 - 1
			}
			ins[i] = Instance{Transform: m, InstanceMask: 0xff, BLAS: bl}
		}
		tl, err := BuildTLAS(ins, BuildPreferFastTrace)
		if err != nil {
			b.Fatal(err)
		}
		return tl
	}
	opaqueTop, candsTop := topOf(opaque), topOf(cands)
	for _, scene := range []string{"blas", "instances"} {
		for _, rk := range []string{"primary", "incoherent", "shadow"} {
			if scene == "instances" && rk == "shadow" {
				continue
			}
			rays := benchRaySet(rk)
			flags := RayFlagNone
			if rk == "shadow" {
				flags = RayFlagAcceptFirstHitAndEndSearch
			}
			plain := func(r *Ray, h *Hit) bool {
				if scene == "blas" {
					return opaque.IntersectTo(r, flags, h)
				}
				return opaqueTop.IntersectTo(r, flags, 0xff, h)
			}
			var tr Traversal
			traverse := func(r *Ray) *Hit {
				if scene == "blas" {
					tr.BeginBLAS(cands, *r, flags)
				} else {
					tr.Begin(candsTop, *r, flags, 0xff)
				}
				for tr.Next() {
					tr.Commit()
				}
				return tr.Committed()
			}
			var want Hit
			for i := range rays {
				ok := plain(&rays[i], &want)
				got := traverse(&rays[i])
				if ok != (got.Kind != KindNone) || ok && (got.T != want.T || got.PrimitiveIndex != want.PrimitiveIndex || got.InstanceIndex != want.InstanceIndex) {
					b.Fatalf("%s %s ray %d: Traversal %+v, plain query %v %+v", scene, rk, i, *got, ok, want)
				}
			}
			b.Run(scene+"/"+rk+"/plain", func(b *testing.B) {
				var h Hit
				for b.Loop() {
					for i := range rays {
						plain(&rays[i], &h)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rays)), "ns/ray")
			})
			b.Run(scene+"/"+rk+"/Traversal", func(b *testing.B) {
				for b.Loop() {
					for i := range rays {
						traverse(&rays[i])
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rays)), "ns/ray")
			})
		}
	}
}
