//go:build embree

// Command embreecmp compares raypipe's acceleration structures with Embree
// side by side: it builds the same meshes with both, traces the same ray
// batches (primary, shadow, incoherent), checks that the answers agree and
// prints build and trace rates with their ratios.
//
// It needs Embree 3 (Debian: apt-get install libembree-dev) and the build
// tag embree:
//
//	go run -tags embree ./cmd/embreecmp -sizes 10k,100k
//	go run -tags embree ./cmd/embreecmp -sizes 2m -scenes terrain
//	go run -tags embree ./cmd/embreecmp -sizes 100k,1m -scenes pipes
//	go run -tags embree ./cmd/embreecmp -sizes '' -obj /usr/share/assimp/models/OBJ/WusonOBJ.obj
//	go run -tags embree ./cmd/embreecmp -sizes '' -mesh /usr/share/assimp/models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb
//	go run -tags embree ./cmd/embreecmp -sizes '' -instances 1k,10k
//
// Rates are the best of -reps runs, each timed from the moment all its
// goroutines run, their stacks grown (they wait at a start line: see
// embree.Parallel and embree.Together), to the end of the whole batch.
// Every tracer builds its scene first; then the tracers' runs alternate:
// each repetition times every tracer in turn (in reverse order every
// other one), right after an untimed run of the same rays that brings its
// scene back into the caches, so that a shared machine whose speed drifts
// during the minutes a scene takes moves every tracer's best alike and the
// ratios stay steady between runs. "1T" is one build thread and one
// tracing goroutine; "NT" is all threads: builds use all hardware threads
// (Embree's TBB pool, raypipe's GOMAXPROCS) and both tracers trace chunks
// of 4096 rays from -threads goroutines (default GOMAXPROCS), one
// goroutine tracing the same chunks in turn for 1T. Every timed run starts after a
// garbage collection, so that none triggered by earlier allocations (this
// tool's ray and hit buffers, earlier scenes) runs during it: one running
// alongside slowed raypipe's batch calls up to 2x. Builds also release
// the previous run's scene first: raypipe's builds are timed reusing freed
// heap memory, as in a program that rebuilds, not growing the heap
// (Embree maps fresh memory for every build).
//
// The update rows (on unless -updates=false; for the -instances scenes,
// see compareInstances) time an update of each mesh's structure to its
// vertices moved
// by a little, and back, in turn (best of twice -build-reps): Embree
// refitting (a dynamic two-level scene whose geometry has the build
// quality REFIT, as embree.BuildRefittable makes it, for every Embree
// tracer; its copy into the vertex buffer timed too), raypipe's
// BLAS.Update of a BLAS built with the tracer's flags and BuildAllowUpdate
// (the geometry's decoding from the caller's positions timed too).
//
// With -steady (a duration, e.g. 150ms), each scene's table is followed by
// steady-state rows: for each of -steady-threads thread counts, every thread
// locked to an OS thread, all started together, each tracing chunk after
// chunk for that long; the rows give the mean rate per thread and its ratio
// to the first count's, so that how each tracer scales shows apart from
// what a short batch adds (see steady.go).
//
// With -runs N, the whole comparison runs N times, every scene in turn
// each time (each run's tables printed as it ends), and then each scene's
// medians over the runs: every tracer's rate and every ratio column's,
// each ratio taken within its run (the rates of one run share the
// machine's speed of those minutes), with the lowest and highest run's;
// and, for each raypipe tracer, the README's table of its median ratios
// to the Embree tracers, a line per scene (internal/tally).
//
// With -tree-stats, each table is preceded by the areas of the raypipe
// tracers' trees (accel.TreeStats: the wide nodes' and the leaves' surface
// areas summed, relative to the root's), and Embree prints its own BVH
// statistics as it builds ("verbose=2": its configuration once per device,
// then for each build the "sah" of its nodes and of its leaves, the same
// measure, counting a leaf once per block of four triangles): build
// quality compared apart from the cost of a visit.
//
// Tracers: embree-low, embree-medium, embree-high (Embree's build
// qualities, traced ray by ray with rtcIntersect1/rtcOccluded1; with
// "-robust", e.g. embree-medium-robust, the scenes are built with
// RTC_SCENE_FLAG_ROBUST, Embree's mode against rays slipping through
// shared edges, the nearest it has to the watertight test the D3D12 spec
// requires of raypipe; with "-stream", each chunk in one
// rtcIntersect1M/rtcOccluded1M call) and raypipe-fastbuild,
// raypipe-fasttrace (BuildPreferFastBuild and BuildPreferFastTrace, traced
// ray by ray with Intersect/Occluded; with "-batch", each chunk in one
// IntersectBatch/OccludedBatch call). With "-cut" (embree-medium-cut,
// raypipe-fasttrace-cut) every triangle whose primitive index is a
// multiple of four is cut out, as an alpha test does: by Embree's filter
// functions, and by raypipe's non-opaque geometry with a Traversal loop
// that ignores those candidates, the any hit path; such tracers agree
// with each other only. Embree takes the kernels of the
// newest instruction set the processor runs (avx512 on one with AVX-512)
// unless -embree-isa caps it (avx2: raypipe's).
//
// With -instances, scenes of instances of one terrain (-instance-tris
// triangles) are compared too: the terrain is built once per builder,
// untimed, and the top level over the instances (raypipe's BuildTLAS,
// Embree's scene of instance geometries) is what the build rows time, in
// instances a second (see compareInstances); hits name the instance as
// their geometry.
//
// Agreement is checked against the first tracer (embree-medium by default):
// same primitive with t within 1e-5 relative, ties (another primitive at the
// same t, e.g. a shared edge) counted apart, and hit/miss disagreements
// (Embree's default intersector is not watertight) listed with examples.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/internal/embree"
	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/internal/raygen"
	"github.com/raypipe/raypipe/vec"
)

