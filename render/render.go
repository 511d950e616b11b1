package render

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/raypipe/raypipe"
	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/scene"
)

// Options control a render. A zero Width, Height or SamplesPerPixel means
// 640, 360 or 16; start from DefaultOptions for the other defaults.
type Options struct {
	Width, Height   int
	SamplesPerPixel int
	// MaxBounces is the number of indirect bounces: 0 shades only the
	// first hit, with direct light (DefaultOptions: 6).
	MaxBounces int
	Seed       uint64
	// Reorder selects Shader Execution Reordering for the dispatch.
	Reorder raypipe.ReorderMode
	// Window is the number of in-flight invocations per worker with
	// reordering on (0: raypipe.DefaultReorderWindow).
	Window int
	// Workers is the number of worker goroutines (0: GOMAXPROCS).
	Workers int
	// Progress, when set, is called from one goroutine with the number of
	// finished pixels, about ten times a second and once at the end.
	Progress func(done, total int)

	// Camera replaces the scene's camera (nil: scene.CameraOrAuto).
	Camera *scene.Camera
	// Environment replaces DefaultEnvironment.
	Environment *Environment
	// Clamp, when positive, limits the radiance any one indirect path
	// vertex may add to a sample (a firefly clamp; biased).
	Clamp float32
	// TextureTaps, when above 1, filters base color textures over a
	// footprint with that many bilinear lookups (memory-heavy shading, as
	// in the SER benchmark); 0 or 1 is one bilinear lookup.
	TextureTaps int
	// CoherenceStats enables raypipe's simulated SIMT coherence
	// statistics (Result.Stats.Coherence), at a small cost per Invoke.
	CoherenceStats bool
}

// DefaultOptions are the options `raypipe render` starts from.
func DefaultOptions() Options {
	return Options{Width: 640, Height: 360, SamplesPerPixel: 16, MaxBounces: 6, Seed: 1, Clamp: 10}
}

func (o *Options) normalize() error {
	if o.Width == 0 {
		o.Width = 640
	}
	if o.Height == 0 {
		o.Height = 360
	}
	if o.SamplesPerPixel == 0 {
		o.SamplesPerPixel = 16
	}
	switch {
	case o.Width < 0 || o.Height < 0:
		return fmt.Errorf("render: image size %dx%d is negative", o.Width, o.Height)
	case o.Width > 1<<15 || o.Height > 1<<15:
		return fmt.Errorf("render: image size %dx%d exceeds %d", o.Width, o.Height, 1<<15)
	case o.SamplesPerPixel < 0 || o.SamplesPerPixel > 1<<20:
		return fmt.Errorf("render: %d samples per pixel out of range 1..%d", o.SamplesPerPixel, 1<<20)
	case o.MaxBounces > 1000:
		return fmt.Errorf("render: %d bounces exceed 1000", o.MaxBounces)
	case o.Window < 0:
		return fmt.Errorf("render: negative reorder window %d", o.Window)
	case o.Workers < 0:
		return fmt.Errorf("render: negative worker count %d", o.Workers)
	case o.Reorder != raypipe.ReorderOff && o.Reorder != raypipe.ReorderOn:
		return fmt.Errorf("render: unknown reorder mode %d", o.Reorder)
	case o.Clamp < 0 || o.Clamp != o.Clamp:
		return fmt.Errorf("render: clamp %v must be positive or 0", o.Clamp)
	}
	o.MaxBounces = max(o.MaxBounces, 0)
	return nil
}

// Result describes a finished render.
type Result struct {
	Elapsed time.Duration // the dispatch, without the scene build
	Build   time.Duration // NewRenderer's acceleration structure build
	Rays    uint64        // radiance and shadow rays traced
	Samples uint64        // paths: pixels x samples per pixel
	// MraysPerSec and SamplesPerSec are the throughput of the dispatch.
	MraysPerSec, SamplesPerSec float64
	// Stats are the dispatch's counters: invocations per stage, reorder
	// points, reorder time and (with Options.CoherenceStats) coherence.
	Stats raypipe.Stats
}

// Render builds s and renders it; see Renderer.Render.
func Render(ctx context.Context, s *scene.Scene, opt Options) (*Image, Result, error) {
	r, err := NewRenderer(s)
	if err != nil {
		return nil, Result{}, err
	}
	img, res, err := r.Render(ctx, opt)
	res.Build = r.buildTime
	return img, res, err
}

