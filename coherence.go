package raypipe

import "github.com/raypipe/raypipe/internal/reorder"

// Coherence is the simulated SIMT coherence of HitObject.Invoke calls made
// from ray generation shaders (TraceRay's implicit Invoke included): 32
// lanes per wave, counted in launch order (what a GPU without reordering
// would run together: 32 consecutive invocations, their n-th Invoke) and
// in execution order (after reordering: 32 consecutive Invokes as the
// scheduler resumed them). Fewer distinct records per wave is more
// coherent.
type Coherence struct {
	Invokes     uint64
	LaunchOrder reorder.Waves
	Executed    reorder.Waves
}

func (c *Coherence) add(o *Coherence) {
	c.Invokes += o.Invokes
	c.LaunchOrder.Add(o.LaunchOrder)
	c.Executed.Add(o.Executed)
}

// coherenceRecorder collects a worker's Invoke events.
type coherenceRecorder struct {
	events []reorder.Event
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
	r.events = append(r.events, reorder.Event{Seq: c.seq, Ordinal: c.invokes, Record: rec})
	c.invokes++
}

// finish computes the worker's statistics.
func (r *coherenceRecorder) finish(reordered bool) Coherence {
	c := Coherence{Invokes: uint64(len(r.events))}
	if reordered {
		c.Executed = reorder.ExecutedWaves(r.events)
	}
	c.LaunchOrder = reorder.LaunchOrderWaves(r.events)
	if !reordered {
		c.Executed = c.LaunchOrder
	}
	return c
}