// steadyThreads are the thread counts of the -steady rows (-steady-threads).
var steadyThreads []int

var (
	flagSizes     = flag.String("sizes", "10k,100k,1m", "comma-separated triangle counts of the procedural scenes (k and m suffixes); empty for none")
	flagScenes    = flag.String("scenes", "terrain,soup", "procedural scene kinds: terrain, soup, pipes (capped tubes in random directions: long thin triangles, as in CAD meshes)")
	flagOBJ       = flag.String("obj", "", "comma-separated OBJ files to compare as well (read by this command's own OBJ reader: vertices and faces)")
	flagMesh      = flag.String("mesh", "", "comma-separated glTF (.gltf, .glb) or OBJ files to compare as well, loaded as raypipe's scene package loads them and flattened into world space")
	flagTracers   = flag.String("tracers", "embree-medium,embree-high,raypipe-fastbuild,raypipe-fasttrace,raypipe-fasttrace-batch", "tracers to run (see the command's doc); the first is the reference for agreement")
	flagRes       = flag.Int("res", 384, "primary rays: a res x res image")
	flagRays      = flag.Int("rays", 1<<17, "number of shadow and of incoherent rays")
	flagReps      = flag.Int("reps", 3, "repetitions of each trace timing (best is kept)")
	flagBuildReps = flag.Int("build-reps", 3, "repetitions of each build timing (best is kept; builds swing the most between runs)")
	flagThreads   = flag.Int("threads", runtime.GOMAXPROCS(0), "threads for the all-threads (NT) rows")
	flagSeed      = flag.Uint64("seed", 1, "seed of meshes and rays")
	flagCheck     = flag.Bool("check", true, "compare every tracer's answers with the first tracer's")
	flagInstances = flag.String("instances", "", "comma-separated instance counts of top-level scenes to compare as well (k and m suffixes): instances of one terrain of -instance-tris triangles, placed at random")
	flagInstTris  = flag.String("instance-tris", "10k", "triangles of the terrain the -instances scenes instance")
	flagEmbreeISA = flag.String("embree-isa", "", "newest instruction set Embree's kernels may use: "+strings.Join(embree.ISAs, ", ")+" (empty: the newest this processor runs, avx512 where it has AVX-512; raypipe's walks use AVX2)")
	flagSteady    = flag.Duration("steady", 0, "also time each tracer's rate per thread in a steady state, each run this long (e.g. 150ms; 0: not), on -steady-threads threads (see steady.go)")
	flagSteadyT   = flag.String("steady-threads", "", "thread counts of the -steady rows, the first being the base of their ratios (default 1 and -threads)")
	flagTreeStats = flag.Bool("tree-stats", false, "print each raypipe tree's areas (accel.TreeStats) and let Embree print its own BVH statistics (its \"verbose=2\", with its configuration) to compare build quality in one measure")
	flagUpdates   = flag.Bool("updates", true, "also time updates of each mesh's structure to moved vertices (Embree's refit, raypipe's BLAS.Update of a BLAS built with BuildAllowUpdate), and of each top level to moved instances (Embree's scene committed again, raypipe's TLAS.Update), best of twice -build-reps")
	flagRuns      = flag.Int("runs", 1, "run the whole comparison this many times, every scene in turn each time, and end with each row's medians over the runs (a ratio taken within each run) and the README's table of them")
	flagCPUProf   = flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file (give -tracers one raypipe tracer to profile raypipe alone)")
)

