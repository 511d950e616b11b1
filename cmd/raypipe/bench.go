package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/raypipe/raypipe"
	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/internal/raygen"
	"github.com/raypipe/raypipe/render"
	"github.com/raypipe/raypipe/scene"
	"github.com/raypipe/raypipe/vec"
)

// metric is one benchmark result; see README.md for the names.
type metric struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// benchConfig sizes the suite.
type benchConfig struct {
	tris       int // procedural mesh for build and trace
	primaryW   int // primary rays: primaryW²
	rays       int // shadow and incoherent rays
	reps       int // timed repetitions (best is kept)
	materials  int // ManyMaterials
	serW, serH int
	serSPP     int
	windows    []int // SER window sweep (nil: none)
}

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench", "[-json] [-quick]", stderr)
	jsonOut := fs.Bool("json", false, "print one JSON object per line: {\"name\", \"value\", \"unit\"}")
	quick := fs.Bool("quick", false, "small sizes, one repetition, no window sweep (seconds, not minutes)")
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg := benchConfig{tris: 1_000_000, primaryW: 1024, rays: 1 << 20, reps: 3, materials: 32, serW: 320, serH: 180, serSPP: 4,
		windows: []int{1 << 10, 1 << 12, 1 << 14, 1 << 16}}
	if *quick {
		cfg = benchConfig{tris: 200_000, primaryW: 384, rays: 1 << 17, reps: 1, materials: 16, serW: 160, serH: 90, serSPP: 2}
	}
	emit := func(m metric) {
		if *jsonOut {
			b, _ := json.Marshal(m)
			fmt.Fprintf(stdout, "%s\n", b)
			return
		}
		fmt.Fprintf(stdout, "%-32s %12.4g  %s\n", m.Name, m.Value, m.Unit)
	}
	if !*jsonOut {
		fmt.Fprintf(stdout, "raypipe bench: %d CPUs (GOMAXPROCS), %s/%s, walks: %s\n\n", runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, accel.Walks())
		fmt.Fprintf(stdout, "%-32s %12s  %s\n", "metric", "value", "unit")
	}
	return benchSuite(cfg, emit)
}

// best runs f reps times and returns the shortest duration.
func best(reps int, f func() (time.Duration, error)) (time.Duration, error) {
	var b time.Duration
	for i := 0; i < max(reps, 1); i++ {
		d, err := f()
		if err != nil {
			return 0, err
		}
		if i == 0 || d < b {
			b = d
		}
	}
	return b, nil
}

func timeIt(f func() error) (time.Duration, error) {
	t := time.Now()
	err := f()
	return time.Since(t), err
}

func toAccel(rs []raygen.Ray) []accel.Ray {
	out := make([]accel.Ray, len(rs))
	for i, r := range rs {
		out[i] = accel.Ray{Origin: r.Origin, TMin: r.TMin, Direction: r.Dir, TMax: r.TMax}
	}
	return out
}

// parallel calls f(i) for i in [0, n) on GOMAXPROCS goroutines.
func parallel(n int, f func(i int)) {
	parallelChunks(n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			f(i)
		}
	})
}

