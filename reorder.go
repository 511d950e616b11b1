package raypipe

import (
	"fmt"
	"iter"
	"math"
	"time"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/internal/reorder"
)

// ReorderThread reorders the calling ray generation invocation by the hit
// or miss in h (hlsl-0027 "ReorderThread with HitObject"). With
// ReorderOff it is a legal no-op. It is available only in ray generation
// shaders.
func ReorderThread(c *Context, h HitObject) { c.reorder(&h, 0, 0, true) }

// ReorderThreadHint reorders by a coherence hint, of which the low bits
// (at most 32) count, most significant first ("ReorderThread with
// coherence hint").
func ReorderThreadHint(c *Context, hint, bits uint32) { c.reorder(nil, hint, bits, false) }

// ReorderThreadHitHint reorders by h, then by the hint ("ReorderThread
// with HitObject and coherence hint").
func ReorderThreadHitHint(c *Context, h HitObject, hint, bits uint32) {
	c.reorder(&h, hint, bits, true)
}

// MaybeReorderThread is ReorderThread under its final Shader Model 6.9
// name; likewise MaybeReorderThreadHint and MaybeReorderThreadHitHint.
func MaybeReorderThread(c *Context, h HitObject) { ReorderThread(c, h) }

// MaybeReorderThreadHint is ReorderThreadHint under its SM 6.9 name.
func MaybeReorderThreadHint(c *Context, hint, bits uint32) { ReorderThreadHint(c, hint, bits) }

// MaybeReorderThreadHitHint is ReorderThreadHitHint under its SM 6.9 name.
func MaybeReorderThreadHitHint(c *Context, h HitObject, hint, bits uint32) {
	ReorderThreadHitHint(c, h, hint, bits)
}

// ReorderExecute reorders by h and invokes it (reorderExecuteEXT, the
// fused reorder + invoke form of SPV_EXT_shader_invocation_reorder).
func ReorderExecute[P any](c *Context, h HitObject, payload *P) {
	ReorderThread(c, h)
	Invoke(c, h, payload)
}

// ReorderExecuteHint reorders by h and a hint, then invokes h.
func ReorderExecuteHint[P any](c *Context, h HitObject, hint, bits uint32, payload *P) {
	ReorderThreadHitHint(c, h, hint, bits)
	Invoke(c, h, payload)
}

// TraceReorderExecute traces, reorders by the result and invokes it
// (traceReorderExecuteEXT): with reordering off it equals TraceRay.
func TraceReorderExecute[P any](c *Context, tlas *accel.TLAS, flags accel.RayFlags, instanceInclusionMask, rayContribution, multiplier, missIndex uint32, ray accel.Ray, payload *P) {
	h := HitObjectTraceRay(c, tlas, flags, instanceInclusionMask, rayContribution, multiplier, missIndex, ray, payload)
	ReorderExecute(c, h, payload)
}

// TraceReorderExecuteHint is TraceReorderExecute with a coherence hint.
func TraceReorderExecuteHint[P any](c *Context, tlas *accel.TLAS, flags accel.RayFlags, instanceInclusionMask, rayContribution, multiplier, missIndex uint32, ray accel.Ray, hint, bits uint32, payload *P) {
	h := HitObjectTraceRay(c, tlas, flags, instanceInclusionMask, rayContribution, multiplier, missIndex, ray, payload)
	ReorderExecuteHint(c, h, hint, bits, payload)
}

// errReorderAborted unwinds a suspended invocation when the dispatch stops.
type errReorderAborted struct{}

func (c *Context) reorder(h *HitObject, hint, bits uint32, withHit bool) {
	c.needIntrinsic(1<<KindRayGeneration, "ReorderThread")
	if bits > 32 {
		c.fail(fmt.Errorf("%w: ReorderThread with %d coherence hint bits (at most 32)", ErrInvalidArgument, bits))
	}
	c.w.stats.ReorderPoints++
	if c.rg == nil {
		return
	}
	key := reorderKey(h, hint, bits, withHit)
	if !c.rg.yield(key) {
		panic(errReorderAborted{})
	}
}

// Sort key layout, most significant first, following the spec's priority:
// the hit object's class (hit, miss, NOP), its shader record, the hint's
// bits (most significant first; the implementation may drop low bits), and
// the spatial locality of the hit point.
const (
	keyClassShift    = 62
	keyRecordBits    = 20
	keyRecordShift   = keyClassShift - keyRecordBits // 42
	keyHintBits      = 24
	keyHintShift     = keyRecordShift - keyHintBits // 18
	keyLocalityBits  = keyHintShift                 // 18: 6 bits per axis
	classHit         = 0
	classMiss        = 1
	classNop         = 2
	maxRecordInKey   = 1<<keyRecordBits - 1
	localityPerAxis  = keyLocalityBits / 3
	localityAxisMask = 1<<localityPerAxis - 1
)

func reorderKey(h *HitObject, hint, bits uint32, withHit bool) uint64 {
	var key uint64
	if withHit {
		class, record := uint64(classNop), uint64(0)
		switch {
		case h.kind == hitObjectHit:
			class = classHit
			if h.hasRecord {
				record = uint64(h.record) + 1
			}
		case h.kind == hitObjectMiss:
			class, record = classMiss, uint64(h.record)+1
		}
		key = class<<keyClassShift | min(record, maxRecordInKey)<<keyRecordShift
		if h.kind == hitObjectHit {
			key |= locality(h)
		}
	}
	if bits > 0 {
		hv := uint64(hint) & (1<<bits - 1)
		// Align the hint's most significant requested bit with the top of
		// the hint field, dropping low bits that do not fit.
		if bits > keyHintBits {
			hv >>= bits - keyHintBits
		} else {
			hv <<= keyHintBits - bits
		}
		key |= hv << keyHintShift
	}
	return key
}

