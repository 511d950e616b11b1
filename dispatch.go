package raypipe

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/raypipe/raypipe/accel"
)

// DispatchRaysDesc is D3D12_DISPATCH_RAYS_DESC: the shader tables and the
// size of the ray generation grid.
type DispatchRaysDesc struct {
	// RayGeneration holds the one ray generation record (Stride is
	// ignored).
	RayGeneration ShaderTable
	Miss          ShaderTable
	HitGroup      ShaderTable
	Callable      ShaderTable
	Width         uint32
	Height        uint32
	Depth         uint32 // 0 is taken as 1
}

// ReorderMode selects how ReorderThread behaves.
type ReorderMode uint8

const (
	// ReorderOff: ReorderThread is a legal no-op and ray generation
	// invocations run back to back (the fast path).
	ReorderOff ReorderMode = iota
	// ReorderOn: each worker keeps a window of ray generation invocations
	// in flight, suspends them at ReorderThread, sorts them by the spec's
	// key and resumes them in that order.
	ReorderOn
)

// DispatchOptions tune a dispatch; the zero value is good.
type DispatchOptions struct {
	// Workers is the number of worker goroutines; 0 means GOMAXPROCS.
	Workers int
	// Reorder selects the ReorderThread implementation.
	Reorder ReorderMode
	// Window is the number of ray generation invocations each worker keeps
	// in flight with ReorderOn; 0 means DefaultReorderWindow.
	Window int
	// CoherenceStats enables the simulated 32-wide SIMT coherence
	// statistics at HitObject.Invoke (a little slower).
	CoherenceStats bool
}

// DefaultReorderWindow is the default number of in-flight invocations per
// worker with ReorderOn. Measured here (BenchmarkReorderPoint), one
// reorder point costs about 200 ns up to windows of a thousand or so
// (two coroutine switches and the sort) and several times more beyond,
// when the suspended invocations' stacks no longer fit in cache.
const DefaultReorderWindow = 1 << 10

// tileSize is the side of the square tiles of launch indices that workers
// take at a time.
const tileSize = 8

// Stats are a dispatch's counters, merged from per-worker counters.
type Stats struct {
	// Invocations counts shader invocations per ShaderKind.
	Invocations [numShaderKinds]uint64
	// Rays counts TraceRay and HitObject.TraceRay calls.
	Rays uint64
	// ReorderPoints counts ReorderThread calls.
	ReorderPoints uint64
	// ReorderTime is the time spent sorting suspended invocations, summed
	// over workers.
	ReorderTime time.Duration
	// Coherence describes HitObject.Invoke as 32-wide SIMT waves, in
	// launch order and in execution order (after reordering).
	Coherence Coherence
	Elapsed   time.Duration
}

func (s *Stats) add(o *Stats) {
	for i := range s.Invocations {
		s.Invocations[i] += o.Invocations[i]
	}
	s.Rays += o.Rays
	s.ReorderPoints += o.ReorderPoints
	s.ReorderTime += o.ReorderTime
	s.Coherence.add(&o.Coherence)
}

type dispatch struct {
	p          *Pipeline
	desc       DispatchRaysDesc
	dims       [3]uint32
	raygen     *group
	raygenArgs []byte
	stackLimit uint64
	opt        DispatchOptions
	ctx        context.Context
	tilesX     uint32
	tilesY     uint32
	nextTile   atomic.Uint64
	stop       atomic.Bool
	errOnce    sync.Once
	err        error
}

// DispatchRays runs the ray generation shader once for every launch index
// of the Width x Height x Depth grid on GOMAXPROCS workers (or
// opt.Workers). It returns the first error a shader caused, as a
// *DispatchError, or ctx's error when ctx was cancelled; in both cases the
// other invocations stop promptly. opt may be nil.
func (p *Pipeline) DispatchRays(ctx context.Context, desc DispatchRaysDesc, opt *DispatchOptions) (Stats, error) {
	start := time.Now()
	if ctx == nil {
		ctx = context.Background()
	}
	d := &dispatch{p: p, desc: desc, ctx: ctx, stackLimit: p.StackSize()}
	if opt != nil {
		d.opt = *opt
	}
	if err := d.validate(); err != nil {
		return Stats{}, err
	}
	if d.raygen == nil {
		// A NULL ray generation identifier: "no shader is executed".
		return Stats{Elapsed: time.Since(start)}, ctx.Err()
	}
	workers := d.opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	tiles := uint64(d.tilesX) * uint64(d.tilesY) * uint64(d.dims[2])
	if uint64(workers) > tiles {
		workers = int(tiles)
	}
	ws := make([]*worker, workers)
	var wg sync.WaitGroup
	for i := range ws {
		ws[i] = newWorker(d)
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			w.run()
		}(ws[i])
	}
	wg.Wait()
	var st Stats
	for _, w := range ws {
		st.add(&w.stats)
	}
	st.Elapsed = time.Since(start)
	if d.err != nil {
		return st, d.err
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	return st, nil
}