// parallelChunks calls f on the chunks [lo, hi) of [0, n) from GOMAXPROCS
// goroutines.
func parallelChunks(n int, f func(lo, hi int)) {
	const chunk = 1024
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= n {
					return
				}
				f(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
}

func benchSuite(cfg benchConfig, emit func(metric)) error {
	pos, idx := meshgen.Terrain(cfg.tris, 1)
	ntri := float64(len(idx) / 3)
	geom := []accel.Geometry{accel.TriangleGeometry(pos, idx)}

	// Builds.
	var blas *accel.BLAS
	for _, b := range []struct {
		name  string
		flags accel.BuildFlags
	}{{"build.fast_trace", accel.BuildPreferFastTrace}, {"build.fast_build", accel.BuildPreferFastBuild}} {
		d, err := best(cfg.reps, func() (time.Duration, error) {
			return timeIt(func() error {
				x, err := accel.BuildBLAS(geom, b.flags)
				if b.flags == accel.BuildPreferFastTrace {
					blas = x
				}
				return err
			})
		})
		if err != nil {
			return err
		}
		emit(metric{b.name, ntri / d.Seconds() / 1e6, "Mtris/s"})
	}
	tlas, err := accel.BuildTLAS([]accel.Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: blas}}, accel.BuildPreferFastTrace)
	if err != nil {
		return err
	}

	// Plain queries.
	bounds := raygen.BoundsOf(pos)
	primary := toAccel(raygen.Primary(bounds, cfg.primaryW, cfg.primaryW))
	shadow := toAccel(raygen.Shadow(pos, idx, bounds, cfg.rays, 2))
	incoherent := toAccel(raygen.Incoherent(bounds, cfg.rays, 3))
	rawT := make([]float32, len(primary))
	rawOcc := make([]bool, len(shadow))
	for _, q := range []struct {
		name string
		rays []accel.Ray
		occ  bool
	}{{"trace.primary", primary, false}, {"trace.shadow", shadow, true}, {"trace.incoherent", incoherent, false}} {
		d, _ := best(cfg.reps, func() (time.Duration, error) {
			return timeIt(func() error {
				if q.occ {
					parallel(len(q.rays), func(i int) { rawOcc[i] = tlas.Occluded(q.rays[i], 0, 0xff) })
				} else if q.name == "trace.primary" {
					parallel(len(q.rays), func(i int) {
						h, ok := tlas.Intersect(q.rays[i], 0, 0xff)
						rawT[i] = float32(math.Inf(1))
						if ok {
							rawT[i] = h.T
						}
					})
				} else {
					parallel(len(q.rays), func(i int) { tlas.Intersect(q.rays[i], 0, 0xff) })
				}
				return nil
			})
		})
		emit(metric{q.name, float64(len(q.rays)) / d.Seconds() / 1e6, "Mrays/s"})
		// The same rays through the batch calls, 1024 rays per call.
		d, _ = best(cfg.reps, func() (time.Duration, error) {
			return timeIt(func() error {
				parallelChunks(len(q.rays), func(lo, hi int) {
					found := make([]bool, hi-lo)
					if q.occ {
						tlas.OccludedBatch(q.rays[lo:hi], 0, 0xff, found)
					} else {
						tlas.IntersectBatch(q.rays[lo:hi], 0, 0xff, make([]accel.Hit, hi-lo), found)
					}
				})
				return nil
			})
		})
		emit(metric{q.name + ".batch", float64(len(q.rays)) / d.Seconds() / 1e6, "Mrays/s"})
		if q.name == "trace.primary" {
			pd, err := pipelineOverhead(tlas, primary, rawT, cfg.reps)
			if err != nil {
				return err
			}
			emit(metric{"pipeline.primary", float64(len(primary)) / pd.Seconds() / 1e6, "Mrays/s"})
			emit(metric{"pipeline.overhead", pd.Seconds() / d.Seconds(), "ratio"})
		}
		if q.name == "trace.shadow" {
			pd, err := pipelineShadow(tlas, shadow, rawOcc, cfg.reps)
			if err != nil {
				return err
			}
			emit(metric{"pipeline.shadow", float64(len(shadow)) / pd.Seconds() / 1e6, "Mrays/s"})
		}
	}
	return benchSER(cfg, emit)
}

// pipelineOverhead traces the primary rays through DispatchRays with a
// closest-hit shader that records t (and a miss shader), checks the
// results against the raw queries, and returns the best time.
func pipelineOverhead(tlas *accel.TLAS, rays []accel.Ray, want []float32, reps int) (time.Duration, error) {
	got := make([]float32, len(rays))
	type payload struct{ T float32 }
	ch := raypipe.ClosestHit("ch", func(c *raypipe.Context, pl *payload, _ *raypipe.BuiltInTriangleIntersectionAttributes) {
		pl.T = c.RayTCurrent()
	})
	d, err := bestDispatch(len(rays), reps, func(c *raypipe.Context, i int) {
		var pl payload
		raypipe.TraceRay(c, tlas, 0, 0xff, 0, 1, 0, rays[i], &pl)
		got[i] = pl.T
	}, raypipe.Miss("miss", func(c *raypipe.Context, pl *payload) { pl.T = float32(math.Inf(1)) }), &ch)
	if err != nil {
		return 0, err
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return 0, fmt.Errorf("pipeline and raw query disagree on ray %d: t %v vs %v", i, got[i], want[i])
		}
	}
	return d, nil
}

// pipelineShadow traces the shadow rays through DispatchRays as a DXR
// shader casts them (RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH |
// RAY_FLAG_SKIP_CLOSEST_HIT_SHADER, a miss shader that marks the point
// lit), checks them against the raw occlusion queries and returns the
// best time.
func pipelineShadow(tlas *accel.TLAS, rays []accel.Ray, occluded []bool, reps int) (time.Duration, error) {
	lit := make([]bool, len(rays))
	type payload struct{ lit bool }
	const flags = accel.RayFlagAcceptFirstHitAndEndSearch | accel.RayFlagSkipClosestHitShader
	d, err := bestDispatch(len(rays), reps, func(c *raypipe.Context, i int) {
		var pl payload
		raypipe.TraceRay(c, tlas, flags, 0xff, 0, 1, 0, rays[i], &pl)
		lit[i] = pl.lit
	}, raypipe.Miss("miss", func(c *raypipe.Context, pl *payload) { pl.lit = true }), nil)
	if err != nil {
		return 0, err
	}
	for i := range lit {
		if lit[i] == occluded[i] {
			return 0, fmt.Errorf("pipeline and raw query disagree on shadow ray %d: lit %v, occluded %v", i, lit[i], occluded[i])
		}
	}
	return d, nil
}

