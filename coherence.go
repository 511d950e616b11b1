package raypipe

import (
	"fmt"
	"strings"
	"time"

	"github.com/raypipe/raypipe/internal/reorder"
)

// Coherence is the simulated SIMT coherence of HitObject.Invoke calls made
// from ray generation shaders (TraceRay's implicit Invoke included): 32
// lanes per wave, counted in launch order (what a GPU without reordering
// would run together: 32 consecutive invocations, their n-th Invoke) and
// in execution order (after reordering: 32 consecutive Invokes as the
// scheduler resumed them). Fewer distinct records per wave is more
// coherent.
type Coherence struct {
	Invokes     uint64
	LaunchOrder Waves
	Executed    Waves
}

func (c *Coherence) add(o *Coherence) {
	c.Invokes += o.Invokes
	c.LaunchOrder.Add(o.LaunchOrder)
	c.Executed.Add(o.Executed)
}

// Waves are simulated SIMT waves: how many, their active lanes and the
// distinct shader records they invoked (see RecordsPerWave and
// ActiveFraction).
type Waves = reorder.Waves

// coherenceRecorder counts a worker's Invokes as waves, in constant memory
// per invocation in flight.
type coherenceRecorder struct {
	invokes  uint64
	launch   reorder.LaunchOrderCounter
	executed reorder.ExecutedCounter
}

// observe records an Invoke of h by the ray generation invocation c.
func (r *coherenceRecorder) observe(c *Context, h *HitObject) {
	rec := uint32(classNop) << 28
	if h.hasRecord && h.kind != hitObjectNop {
		class := uint32(classHit)
		if h.kind == hitObjectMiss {
			class = classMiss
		}
		rec = class<<28 | h.record&hitRecordMask
	}
	r.invokes++
	r.launch.Observe(c.seq, c.invokes, rec)
	r.executed.Observe(rec)
	c.invokes++
}

// finish computes the worker's statistics. Without reordering, execution
// order is launch order.
func (r *coherenceRecorder) finish(reordered bool) Coherence {
	c := Coherence{Invokes: r.invokes, LaunchOrder: r.launch.Result()}
	c.Executed = c.LaunchOrder
	if reordered {
		c.Executed = r.executed.Result()
	}
	return c
}

// String summarises the statistics in a few readable lines.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d rays in %v (%.2f Mrays/s)\n", s.Rays, s.Elapsed.Round(time.Millisecond), float64(s.Rays)/s.Elapsed.Seconds()/1e6)
	fmt.Fprintf(&b, "invocations: raygen %d, intersection %d, any hit %d, closest hit %d, miss %d, callable %d\n",
		s.Invocations[KindRayGeneration], s.Invocations[KindIntersection], s.Invocations[KindAnyHit],
		s.Invocations[KindClosestHit], s.Invocations[KindMiss], s.Invocations[KindCallable])
	fmt.Fprintf(&b, "reorder points %d, sorting %v", s.ReorderPoints, s.ReorderTime.Round(time.Microsecond))
	if c := s.Coherence; c.Invokes > 0 {
		fmt.Fprintf(&b, "\nSIMT-32 coherence at Invoke (%d invokes): %.2f records/wave, %.0f%% lanes active in launch order; %.2f records/wave, %.0f%% active after reordering",
			c.Invokes, c.LaunchOrder.RecordsPerWave(), 100*c.LaunchOrder.ActiveFraction(), c.Executed.RecordsPerWave(), 100*c.Executed.ActiveFraction())
	}
	return b.String()
}