func (d *dispatch) validate() error {
	desc := &d.desc
	depth := desc.Depth
	if depth == 0 {
		depth = 1
	}
	d.dims = [3]uint32{desc.Width, desc.Height, depth}
	if n := uint64(desc.Width) * uint64(desc.Height) * uint64(depth); n > maxDispatchInvocations {
		return fmt.Errorf("raypipe: %w: %dx%dx%d invocations exceed %d", ErrDispatchInvalid, desc.Width, desc.Height, depth, maxDispatchInvocations)
	}
	// The ray generation record is an address range: its Stride is ignored.
	rg := desc.RayGeneration
	rg.Stride = 0
	for _, t := range []struct {
		name string
		t    *ShaderTable
	}{{"ray generation", &rg}, {"miss", &desc.Miss}, {"hit group", &desc.HitGroup}, {"callable", &desc.Callable}} {
		if err := t.t.validate(t.name); err != nil {
			return fmt.Errorf("%w (%w)", err, ErrDispatchInvalid)
		}
	}
	id, args, ok := rg.record(0)
	if !ok {
		return fmt.Errorf("raypipe: %w: no ray generation record", ErrDispatchInvalid)
	}
	g, err := d.p.lookup(id)
	if err != nil {
		return fmt.Errorf("raypipe: ray generation record: %w (%w)", err, ErrDispatchInvalid)
	}
	if g != nil && g.kind != KindRayGeneration {
		return fmt.Errorf("raypipe: %w: the ray generation record does not name a ray generation shader", ErrDispatchInvalid)
	}
	d.raygen, d.raygenArgs = g, args
	if d.opt.Window <= 0 {
		d.opt.Window = DefaultReorderWindow
	}
	d.tilesX = (desc.Width + tileSize - 1) / tileSize
	d.tilesY = (desc.Height + tileSize - 1) / tileSize
	return nil
}

// fail records the first error and stops every worker.
func (d *dispatch) fail(err error) {
	d.errOnce.Do(func() { d.err = err })
	d.stop.Store(true)
}

// takeTile returns the launch indices of the next tile, in row-major order
// within the tile.
func (d *dispatch) takeTile(buf [][3]uint32) ([][3]uint32, bool) {
	if d.stop.Load() {
		return nil, false
	}
	if d.ctx.Err() != nil {
		d.stop.Store(true)
		return nil, false
	}
	t := d.nextTile.Add(1) - 1
	per := uint64(d.tilesX) * uint64(d.tilesY)
	if per == 0 || t >= per*uint64(d.dims[2]) {
		return nil, false
	}
	z := uint32(t / per)
	t %= per
	tx, ty := uint32(t%uint64(d.tilesX)), uint32(t/uint64(d.tilesX))
	buf = buf[:0]
	for y := ty * tileSize; y < min((ty+1)*tileSize, d.dims[1]); y++ {
		for x := tx * tileSize; x < min((tx+1)*tileSize, d.dims[0]); x++ {
			buf = append(buf, [3]uint32{x, y, z})
		}
	}
	return buf, true
}

// worker is one dispatch goroutine with its own traversal, context pool
// and counters.
type worker struct {
	d     *dispatch
	tr    accel.Traversal
	ts    traceState
	pool  []*Context
	level int
	stats Stats
	rg    Context
	sched *scheduler
	seq   uint32
	// coherence is non-nil with DispatchOptions.CoherenceStats.
	coherence *coherenceRecorder
	// payloads holds TraceRay's copies of its callers' payloads, one per
	// recursion depth (payloadIn).
	payloads [MaxDeclarableRecursionDepth + 1]any
	// params holds CallShader's copies of its callers' parameters, one
	// per callable nesting (paramIn).
	params [MaxCallableNesting + 1]any
}

