package raypipe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// The payload is "an inout argument in the TraceRay() call, and an inout
// parameter in the shader types that may access the ray payload" ("Ray
// payload structure"): what the caller put in reaches every shader of
// the trace, what they leave comes back, through recursion (a closest hit
// and a miss shader tracing with their own payload, of the same type), any
// hit shaders and the occlusion form (RAY_FLAG_SKIP_CLOSEST_HIT_SHADER on
// opaque triangles, where only a miss shader can run).
func TestTraceRayPayloadIsInOut(t *testing.T) {
	type pl struct {
		In, Out, AnyHits uint32
		Path             string // the shaders run, in order, with their depth
	}
	tl := mustTLAS(t, place(mustBLAS(t, 0, accel.TriangleGeometry(quad(1, 0), nil)), vec.Identity3x4, 0))
	nonOpaque := mustTLAS(t, place(mustBLAS(t, 0, accel.Geometry{Type: accel.GeometryTriangles, Triangles: accel.TriangleGeometry(quad(1, 0), nil).Triangles}), vec.Identity3x4, 0))
	const w = 8
	got := make([]pl, w)
	trace := func(c *Context, tl *accel.TLAS, flags accel.RayFlags, x float32, p *pl) {
		TraceRay(c, tl, flags, 0xff, 0, 0, 0, rayAt(x, 0), p)
	}
	r := newRig(t, 3, []Shader{
		RayGeneration("rg", func(c *Context) {
			i := c.DispatchRaysIndex()[0]
			p := pl{In: 100 + i}
			switch i % 4 {
			case 0: // hits: closest hit at depth 1, which traces again
				trace(c, tl, 0, 0, &p)
			case 1: // misses: the miss shader at depth 1, which traces again
				trace(c, tl, 0, 5, &p)
			case 2: // any hit shaders, then the closest hit
				trace(c, nonOpaque, 0, 0, &p)
			case 3: // the occlusion form: a miss only
				trace(c, tl, accel.RayFlagSkipClosestHitShader, 5, &p)
			}
			got[i] = p
		}),
		ClosestHit("chs", func(c *Context, p *pl, _ *attrs) {
			p.Path += fmt.Sprintf("chs%d(%d) ", c.depth, p.In)
			if c.depth < 2 {
				q := pl{In: p.In + 1000}
				trace(c, tl, 0, 0, &q) // a payload of the same type, a depth further
				p.Out += q.Out
				p.Path += "[" + q.Path + "] "
			}
			p.Out += 2 * p.In
		}),
		Miss("ms", func(c *Context, p *pl) {
			p.Path += fmt.Sprintf("ms%d(%d) ", c.depth, p.In)
			if c.depth < 2 {
				q := pl{In: p.In + 1000}
				trace(c, tl, 0, 5, &q)
				p.Out += q.Out
			}
			p.Out += 3 * p.In
		}),
		AnyHit("ahs", func(c *Context, p *pl, _ *attrs) { p.AnyHits++ }),
	}, []HitGroup{{Name: "hg", ClosestHit: "chs", AnyHit: "ahs"}})
	r.hit, r.miss = r.table("hg"), r.table("ms")
	r.mustDispatch("rg", w, 1, &DispatchOptions{Workers: 1})
	for i, p := range got {
		in := uint32(100 + i)
		var want pl
		switch i % 4 {
		case 0:
			want = pl{In: in, Out: 2*(in+1000) + 2*in, Path: fmt.Sprintf("chs1(%d) [chs2(%d) ] ", in, in+1000)}
		case 1:
			want = pl{In: in, Out: 3*(in+1000) + 3*in, Path: fmt.Sprintf("ms1(%d) ", in)}
		case 2:
			want = pl{In: in, Out: 2*(in+1000) + 2*in, AnyHits: 1, Path: fmt.Sprintf("chs1(%d) [chs2(%d) ] ", in, in+1000)}
		case 3:
			want = pl{In: in, Out: 3*(in+1000) + 3*in, Path: fmt.Sprintf("ms1(%d) ", in)}
		}
		if p != want {
			t.Errorf("launch %d: payload %+v, want %+v", i, p, want)
		}
	}
}