func main() {
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: embreecmp [flags]\n\nCompares raypipe with Embree on procedural and OBJ meshes.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	err := profiled(*flagCPUProf, run)
	if err != nil {
		fmt.Fprintln(os.Stderr, "embreecmp:", err)
		os.Exit(1)
	}
}

// profiled runs f, under a CPU profile written to path unless path is empty.
func profiled(path string, f func() error) error {
	if path == "" {
		return f()
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return fmt.Errorf("-cpuprofile: %w", err)
	}
	runErr := f()
	pprof.StopCPUProfile()
	if err := out.Close(); err != nil && runErr == nil {
		return fmt.Errorf("-cpuprofile: %w", err)
	}
	return runErr
}

// mesh is one scene to compare.
type mesh struct {
	name      string
	positions []vec.Vec3
	indices   []uint32
	// instances, if not nil, makes the scene a top level of instances of
	// the mesh, each placed by its transform (compareInstances).
	instances []vec.Mat3x4
}

// loadFileMesh loads the mesh of the file at path with load, refusing
// one without a triangle (a point cloud, lines, or a file read as none),
// which has nothing to build or to cast shadow rays from.
func loadFileMesh(path string, load func(string) ([]vec.Vec3, []uint32, error)) (mesh, error) {
	p, i, err := load(path)
	if err == nil && len(i) < 3 {
		err = fmt.Errorf("%s: no triangles (%d vertices, no face of three or more)", path, len(p))
	}
	return mesh{filepath.Base(path), p, i, nil}, err
}