func newWorker(d *dispatch) *worker {
	w := &worker{d: d}
	if d.opt.CoherenceStats {
		w.coherence = &coherenceRecorder{}
	}
	return w
}

func (w *worker) run() {
	if w.coherence != nil {
		defer func() { w.stats.Coherence = w.coherence.finish(w.d.opt.Reorder == ReorderOn) }()
	}
	if w.d.opt.Reorder == ReorderOn {
		w.runReordered()
		return
	}
	buf := make([][3]uint32, 0, tileSize*tileSize)
	for {
		tile, ok := w.d.takeTile(buf)
		if !ok {
			return
		}
		for _, l := range tile {
			if err := w.runRayGen(&w.rg, l, nil); err != nil {
				w.d.fail(err)
				return
			}
		}
	}
}

// runRayGen runs one ray generation invocation to completion and returns
// the error it caused.
func (w *worker) runRayGen(c *Context, launch [3]uint32, rg *rayGen) (err error) {
	g := w.d.raygen
	*c = Context{w: w, launch: launch, stage: KindRayGeneration, shader: g.shader, args: w.d.raygenArgs, rg: rg, seq: w.seq}
	w.seq++
	defer func() {
		if r := recover(); r != nil {
			err = w.toError(c, r)
		}
		if w.coherence != nil {
			w.coherence.launch.Finished(c.seq)
		}
	}()
	w.invoke(nil, c, g.shader, nil, nil)
	return nil
}

// toError turns a recovered panic into a *DispatchError.
func (w *worker) toError(c *Context, r any) error {
	switch v := r.(type) {
	case *DispatchError:
		return v
	case errReorderAborted:
		return errDispatchCancelled
	case anyHitSignal, intersectionAbort:
		return &DispatchError{LaunchIndex: c.launch, Shader: c.shader.Name, Kind: c.stage, Err: fmt.Errorf("%w: IgnoreHit/AcceptHitAndEndSearch escaped its any hit shader", ErrIntrinsicStage)}
	}
	return &DispatchError{LaunchIndex: c.launch, Shader: c.shader.Name, Kind: c.stage, Err: &PanicError{Value: r}, Stack: debug.Stack()}
}

// nested returns a fresh Context for a nested invocation; release returns
// it. Nested invocations are strictly LIFO within a worker (ray generation
// invocations only suspend at ReorderThread, where nothing is nested).
func (w *worker) nested() *Context {
	if w.level == len(w.pool) {
		w.pool = append(w.pool, new(Context))
	}
	c := w.pool[w.level]
	w.level++
	return c
}

func (w *worker) release() { w.level-- }

// invoke runs shader s in context c (prepared by the caller), accounting
// its stack and statistics and attributing panics to it. The intrinsics
// that end a shader early end it here, in the one recover of its
// invocation: an any hit shader's IgnoreHit or AcceptHitAndEndSearch
// (recorded in c.ended for runAnyHit), an intersection shader's ReportHit
// that ended the search. Each cost a second panic when runAnyHit and
// runIntersection recovered them again (a quarter of a 100k terrain's
// hits ignored, BenchmarkAnyHit: gopanic was 13% of the profile).
func (w *worker) invoke(parent, c *Context, s *Shader, payload, attr unsafe.Pointer) {
	if parent != nil {
		c.stack = parent.stack
	}
	c.stack += s.StackSize()
	if c.stack > w.d.stackLimit {
		who := c
		if parent != nil {
			who = parent
		}
		who.fail(fmt.Errorf("%w: %s shader %q needs %d bytes, the pipeline stack size is %d", ErrStackOverflow, s.Kind, s.Name, c.stack, w.d.stackLimit))
	}
	w.stats.Invocations[s.Kind]++
	defer func() {
		if r := recover(); r != nil {
			switch v := r.(type) {
			case anyHitSignal:
				if c.stage == KindAnyHit {
					c.ended = v // the shader's own IgnoreHit or AcceptHitAndEndSearch
					return
				}
			case intersectionAbort:
				if c.stage == KindIntersection {
					return // its ReportHit ended the search
				}
			}
			switch r.(type) {
			case *DispatchError, anyHitSignal, intersectionAbort, errReorderAborted:
				panic(r)
			}
			panic(w.toError(c, r))
		}
	}()
	s.Entry(c, payload, attr)
}