// Render renders one image. It returns ctx's error when ctx is cancelled
// and a *raypipe.DispatchError when a shader fails.
func (r *Renderer) Render(ctx context.Context, opt Options) (*Image, Result, error) {
	if err := opt.normalize(); err != nil {
		return nil, Result{}, err
	}
	cam := r.scene.CameraOrAuto()
	if opt.Camera != nil {
		cam = *opt.Camera
	}
	e := DefaultEnvironment()
	if opt.Environment != nil {
		e = *opt.Environment
	}
	img := NewImage(opt.Width, opt.Height)
	f := &frame{r: r, opt: opt, cam: newCamera(cam, opt.Width, opt.Height), env: prepareEnv(e), pix: img.Pix,
		done: new(atomic.Int64), rrStart: 3, clamp: opt.Clamp, inf: float32(math.Inf(1)),
		shadowFl: accel.RayFlagAcceptFirstHitAndEndSearch | accel.RayFlagSkipClosestHitShader}
	p, desc, err := f.pipeline()
	if err != nil {
		return nil, Result{}, err
	}
	total := opt.Width * opt.Height
	stopProgress := f.progress(total)
	st, err := p.DispatchRays(ctx, desc, &raypipe.DispatchOptions{
		Workers: opt.Workers, Reorder: opt.Reorder, Window: opt.Window, CoherenceStats: opt.CoherenceStats,
	})
	stopProgress(err == nil)
	res := Result{Elapsed: st.Elapsed, Build: r.buildTime, Rays: st.Rays, Samples: uint64(total) * uint64(opt.SamplesPerPixel), Stats: st}
	if s := st.Elapsed.Seconds(); s > 0 {
		res.MraysPerSec = float64(st.Rays) / s / 1e6
		res.SamplesPerSec = float64(res.Samples) / s
	}
	if err != nil {
		var de *raypipe.DispatchError
		if errors.As(err, &de) {
			return nil, res, fmt.Errorf("render: %w", err)
		}
		return nil, res, err
	}
	return img, res, nil
}

// progress starts the goroutine that reports Options.Progress; the
// returned function stops it (with a final report when ok).
func (f *frame) progress(total int) func(ok bool) {
	cb := f.opt.Progress
	if cb == nil {
		return func(bool) {}
	}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				cb(int(f.done.Load()), total)
			}
		}
	}()
	return func(ok bool) {
		close(stop)
		<-stopped
		if ok {
			cb(total, total)
		}
	}
}

// pipeline links the frame's shaders and lays out the shader tables.
func (f *frame) pipeline() (*raypipe.Pipeline, raypipe.DispatchRaysDesc, error) {
	sh, hg := f.shaders()
	p, err := raypipe.NewPipeline(raypipe.PipelineDesc{
		Shaders: sh, HitGroups: hg,
		// Ray generation traces radiance rays (depth 1); their closest-hit
		// shaders trace shadow rays (depth 2).
		PipelineConfig: raypipe.PipelineConfig{MaxTraceRecursionDepth: 2},
	})
	if err != nil {
		return nil, raypipe.DispatchRaysDesc{}, fmt.Errorf("render: %w", err)
	}
	id := p.MustShaderIdentifier
	var rg, miss, hits, calls raypipe.ShaderTableBuilder
	rg.Add(id("raygen"), nil)
	miss.Add(id("miss"), nil)        // missRadiance
	miss.Add(id("shadow_miss"), nil) // missShadow
	calls.Add(id("bsdf_diffuse"), nil)
	calls.Add(id("bsdf_metal"), nil)
	calls.Add(id("bsdf_dielectric"), nil)
	for g := range f.r.geoms {
		geo := &f.r.geoms[g]
		m := &f.r.mats[geo.material]
		kind := kindNames[m.kind]
		var radiance, shadow raypipe.ShaderIdentifier
		switch {
		case geo.prim == nil:
			radiance, shadow = id("hg_sphere_"+kind), id("sphere_shadow")
		case m.alphaMode != scene.Opaque:
			radiance, shadow = id("hg_tri_"+kind+"_alpha"), id("tri_shadow_alpha")
		default:
			// Opaque triangles need no shader for shadow rays: a NULL
			// hit group still commits the hit.
			radiance = id("hg_tri_" + kind)
		}
		// Records numRayTypes·g + rayRadiance and + rayShadow.
		hits.AddUint32s(radiance, geo.material, uint32(g))
		hits.AddUint32s(shadow, geo.material, uint32(g))
	}
	desc := raypipe.DispatchRaysDesc{
		RayGeneration: rg.Build(), Miss: miss.Build(), HitGroup: hits.Build(), Callable: calls.Build(),
		Width: uint32(f.opt.Width), Height: uint32(f.opt.Height),
	}
	return p, desc, nil
}