func run() error {
	if *flagRuns < 1 {
		return fmt.Errorf("-runs %d: want at least 1", *flagRuns)
	}
	if *flagEmbreeISA != "" && !slices.Contains(embree.ISAs, *flagEmbreeISA) {
		return fmt.Errorf("-embree-isa %q: want one of %s", *flagEmbreeISA, strings.Join(embree.ISAs, ", "))
	}
	tracers, err := makeTracers(*flagTracers, *flagEmbreeISA)
	if err != nil {
		return err
	}
	if steadyThreads, err = steadyFlags(*flagSteady, *flagSteadyT, []int{1, *flagThreads}); err != nil {
		return err
	}
	var meshes []func() (mesh, error)
	for _, s := range splitList(*flagSizes) {
		n, err := parseSize(s)
		if err != nil {
			return err
		}
		for _, kind := range splitList(*flagScenes) {
			switch kind {
			case "terrain":
				meshes = append(meshes, func() (mesh, error) {
					p, i := meshgen.Terrain(n, *flagSeed)
					return mesh{"terrain-" + s, p, i, nil}, nil
				})
			case "soup":
				meshes = append(meshes, func() (mesh, error) {
					p, i := meshgen.Soup(n, *flagSeed)
					return mesh{"soup-" + s, p, i, nil}, nil
				})
			case "pipes":
				meshes = append(meshes, func() (mesh, error) {
					p, i := meshgen.Pipes(n, *flagSeed)
					return mesh{"pipes-" + s, p, i, nil}, nil
				})
			default:
				return fmt.Errorf("unknown scene kind %q (want terrain, soup or pipes)", kind)
			}
		}
	}
	for _, path := range splitList(*flagOBJ) {
		meshes = append(meshes, func() (mesh, error) { return loadFileMesh(path, loadOBJ) })
	}
	for _, path := range splitList(*flagMesh) {
		meshes = append(meshes, func() (mesh, error) { return loadFileMesh(path, loadSceneMesh) })
	}
	if insts := splitList(*flagInstances); len(insts) > 0 {
		nt, err := parseSize(*flagInstTris)
		if err != nil {
			return err
		}
		for _, s := range insts {
			n, err := parseSize(s)
			if err != nil {
				return err
			}
			meshes = append(meshes, func() (mesh, error) {
				p, i := meshgen.Terrain(nt, *flagSeed)
				return mesh{fmt.Sprintf("instances-%s of terrain-%s", s, *flagInstTris), p, i, placeInstances(n, *flagSeed)}, nil
			})
		}
	}
	if len(meshes) == 0 {
		return fmt.Errorf("no scenes: give -sizes, -obj, -mesh or -instances")
	}
	isa := "the newest this processor runs"
	if *flagEmbreeISA != "" {
		isa = "up to " + *flagEmbreeISA
	}
	fmt.Printf("embreecmp: %d NT threads, GOMAXPROCS %d, %s/%s, %s, raypipe walks: %s, Embree kernels: %s, primary %dx%d, %d shadow and incoherent rays, best of %d (builds: %d)\n",
		*flagThreads, runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, processor(), accel.Walks(), isa, *flagRes, *flagRes, *flagRays, *flagReps, *flagBuildReps)
	for i := 1; i <= *flagRuns; i++ {
		if *flagRuns > 1 {
			fmt.Printf("\n### run %d of %d\n", i, *flagRuns)
		}
		for _, mk := range meshes {
			m, err := mk()
			if err != nil {
				return err
			}
			compareScene := compare
			if m.instances != nil {
				compareScene = compareInstances
			}
			if err := compareScene(m, tracers); err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
		}
	}
	if *flagRuns > 1 {
		return printRuns(os.Stdout, &runs, tracers)
	}
	return nil
}

func makeTracers(list, maxISA string) ([]tracer, error) {
	var ts []tracer
	for _, name := range splitList(list) {
		t, err := makeTracer(name, maxISA)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("no tracers")
	}
	return ts, nil
}

// makeTracer returns the tracer of a name: embree-QUALITY[-robust][-stream][-cut]
// or raypipe-fastbuild/fasttrace[-batch|-cut].
func makeTracer(name, maxISA string) (tracer, error) {
	// "-stream" and "-batch" trace each chunk of rays with one call
	// (rtcIntersect1M, accel's IntersectBatch) instead of ray by ray.
	// "-cut" cuts every triangle whose primitive index is a multiple of
	// embree.CutPeriod out, as an alpha test would: Embree's filter
	// functions, raypipe's non-opaque geometry with a Traversal's loop
	// deciding each candidate (the any hit path). Tracers with it answer
	// alike among themselves only.
	rest, cut := strings.CutSuffix(name, "-cut")
	if rest, ok := strings.CutPrefix(rest, "embree-"); ok {
		rest, stream := strings.CutSuffix(rest, "-stream")
		rest, robust := strings.CutSuffix(rest, "-robust")
		for _, q := range []embree.Quality{embree.Low, embree.Medium, embree.High} {
			if rest == q.String() {
				return embreeTracer{quality: q, robust: robust, stream: stream, maxISA: maxISA, cut: cut}, nil
			}
		}
	}
	if rest, ok := strings.CutPrefix(rest, "raypipe-"); ok {
		rest, batch := strings.CutSuffix(rest, "-batch")
		if batch && cut {
			return nil, fmt.Errorf("tracer %q: the batches take opaque triangles only", name)
		}
		switch rest {
		case "fastbuild":
			return raypipeTracer{accel.BuildPreferFastBuild, batch, cut}, nil
		case "fasttrace":
			return raypipeTracer{accel.BuildPreferFastTrace, batch, cut}, nil
		}
	}
	return nil, fmt.Errorf("unknown tracer %q", name)
}

// rayKind is one ray batch of a scene.
type rayKind struct {
	name     string
	rays     []raygen.Ray
	occluded bool // traced with Occluded (shadow rays), else Intersect
}