// locality is a Morton code of the object-space hit point quantized in its
// BLAS's bounds, so that hits close together on one object sort together.
func locality(h *HitObject) uint64 {
	b := h.hit.BLAS()
	if b == nil {
		return 0
	}
	bb := b.Bounds()
	p := h.hit.ObjectRayOrigin.Add(h.hit.ObjectRayDirection.Scale(h.tCur))
	q := func(v, lo, hi float32) uint64 {
		if !(hi > lo) {
			return 0
		}
		f := (v - lo) / (hi - lo) * (localityAxisMask + 1)
		if !(f > 0) {
			return 0
		}
		return uint64(math.Min(float64(f), localityAxisMask))
	}
	return reorder.Morton3(q(p.X, bb.Min.X, bb.Max.X), q(p.Y, bb.Min.Y, bb.Max.Y), q(p.Z, bb.Min.Z, bb.Max.Z), localityPerAxis)
}

// rayGen is a coroutine that runs ray generation invocations under
// ReorderOn, one after another, suspending at each ReorderThread. A
// coroutine outlives its invocations: starting a goroutine per invocation
// would regrow its stack from scratch every time, which costs more than
// the reordering gains.
type rayGen struct {
	ctx    Context
	launch [3]uint32
	yield  func(uint64) bool
	next   func() (uint64, bool)
	stop   func()
	key    uint64
	err    error
	// done is set when the current invocation has returned; the coroutine
	// then waits for the next one.
	done bool
}

// scheduler is a worker's window of suspended invocations.
type scheduler struct {
	idle    []*rayGen // coroutines between invocations
	all     []*rayGen // every coroutine, to stop them at the end
	active  []*rayGen
	resumed []*rayGen
	sorter  reorder.Sorter
}

// start runs a new invocation for launch on an idle coroutine (or a new
// one) until its first ReorderThread; it reports whether it is suspended
// there (false: it already finished).
func (w *worker) start(launch [3]uint32) (*rayGen, bool) {
	s := w.sched
	var rg *rayGen
	if n := len(s.idle); n > 0 {
		rg, s.idle = s.idle[n-1], s.idle[:n-1]
	} else {
		rg = new(rayGen)
		body := func(yield func(uint64) bool) {
			rg.yield = yield
			for {
				rg.err = w.runRayGen(&rg.ctx, rg.launch, rg)
				rg.done = true
				if !yield(0) {
					return
				}
			}
		}
		rg.next, rg.stop = iter.Pull(iter.Seq[uint64](body))
		s.all = append(s.all, rg)
	}
	rg.launch, rg.err, rg.done = launch, nil, false
	return rg, w.step(rg)
}

// step resumes rg until its next ReorderThread (true) or the end of its
// invocation (false).
func (w *worker) step(rg *rayGen) bool {
	key, ok := rg.next()
	if ok && !rg.done {
		rg.key = key
		return true
	}
	if rg.err != nil {
		w.d.fail(rg.err)
	}
	if ok {
		w.sched.idle = append(w.sched.idle, rg)
	}
	return false
}

// runReordered runs the worker's share of the grid with a window of
// suspended invocations: start invocations in launch order until the
// window is full, sort the suspended ones by key, resume them in that
// order, and repeat.
func (w *worker) runReordered() {
	w.sched = &scheduler{}
	s := w.sched
	window := w.d.opt.Window
	buf := make([][3]uint32, 0, tileSize*tileSize)
	var tile [][3]uint32
	more := true
	defer func() {
		for _, rg := range s.all {
			rg.stop()
		}
	}()
	for {
		for len(s.active) < window && more {
			if len(tile) == 0 {
				tile, more = w.d.takeTile(buf)
				if !more {
					break
				}
			}
			rg, suspended := w.start(tile[0])
			tile = tile[1:]
			if suspended {
				s.active = append(s.active, rg)
			}
		}
		if w.d.ctx.Err() != nil {
			w.d.stop.Store(true) // every ReorderThread comes back here: cancel promptly
		}
		if len(s.active) == 0 || w.d.stop.Load() {
			return
		}
		t0 := time.Now()
		w.sortActive()
		w.stats.ReorderTime += time.Since(t0)
		s.resumed = s.resumed[:0]
		for _, rg := range s.active {
			if w.d.stop.Load() {
				s.resumed = append(s.resumed, rg)
				continue
			}
			if w.step(rg) {
				s.resumed = append(s.resumed, rg)
			}
		}
		s.active, s.resumed = s.resumed, s.active
	}
}

// sortActive orders the suspended invocations by key; the sort is stable,
// so the order is deterministic.
func (w *worker) sortActive() {
	s := w.sched
	keys := s.sorter.Keys(len(s.active))
	for i, rg := range s.active {
		keys[i] = rg.key
	}
	perm := s.sorter.Sort()
	s.resumed = s.resumed[:0]
	for _, i := range perm {
		s.resumed = append(s.resumed, s.active[i])
	}
	s.active, s.resumed = s.resumed, s.active
}