// bestDispatch times, best of reps, a DispatchRays of n rays in rows of
// 1024 whose ray generation shader calls trace with each ray's index,
// with the miss shader miss and, when closestHit is not nil, a hit group
// of that closest-hit shader (record 0 of each table).
func bestDispatch(n, reps int, trace func(c *raypipe.Context, i int), miss raypipe.Shader, closestHit *raypipe.Shader) (time.Duration, error) {
	w := uint32(1024)
	h := (uint32(n) + w - 1) / w
	desc := raypipe.PipelineDesc{
		Shaders: []raypipe.Shader{
			raypipe.RayGeneration("rg", func(c *raypipe.Context) {
				l := c.DispatchRaysIndex()
				if i := int(l[1]*w + l[0]); i < n {
					trace(c, i)
				}
			}),
			miss,
		},
		PipelineConfig: raypipe.PipelineConfig{MaxTraceRecursionDepth: 1},
	}
	if closestHit != nil {
		desc.Shaders = append(desc.Shaders, *closestHit)
		desc.HitGroups = []raypipe.HitGroup{{Name: "hg", ClosestHit: closestHit.Name}}
	}
	p, err := raypipe.NewPipeline(desc)
	if err != nil {
		return 0, err
	}
	table := func(name string) raypipe.ShaderTable {
		var b raypipe.ShaderTableBuilder
		b.Add(p.MustShaderIdentifier(name), nil)
		return b.Build()
	}
	dr := raypipe.DispatchRaysDesc{RayGeneration: table("rg"), Miss: table(miss.Name), Width: w, Height: h}
	if closestHit != nil {
		dr.HitGroup = table("hg")
	}
	return best(reps, func() (time.Duration, error) {
		st, err := p.DispatchRays(context.Background(), dr, nil)
		return st.Elapsed, err
	})
}

// benchSER renders scene.ManyMaterials with reordering off and on.
func benchSER(cfg benchConfig, emit func(metric)) error {
	r, err := render.NewRenderer(scene.ManyMaterials(cfg.materials, 1))
	if err != nil {
		return err
	}
	// Closest-hit shading filters each material's texture over a
	// footprint (16 lookups), so shaders touch distinct, large data: the
	// workload SER is meant for.
	base := render.Options{Width: cfg.serW, Height: cfg.serH, SamplesPerPixel: cfg.serSPP, MaxBounces: 4, Seed: 1, TextureTaps: 16}
	run := func(o render.Options) (render.Result, error) {
		var res render.Result
		_, err := best(cfg.reps, func() (time.Duration, error) {
			_, rr, err := r.Render(context.Background(), o)
			if err == nil && (res.Elapsed == 0 || rr.Elapsed < res.Elapsed) {
				res = rr
			}
			return rr.Elapsed, err
		})
		return res, err
	}
	off, err := run(base)
	if err != nil {
		return err
	}
	on := base
	on.Reorder = raypipe.ReorderOn
	onRes, err := run(on)
	if err != nil {
		return err
	}
	emit(metric{"ser.off.samples_per_s", off.SamplesPerSec, "samples/s"})
	emit(metric{"ser.on.samples_per_s", onRes.SamplesPerSec, "samples/s"})
	emit(metric{"ser.speedup", onRes.SamplesPerSec / off.SamplesPerSec, "ratio"})

	// Coherence, measured in a separate run (recording costs time).
	coh := on
	coh.CoherenceStats = true
	_, cr, err := r.Render(context.Background(), coh)
	if err != nil {
		return err
	}
	emit(metric{"ser.coherence.before", cr.Stats.Coherence.LaunchOrder.RecordsPerWave(), "records/wave"})
	emit(metric{"ser.coherence.after", cr.Stats.Coherence.Executed.RecordsPerWave(), "records/wave"})

	// A coherent workload: primary hits only.
	prim := base
	prim.MaxBounces = 0
	pOff, err := run(prim)
	if err != nil {
		return err
	}
	prim.Reorder = raypipe.ReorderOn
	pOn, err := run(prim)
	if err != nil {
		return err
	}
	emit(metric{"ser.coherent_overhead", pOn.Elapsed.Seconds() / pOff.Elapsed.Seconds(), "ratio"})

	for _, w := range cfg.windows {
		o := on
		o.Window = w
		res, err := run(o)
		if err != nil {
			return err
		}
		emit(metric{fmt.Sprintf("ser.speedup.window_%d", w), res.SamplesPerSec / off.SamplesPerSec, "ratio"})
	}
	return nil
}