// result holds one tracer's rates for one scene, by row name.
type result map[string]float64

// compare builds m with every tracer, traces the scene's ray batches, checks
// agreement with the first tracer and prints the table.
func compare(m mesh, tracers []tracer) error {
	ntri := len(m.indices) / 3
	b := raygen.BoundsOf(m.positions)
	fmt.Printf("\n== %s: %d triangles, %d vertices\n", m.name, ntri, len(m.positions))
	kinds := []rayKind{
		{name: "primary", rays: raygen.Primary(b, *flagRes, *flagRes)},
		{name: "shadow", rays: raygen.Shadow(m.positions, m.indices, b, *flagRays, *flagSeed), occluded: true},
		{name: "incoherent", rays: raygen.Incoherent(b, *flagRays, *flagSeed)},
	}
	nt := *flagThreads
	rowBuild1 := "build 1T Mtris/s"
	rowBuildN := fmt.Sprintf("build %dT Mtris/s", nt)
	rowUpdate1 := "update 1T Mtris/s"
	rowUpdateN := fmt.Sprintf("update %dT Mtris/s", nt)
	rows := []string{rowBuild1, rowBuildN}
	if *flagUpdates {
		rows = append(rows, rowUpdate1, rowUpdateN)
	}
	rows = append(rows, traceRows(kinds)...)

	results := newResults(len(tracers))
	scenes, err := buildPhases(tracers, func(ti int, t tracer, threads int) (scene, error) {
		d, sc, err := bestBuild(t, m, threads)
		if err != nil {
			return nil, err
		}
		row, urow := rowBuildN, rowUpdateN
		if threads == 1 {
			row, urow = rowBuild1, rowUpdate1
		}
		results[ti][row] = float64(ntri) / d.Seconds() / 1e6
		if *flagUpdates {
			u, err := bestUpdate(t, m, threads)
			if err != nil {
				sc.Close()
				return nil, err
			}
			results[ti][urow] = float64(ntri) / u.Seconds() / 1e6
		}
		return sc, nil
	})
	if err != nil {
		return err
	}
	defer closeAll(scenes)
	traceAndReport(kinds, tracers, scenes, results, rows, "same primitive")
	return record(m.name, rows, tracers, results)
}

// buildPhases calls build for every tracer with one thread, closing the
// scene it returns, then for every tracer with all threads (0), and
// returns those scenes, in tracer order, for tracing. With TBB, an
// Embree device's "threads=1" holds only while no other device lives: a
// one-thread build run while an earlier tracer's all-threads scene (and
// so its device) was still open for tracing ran on every thread
// (embree-medium-robust's and embree-high's one-thread rows equalled
// their all-threads ones when they followed embree-medium). So no
// one-thread build may follow an all-threads one. On an error it closes
// the scenes it kept.
func buildPhases(tracers []tracer, build func(ti int, t tracer, threads int) (scene, error)) ([]scene, error) {
	kept := make([]scene, 0, len(tracers))
	for _, threads := range []int{1, 0} {
		for ti, t := range tracers {
			sc, err := build(ti, t, threads)
			if err != nil {
				closeAll(kept)
				return nil, fmt.Errorf("%s: %w", t.Name(), err)
			}
			if threads == 1 {
				sc.Close()
			} else {
				kept = append(kept, sc)
			}
		}
	}
	return kept, nil
}

// closeAll closes every scene of scenes.
func closeAll(scenes []scene) {
	for _, sc := range scenes {
		sc.Close()
	}
}

// newResults returns n empty results, one per tracer.
func newResults(n int) []result {
	r := make([]result, n)
	for i := range r {
		r[i] = result{}
	}
	return r
}

// traceRows are the rows of kinds' rates: one thread, then -threads.
func traceRows(kinds []rayKind) []string {
	var rows []string
	for _, k := range kinds {
		rows = append(rows, k.name+" 1T Mrays/s", fmt.Sprintf("%s %dT Mrays/s", k.name, *flagThreads))
	}
	return rows
}

