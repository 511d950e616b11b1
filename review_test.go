package raypipe

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/rayquery"
	"github.com/raypipe/raypipe/vec"
)

type bigAttr struct{ A [8]float32 }

// "Default pipeline stack size" counts ISMax+AHSMax together: an any hit
// shader run from ReportHit sits on the intersection shader's stack.
func TestStackOfAnyHitRunFromReportHitIncludesTheIntersectionShader(t *testing.T) {
	type p4 struct{ X uint32 }
	box := accel.AABBGeometry([]accel.AABB{{Min: vec.V3(-1, -1, 4), Max: vec.V3(1, 1, 6)}})
	box.Flags = 0 // non-opaque: any hit runs
	tlas := mustTLAS(t, place(mustBLAS(t, 0, box), vec.Identity3x4, 0))
	is := Intersection[bigAttr]("is", func(c *Context) { ReportHit(c, 5, 0, &bigAttr{}) })
	is.LocalStackBytes = 1000
	ahs := AnyHit("ahs", func(c *Context, p *p4, a *bigAttr) { p.X++ })
	ahs.LocalStackBytes = 1000
	r := newRig(t, 1, []Shader{
		RayGeneration("rg", func(c *Context) {
			var pl p4
			TraceRay(c, tlas, 0, 0xff, 0, 1, 0, rayAt(0, 0), &pl)
		}), is, ahs,
		Miss("miss", func(c *Context, p *p4) {}),
	}, []HitGroup{{Name: "hg", Type: HitGroupProceduralPrimitive, Intersection: "is", AnyHit: "ahs"}})
	r.hit, r.miss = r.table("hg"), r.table("miss")
	r.mustDispatch("rg", 1, 1, nil) // the default size fits IS+AHS
	r.p.SetStackSize(1100)          // IS alone fits, IS+AHS does not
	if _, err := r.dispatch("rg", 1, 1, nil); !errors.Is(err, ErrStackOverflow) {
		t.Fatalf("IS+AHS exceed the stack size but err = %v", err)
	}
}

// Cancellation is prompt with reordering on too, even for invocations that
// never finish on their own (they come back to the scheduler at every
// ReorderThread), and no coroutine outlives the dispatch.
func TestReorderOnCancellationIsPromptAndLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	var quit atomic.Bool
	defer quit.Store(true)
	r := newRig(t, 1, []Shader{RayGeneration("rg", func(c *Context) {
		for !quit.Load() {
			ReorderThreadHint(c, 0, 0)
		}
	})}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := r.p.DispatchRays(ctx, DispatchRaysDesc{RayGeneration: r.table("rg"), Width: 8, Height: 8}, &DispatchOptions{Workers: 1, Reorder: ReorderOn})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want DeadlineExceeded", err)
		}
	case <-time.After(5 * time.Second):
		quit.Store(true)
		t.Fatalf("ReorderOn dispatch ignored cancellation (returned %v after quit)", <-done)
	}
	waitGoroutines(t, before)
}

// A shader panicking between two reorder points stops the dispatch with an
// error naming it, and every suspended coroutine is released.
func TestReorderOnPanicStopsAndReleasesCoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	r := newRig(t, 1, []Shader{RayGeneration("rg", func(c *Context) {
		ReorderThreadHint(c, 0, 0)
		if c.DispatchRaysIndex() == [3]uint32{3, 5, 0} {
			panic("boom")
		}
		ReorderThreadHint(c, 0, 0)
	})}, nil)
	_, err := r.p.DispatchRays(context.Background(), DispatchRaysDesc{RayGeneration: r.table("rg"), Width: 64, Height: 64}, &DispatchOptions{Workers: 2, Reorder: ReorderOn})
	var de *DispatchError
	if !errors.As(err, &de) || de.LaunchIndex != [3]uint32{3, 5, 0} || !errors.Is(err, ErrShaderPanic) {
		t.Fatalf("err = %v", err)
	}
	waitGoroutines(t, before)
}

func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before+1 {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines %d -> %d: coroutines leaked", before, runtime.NumGoroutine())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The ray generation record is an address range (D3D12_GPU_VIRTUAL_ADDRESS_RANGE):
// its Stride is ignored; a nil context is taken as context.Background().
func TestRayGenerationStrideIgnoredAndNilContext(t *testing.T) {
	ran := 0
	r := newRig(t, 1, []Shader{RayGeneration("rg", func(c *Context) { ran++ })}, nil)
	rg := r.table("rg")
	rg.Stride = 40
	//lint:ignore SA1012 a nil context is accepted on purpose
	if _, err := r.p.DispatchRays(nil, DispatchRaysDesc{RayGeneration: rg, Width: 1, Height: 1}, nil); err != nil || ran != 1 {
		t.Fatalf("err = %v, ran %d", err, ran)
	}
}

// HitObject::FromRayQuery's attributes must fit MaxAttributeSizeInBytes and
// be plain data; otherwise the dispatch stops with ErrInvalidArgument.
func TestHitObjectFromRayQueryRejectsBadAttributes(t *testing.T) {
	type huge struct{ A [40]byte }
	tlas := serScene(t)
	r := newRig(t, 1, []Shader{RayGeneration("rg", func(c *Context) {
		var q rayquery.RayQuery
		q.TraceRayInline(tlas, 0, 0xff, accel.Ray{Origin: vec.V3(0.2, 10.1, 0), Direction: down, TMax: 100})
		for q.Proceed() {
			q.CommitProceduralPrimitiveHit(4.5)
		}
		HitObjectFromRayQueryWithAttributes(&q, 1, &huge{})
	})}, nil)
	_, err := r.dispatch("rg", 1, 1, nil)
	if !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "at most 32 bytes") {
		t.Fatalf("err = %v", err)
	}
}
