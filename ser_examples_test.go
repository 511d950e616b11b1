package raypipe

import (
	"math"
	"sync"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// The three examples of hlsl-0027, as ray generation loops over serScene.
// Each is checked against the same loop written with TraceRay only, with
// reordering on (several windows, 1 and 2 workers) and off: reordering
// never changes results.

// bounceRay derives the next ray of a path deterministically from the
// previous hit.
func bounceRay(x, y uint32, bounce int, s *shade) accel.Ray {
	ox := float32(int(x*7+y*3+uint32(bounce)*5)%10) * 2
	if s.Record == 1000 {
		ox += 0.37
	}
	j := float32((x*13+y*5+uint32(bounce)*11)%17)/17*1.6 - 0.8
	oy := float32(0)
	if int(ox)%18 == 16 {
		oy = 10
	}
	return accel.Ray{Origin: vec.V3(ox+j+s.Color[0]*1e-3, oy+j*0.7, 0), Direction: down, TMax: 100}
}

type pathResult struct {
	sum     [3]float32
	bounces int
	after   uint32 // work "after the loop" (Example 3)
}

var paths struct {
	mu sync.Mutex
	m  map[[3]uint32]pathResult
}

func storePath(l [3]uint32, r pathResult) {
	paths.mu.Lock()
	paths.m[l] = r
	paths.mu.Unlock()
}

func runPaths(t *testing.T, r *rig, opt DispatchOptions) map[[3]uint32]pathResult {
	t.Helper()
	paths.m = map[[3]uint32]pathResult{}
	results.reset()
	r.mustDispatch("rg", 24, 20, &opt)
	return paths.m
}

func samePaths(t *testing.T, name string, got, want map[[3]uint32]pathResult) {
	t.Helper()
	lengths := map[int]bool{}
	for _, w := range want {
		lengths[w.bounces] = true
	}
	if len(lengths) < 3 {
		t.Fatalf("%s: path lengths %v: the scene does not exercise the loop", name, lengths)
	}
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%s: %d results, want %d", name, len(got), len(want))
	}
	for l, w := range want {
		g := got[l]
		for i := range w.sum {
			if math.Float32bits(g.sum[i]) != math.Float32bits(w.sum[i]) {
				t.Fatalf("%s: launch %v: %+v, want %+v", name, l, g, w)
			}
		}
		if g.bounces != w.bounces || g.after != w.after {
			t.Fatalf("%s: launch %v: %+v, want %+v", name, l, g, w)
		}
	}
}

var reorderOptions = []DispatchOptions{
	{Workers: 1}, {Workers: 2, Reorder: ReorderOn}, {Workers: 1, Reorder: ReorderOn, Window: 5}, {Workers: 2, Reorder: ReorderOn, Window: 1 << 16},
}

// Example 1: HitObject::TraceRay, ReorderThread(hit), HitObject::Invoke.
// Example 2: a path tracer loop that peeks at the shader table
// (LoadLocalRootTableConstant) to form a one-bit "probably finished" hint.
func TestSpecExamples1And2PathLoop(t *testing.T) {
	tlas := serScene(t)
	const maxBounces = 4
	loop := func(ser bool) func(c *Context, x, y uint32, out *shade) {
		return func(c *Context, x, y uint32, out *shade) {
			var res pathResult
			ray := bounceRay(x, y, 0, out)
			for bounce := 0; ; bounce++ {
				if ser {
					hit := HitObjectTraceRay(c, tlas, 0, 0xff, 0, 1, 0, ray, out)
					var albedo uint32
					if !hit.IsNop() {
						albedo = hit.LoadLocalRootTableConstant(c, 0)
					}
					probablyFinished := albedo%3 == 0 || bounce >= maxBounces
					hint := uint32(0)
					if probablyFinished {
						hint = 1
					}
					ReorderThreadHitHint(c, hit, hint, 1)
					Invoke(c, hit, out)
				} else {
					TraceRay(c, tlas, 0, 0xff, 0, 1, 0, ray, out)
				}
				for i := range res.sum {
					res.sum[i] += out.Color[i]
				}
				res.bounces++
				if out.Record != 1000 && bounce < maxBounces {
					ray = bounceRay(x, y, bounce+1, out)
				} else {
					break
				}
			}
			storePath(c.DispatchRaysIndex(), res)
		}
	}
	want := runPaths(t, serRig(t, tlas, loop(false)), DispatchOptions{Workers: 1})
	for _, opt := range reorderOptions {
		samePaths(t, "example 2", runPaths(t, serRig(t, tlas, loop(true)), opt), want)
	}
}

// Example 3: threads that stop tracing take part in reordering with a NOP
// HitObject and break out of the loop after it, so the work after the
// loop runs grouped.
func TestSpecExample3NopObjectsLeaveTheLoopTogether(t *testing.T) {
	tlas := serScene(t)
	const maxBounces = 5
	loop := func(ser bool) func(c *Context, x, y uint32, out *shade) {
		return func(c *Context, x, y uint32, out *shade) {
			var res pathResult
			throughput := float32(1)
			ray := bounceRay(x, y, 0, out)
			for bounce := 0; ; bounce++ {
				var hit HitObject // NOP
				participate := bounce < maxBounces && throughput > 0.2
				if ser {
					if participate {
						hit = HitObjectTraceRay(c, tlas, 0, 0xff, 0, 1, 0, ray, out)
					}
					ReorderThread(c, hit)
					if hit.IsNop() {
						break
					}
					Invoke(c, hit, out)
				} else {
					if !participate {
						break
					}
					TraceRay(c, tlas, 0, 0xff, 0, 1, 0, ray, out)
				}
				throughput *= 0.5 + float32(out.Record%3)*0.25
				for i := range res.sum {
					res.sum[i] += out.Color[i]
				}
				res.bounces++
				ray = bounceRay(x, y, bounce+1, out)
			}
			res.after = uint32(res.bounces)*7 + uint32(throughput*1000)
			storePath(c.DispatchRaysIndex(), res)
		}
	}
	want := runPaths(t, serRig(t, tlas, loop(false)), DispatchOptions{Workers: 1})
	for _, opt := range reorderOptions {
		samePaths(t, "example 3", runPaths(t, serRig(t, tlas, loop(true)), opt), want)
	}
}