// traceAndReport times every scene's traces of each ray kind with one
// worker and with -threads, into results under the rows after the build
// rows (two per kind: one thread, all threads), prints the table and,
// with -check, the agreement ("same" meaning what same says).
func traceAndReport(kinds []rayKind, tracers []tracer, scenes []scene, results []result, rows []string, same string) {
	first := len(rows) - 2*len(kinds)
	answers := make([]kindAnswers, len(kinds))
	for ki, k := range kinds {
		answers[ki] = newKindAnswers(k, len(tracers))
		for ri, workers := range []int{1, *flagThreads} {
			best := bestTraces(k, scenes, answers[ki], workers)
			for ti, d := range best {
				results[ti][rows[first+2*ki+ri]] = float64(len(k.rays)) / d.Seconds() / 1e6
			}
		}
	}
	if *flagTreeStats {
		for _, line := range treeLines(tracers, scenes) {
			fmt.Println(line)
		}
	}
	printTable(rows, tracers, results)
	if *flagSteady > 0 {
		printSteady(kinds, tracers, scenes, steadyThreads)
	}
	if *flagCheck {
		fmt.Printf("agreement (same: %s, t within 1e-5 relative to max(t, origin scale); ties: another primitive at the same t):\n", same)
		for _, c := range agreementLines(kinds, tracers, answers) {
			fmt.Println(c)
		}
	}
}

// kindAnswers are every tracer's answers to one ray kind (the last timed
// run's): hits for closest-hit kinds, occluded for shadow rays.
type kindAnswers struct {
	hits     [][]hit
	occluded [][]bool
}

func newKindAnswers(k rayKind, tracers int) kindAnswers {
	var a kindAnswers
	for range tracers {
		if k.occluded {
			a.occluded = append(a.occluded, make([]bool, len(k.rays)))
		} else {
			a.hits = append(a.hits, make([]hit, len(k.rays)))
		}
	}
	return a
}

// bestTraces times every scene's trace of k's rays with workers
// goroutines, -reps times each, and returns each scene's best time. The
// scenes take turns (in reverse order every other repetition) and each
// timed run follows an untimed one (see the command's doc); the answers
// go to a.
func bestTraces(k rayKind, scenes []scene, a kindAnswers, workers int) []time.Duration {
	n := len(k.rays)
	best := make([]time.Duration, len(scenes))
	for r := 0; r < max(1, *flagReps); r++ {
		for j := range scenes {
			ti := j
			if r%2 == 1 {
				ti = len(scenes) - 1 - j
			}
			sc := scenes[ti]
			trace := func() time.Duration {
				if k.occluded {
					out := a.occluded[ti]
					return embree.Parallel(n, embree.ChunkSize, workers, func(lo, hi int) { sc.Occluded(k.rays[lo:hi], out[lo:hi]) })
				}
				out := a.hits[ti]
				return embree.Parallel(n, embree.ChunkSize, workers, func(lo, hi int) { sc.Intersect(k.rays[lo:hi], out[lo:hi]) })
			}
			// An untimed run first brings this tracer's scene back into
			// the caches the previous tracer's run filled.
			trace()
			runtime.GC()
			d := trace()
			if r == 0 || d < best[ti] {
				best[ti] = d
			}
		}
	}
	return best
}

// agreementLines reports the first tracer's hit rates and how every other
// tracer's answers agree with its.
func agreementLines(kinds []rayKind, tracers []tracer, answers []kindAnswers) []string {
	hitFrac := make([]string, len(kinds))
	for ki, k := range kinds {
		h := 0
		if k.occluded {
			for _, o := range answers[ki].occluded[0] {
				if o {
					h++
				}
			}
		} else {
			for _, x := range answers[ki].hits[0] {
				if !x.Miss() {
					h++
				}
			}
		}
		hitFrac[ki] = fmt.Sprintf("%s %.0f%%", k.name, 100*float64(h)/float64(max(1, len(k.rays))))
	}
	lines := []string{"  hit rates (" + tracers[0].Name() + "): " + strings.Join(hitFrac, ", ")}
	for ti := 1; ti < len(tracers); ti++ {
		for ki, k := range kinds {
			var a agreement
			if k.occluded {
				a = compareOccluded(answers[ki].occluded[ti], answers[ki].occluded[0])
			} else {
				a = compareHits(k.rays, answers[ki].hits[ti], answers[ki].hits[0])
			}
			lines = append(lines, fmt.Sprintf("  %s vs %s, %s: %v", tracers[ti].Name(), tracers[0].Name(), k.name, a))
			for _, e := range a.example {
				lines = append(lines, "    "+e)
			}
		}
	}
	return lines
}