// TraceRay's payload stays on its caller's stack, and so do the ones
// HitObjectTraceRay and Invoke take and CallShader's parameter: a dispatch
// allocates no more for 4096 rays (or calls) than for 64 (each had
// allocated once a call, the payload escaping through the shaders' calls).
func TestTraceRayAllocatesNothingPerRay(t *testing.T) {
	type pl struct{ T float32 }
	tl := mustTLAS(t, place(mustBLAS(t, 0, accel.TriangleGeometry(quad(1, 0), nil)), vec.Identity3x4, 0))
	check := func(c *Context, p pl) {
		if p.T != 10 {
			c.fail(fmt.Errorf("payload T %g, want 10", p.T))
		}
	}
	r := newRig(t, 1, []Shader{
		RayGeneration("trace", func(c *Context) {
			var p pl
			TraceRay(c, tl, 0, 0xff, 0, 0, 0, rayAt(0, 0), &p)
			check(c, p)
		}),
		RayGeneration("hitobject", func(c *Context) {
			var p pl
			h := HitObjectTraceRay(c, tl, 0, 0xff, 0, 0, 0, rayAt(0, 0), &p)
			Invoke(c, h, &p)
			check(c, p)
		}),
		RayGeneration("call", func(c *Context) {
			p := pl{T: 5}
			CallShader(c, 0, &p)
			check(c, p)
		}),
		ClosestHit("chs", func(c *Context, p *pl, _ *attrs) { p.T = c.RayTCurrent() }),
		Callable("double", func(c *Context, p *pl) { p.T *= 2 }),
	}, []HitGroup{{Name: "hg", ClosestHit: "chs"}})
	r.hit, r.miss, r.callable = r.table("hg"), r.table(""), r.table("double")
	for _, rg := range []string{"trace", "hitobject", "call"} {
		allocs := func(n uint32) float64 {
			desc := DispatchRaysDesc{RayGeneration: r.table(rg), HitGroup: r.hit, Miss: r.miss, Callable: r.callable, Width: n, Height: 1}
			opt := &DispatchOptions{Workers: 1}
			return testing.AllocsPerRun(5, func() {
				if _, err := r.p.DispatchRays(context.Background(), desc, opt); err != nil {
					t.Fatal(err)
				}
			})
		}
		if few, many := allocs(64), allocs(4096); many > few+4 {
			t.Errorf("%s: a dispatch of 64 rays allocates %v times, of 4096 rays %v", rg, few, many)
		}
	}
}

// HitObjectTraceRay and Invoke take the payload as TraceRay does (in and
// out), also when reordering suspends each ray generation shader between
// them and runs the others meanwhile (ReorderOn, a window holding every
// launch): each launch's any hit shaders see its own payload, the closest
// hit shader sees what the any hit shaders and the ray generation shader
// left in it after the reorder point, and the fused TraceReorderExecute
// gives the same.
func TestHitObjectPayloadsStayTheirOwnAcrossReorderPoints(t *testing.T) {
	type pl struct{ In, AnyHits, Seen, AfterReorder, Out uint32 }
	nonOpaque := mustTLAS(t, place(mustBLAS(t, 0, accel.Geometry{Type: accel.GeometryTriangles, Triangles: accel.TriangleGeometry(quad(1, 0), nil).Triangles}), vec.Identity3x4, 0))
	const w = 64
	for _, reorder := range []ReorderMode{ReorderOff, ReorderOn} {
		for _, fused := range []bool{false, true} {
			got := make([]pl, w)
			var events []uint32 // launch indices: any hit shaders' as i, closest hits' as w+i
			r := newRig(t, 2, []Shader{
				RayGeneration("rg", func(c *Context) {
					i := c.DispatchRaysIndex()[0]
					p := pl{In: 100 + i}
					ray := rayAt(float32(i%8)/8-0.5, 0) // hits, in a different order than launches
					if fused {
						TraceReorderExecute(c, nonOpaque, 0, 0xff, 0, 0, 0, ray, &p)
					} else {
						h := HitObjectTraceRay(c, nonOpaque, 0, 0xff, 0, 0, 0, ray, &p)
						ReorderThreadHitHint(c, h, (w-i)%16, 4)
						p.AfterReorder = p.In + 7
						Invoke(c, h, &p)
					}
					got[i] = p
				}),
				AnyHit("ahs", func(c *Context, p *pl, _ *attrs) {
					p.AnyHits++
					p.Seen = p.In
					events = append(events, c.DispatchRaysIndex()[0])
				}),
				ClosestHit("chs", func(c *Context, p *pl, _ *attrs) {
					p.Out = 2*p.In + p.AnyHits + p.AfterReorder
					events = append(events, w+c.DispatchRaysIndex()[0])
				}),
			}, []HitGroup{{Name: "hg", ClosestHit: "chs", AnyHit: "ahs"}})
			r.hit, r.miss = r.table("hg"), r.table("")
			r.mustDispatch("rg", w, 1, &DispatchOptions{Workers: 1, Reorder: reorder, Window: w})
			for i, p := range got {
				in := uint32(100 + i)
				want := pl{In: in, AnyHits: 1, Seen: in}
				if !fused {
					want.AfterReorder = in + 7
				}
				want.Out = 2*in + 1 + want.AfterReorder
				if p != want {
					t.Fatalf("reorder %v fused %v launch %d: payload %+v, want %+v", reorder, fused, i, p, want)
				}
			}
			// Under reordering other launches trace between a launch's
			// trace and its invocation (else this test would not test it).
			if between := slices.Index(events, w) - slices.Index(events, 0) - 1; reorder == ReorderOn && between < w/2 {
				t.Fatalf("fused %v: %d shaders ran between launch 0's any hit and closest hit shaders", fused, between)
			}
		}
	}
}