// openBuilder returns t's builder for the given build threads (0: all)
// and the function that closes it; for one thread GOMAXPROCS is 1 until
// then (raypipe's builds follow it).
func openBuilder(t tracer, threads int) (builder, func(), error) {
	restore := func() {}
	if threads == 1 {
		prev := runtime.GOMAXPROCS(1)
		restore = func() { runtime.GOMAXPROCS(prev) }
	}
	b, err := t.Builder(threads)
	if err != nil {
		restore()
		return nil, nil, err
	}
	return b, func() { b.Close(); restore() }, nil
}

// bestBuild returns the best build time of m with t over -build-reps runs
// with the given build threads (0: all), and the scene of the last run.
// One-thread builds run with GOMAXPROCS 1 (for raypipe's builder).
func bestBuild(t tracer, m mesh, threads int) (time.Duration, scene, error) {
	b, done, err := openBuilder(t, threads)
	if err != nil {
		return 0, nil, err
	}
	defer done()
	d, _, sc, err := bestRuns(func() (scene, time.Duration, error) {
		sc, err := b.Build(m.positions, m.indices)
		return sc, 0, err
	})
	return d, sc, err
}

// bestUpdate returns the best time of twice -build-reps updates of a
// structure built from m for updates (untimed) with t, with the given
// threads (0: all), each after a garbage collection: to moved vertices
// (movedPositions) and back, in turn.
func bestUpdate(t tracer, m mesh, threads int) (time.Duration, error) {
	b, done, err := openBuilder(t, threads)
	if err != nil {
		return 0, err
	}
	defer done()
	u, err := b.Updatable(m.positions, m.indices)
	if err != nil {
		return 0, err
	}
	defer u.Close()
	moved := movedPositions(m.positions)
	return bestMoves(func(back bool) error {
		if back {
			return u.Update(m.positions)
		}
		return u.Update(moved)
	})
}

// bestMoves returns the best time of twice -build-reps calls of move,
// each after a garbage collection, alternately away (back false) and
// back.
func bestMoves(move func(back bool) error) (time.Duration, error) {
	best := time.Duration(math.MaxInt64)
	for r := 0; r < 2*max(1, *flagBuildReps); r++ {
		collect()
		start := time.Now()
		err := move(r%2 == 1)
		d := time.Since(start)
		if err != nil {
			return 0, err
		}
		best = min(best, d)
	}
	return best, nil
}

// movedPositions returns positions each moved by up to a thousandth of
// their bounds' diagonal, in a direction fixed by its index: a mesh
// deformed a little, as from one frame of an animation to the next.
func movedPositions(positions []vec.Vec3) []vec.Vec3 {
	b := raygen.BoundsOf(positions)
	s := 1e-3 * b.Max.Sub(b.Min).Len()
	out := make([]vec.Vec3, len(positions))
	for i, p := range positions {
		a := float64(i)
		out[i] = p.Add(vec.V3(s*float32(math.Sin(a)), s*float32(math.Cos(a)), s*float32(math.Sin(2*a))))
	}
	return out
}

// bestRuns runs build -build-reps times and returns the best time of the
// whole call and the best of the times it reports itself, and the last
// run's scene (the others closed). Each run starts after a garbage
// collection of earlier builds and traces (the previous run's scene
// included), outside the timing, so that a raypipe build pays neither
// for collecting it nor for growing the heap while it is still held:
// best-of runs then time Go's steady state, reusing freed memory (Embree
// maps fresh memory per build), on a stack grown again after the
// collection (collect).
func bestRuns(build func() (scene, time.Duration, error)) (best, bestOwn time.Duration, sc scene, err error) {
	best, bestOwn = time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for r := 0; r < max(1, *flagBuildReps); r++ {
		if sc != nil {
			sc.Close()
			sc = nil
		}
		collect()
		start := time.Now()
		var own time.Duration
		sc, own, err = build()
		d := time.Since(start)
		if err != nil {
			return 0, 0, nil, err
		}
		best, bestOwn = min(best, d), min(bestOwn, own)
	}
	return best, bestOwn, sc, nil
}

// collect is what precedes every timed build and update: a garbage
// collection, then the calling goroutine's stack grown again
// (embree.GrowStack), as the trace timings grow their workers' stacks. The
// collection shrinks the stack of a goroutine that used little of it, and
// a raypipe build then grew it again inside the timing, which Embree's
// build, on its thread's own C stack, never pays, nor does a program that
// builds from a goroutine more than once per collection. Nothing beside a
// build of milliseconds, but most of a tiny BLAS's: a tetrahedron's build
// took 5.7 us after a collection (2.1 us in a loop; at 6165ab5), 2.75 of
// them copying the stack in the profile; embreecmp's one-thread build rows
// on the tetrahedron and the 8-triangle scenes read 0.44-0.49 of Embree's
// rate at 6165ab5, 0.46-0.50 with 42c558f's leaner small builds alone and
// 0.88-1.00 with the growth as well (Zen 5, two or three runs each).
func collect() {
	runtime.GC()
	embree.GrowStack()
}

// ratioPairs are the ratio columns: raypipe rate / Embree rate, so above 1
// means raypipe is faster.
var ratioPairs = [][2]string{
	{"raypipe-fastbuild", "embree-medium"},
	{"raypipe-fasttrace", "embree-medium"},
	{"raypipe-fasttrace", "embree-high"},
	{"raypipe-fasttrace", "embree-medium-robust"},
	{"raypipe-fastbuild-batch", "embree-medium"},
	{"raypipe-fasttrace-batch", "embree-medium"},
	{"raypipe-fasttrace-batch", "embree-medium-stream"},
	{"raypipe-fasttrace-cut", "embree-medium-cut"},
	{"embree-high", "embree-medium"},
	{"embree-medium-stream", "embree-medium"},
	{"embree-medium-robust", "embree-medium"},
}

func printTable(rows []string, tracers []tracer, results []result) {
	names := tracerNames(tracers)
	pairs := presentPairs(names)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	tableHeading(w, names, pairs)
	for _, row := range rows {
		fmt.Fprintf(w, "%s\t", row)
		for i := range tracers {
			fmt.Fprintf(w, "%.2f\t", results[i][row])
		}
		for _, p := range pairs {
			fmt.Fprintf(w, "%.2fx\t", results[p[0]][row]/results[p[1]][row])
		}
		fmt.Fprintln(w)
	}
	w.Flush()
}

// tracerNames returns the tracers' names, in order.
func tracerNames(tracers []tracer) []string {
	names := make([]string, len(tracers))
	for i, t := range tracers {
		names[i] = t.Name()
	}
	return names
}

// tableHeading writes a table's heading line: the tracers' names, then
// the ratio columns (pairs, indices into names) as short names.
func tableHeading(w io.Writer, names []string, pairs [][2]int) {
	fmt.Fprint(w, "\t")
	for _, name := range names {
		fmt.Fprintf(w, "%s\t", name)
	}
	for _, p := range pairs {
		fmt.Fprintf(w, "%s/%s\t", short(names[p[0]]), short(names[p[1]]))
	}
	fmt.Fprintln(w)
}

// short abbreviates a tracer name for a ratio heading: embree-medium -> E-med.
func short(name string) string {
	r := strings.NewReplacer("embree-", "E-", "raypipe-", "R-", "medium", "med", "fastbuild", "fb", "fasttrace", "ft", "-robust", "-rob", "-batch", "-b", "-stream", "-s", "-cut", "-c")
	return r.Replace(name)
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// parseSize parses a triangle count such as 10000, 10k or 1.5m.
func parseSize(s string) (int, error) {
	mult := 1.0
	num := strings.ToLower(s)
	switch {
	case strings.HasSuffix(num, "k"):
		mult, num = 1e3, num[:len(num)-1]
	case strings.HasSuffix(num, "m"):
		mult, num = 1e6, num[:len(num)-1]
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || x*mult < 1 || x*mult > 1<<28 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int(x * mult), nil
}