// The callable parameter is "an inout argument in the CallShader() call,
// and an inout parameter for the callable shader" ("Call parameter
// structure"): what the caller put in reaches the callable shader and what
// it leaves comes back, through callables calling callables with their own
// parameter of the same type, from ray generation and closest hit shaders.
func TestCallShaderParameterIsInOut(t *testing.T) {
	type param struct{ In, Out, Depth uint32 }
	tl := mustTLAS(t, place(mustBLAS(t, 0, accel.TriangleGeometry(quad(1, 0), nil)), vec.Identity3x4, 0))
	const w = 6
	got := make([]param, w)
	r := newRig(t, 2, []Shader{
		RayGeneration("rg", func(c *Context) {
			i := c.DispatchRaysIndex()[0]
			if i%2 == 0 {
				p := param{In: 10 + i}
				CallShader(c, 0, &p)
				got[i] = p
				return
			}
			var p param
			TraceRay(c, tl, 0, 0xff, 0, 0, 0, rayAt(0, 0), &p) // the closest hit calls
			got[i] = p
		}),
		ClosestHit("chs", func(c *Context, p *param, _ *attrs) {
			q := param{In: 10 + c.DispatchRaysIndex()[0]}
			CallShader(c, 0, &q)
			*p = q
		}),
		Callable("nest", func(c *Context, p *param) {
			p.Depth = uint32(c.calls)
			if c.calls < 3 {
				q := param{In: p.In * 10}
				CallShader(c, 0, &q) // a parameter of the same type, a nesting further
				p.Out = q.Out + 1
				return
			}
			p.Out = p.In
		}),
	}, []HitGroup{{Name: "hg", ClosestHit: "chs"}})
	r.hit, r.miss, r.callable = r.table("hg"), r.table(""), r.table("nest")
	r.mustDispatch("rg", w, 1, &DispatchOptions{Workers: 1})
	for i, p := range got {
		in := uint32(10 + i)
		// Three nestings: In, 10*In, 100*In; the innermost returns its In,
		// each one out adds 1.
		if want := (param{In: in, Out: 100*in + 2, Depth: 1}); p != want {
			t.Errorf("launch %d: parameter %+v, want %+v", i, p, want)
		}
	}
}

// Bad input: a nil payload or parameter (the spec's is a structure, never
// absent) stops the dispatch with ErrInvalidArgument naming the intrinsic
// and the launch, for each of the four calls that take one, before any
// shader runs on it.
func TestNilPayloadIsAnError(t *testing.T) {
	type pl struct{ T float32 }
	tl := mustTLAS(t, place(mustBLAS(t, 0, accel.TriangleGeometry(quad(1, 0), nil)), vec.Identity3x4, 0))
	ran := false
	r := newRig(t, 1, []Shader{
		RayGeneration("trace", func(c *Context) { TraceRay[pl](c, tl, 0, 0xff, 0, 0, 0, rayAt(0, 0), nil) }),
		RayGeneration("hitobject", func(c *Context) { HitObjectTraceRay[pl](c, tl, 0, 0xff, 0, 0, 0, rayAt(0, 0), nil) }),
		RayGeneration("invoke", func(c *Context) {
			var p pl
			Invoke[pl](c, HitObjectTraceRay(c, tl, 0, 0xff, 0, 0, 0, rayAt(0, 0), &p), nil)
		}),
		RayGeneration("call", func(c *Context) { CallShader[pl](c, 0, nil) }),
		ClosestHit("chs", func(c *Context, p *pl, _ *attrs) { ran = true }),
		Callable("callee", func(c *Context, p *pl) { ran = true }),
	}, []HitGroup{{Name: "hg", ClosestHit: "chs"}})
	r.hit, r.miss, r.callable = r.table("hg"), r.table(""), r.table("callee")
	for rg, want := range map[string]string{
		"trace": "TraceRay with a nil payload", "hitobject": "HitObject::TraceRay with a nil payload",
		"invoke": "HitObject::Invoke with a nil payload", "call": "CallShader with a nil parameter",
	} {
		_, err := r.dispatch(rg, 1, 1, nil)
		if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "launch (0,0,0)") {
			t.Errorf("%s: error %v, want ErrInvalidArgument %q at launch (0,0,0)", rg, err, want)
		}
	}
	if ran {
		t.Error("a shader ran on a nil payload")
	}
}
