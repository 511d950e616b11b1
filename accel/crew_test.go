package accel

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// crewRun runs every part exactly once and returns only after all have
// returned, on one processor and several, with parts that call crewRun
// themselves, and with several goroutines calling it at once.
func TestCrewRunRunsEveryPartOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 7} {
		runtime.GOMAXPROCS(procs)
		const callers, parts, inner = 5, 300, 7
		var counts [callers][parts][inner]atomic.Int32
		var wg sync.WaitGroup
		for c := range callers {
			wg.Go(func() {
				crewRun(parts, func(i int) {
					crewRun(inner, func(j int) { counts[c][i][j].Add(1) })
				})
				// Every part has returned: no count may still change.
				for i := range parts {
					for j := range inner {
						if got := counts[c][i][j].Load(); got != 1 {
							t.Errorf("GOMAXPROCS %d, caller %d: part %d.%d ran %d times", procs, c, i, j, got)
							return
						}
					}
				}
			})
		}
		wg.Wait()
	}
}

// A crewGroup's Wait returns once every function posted with Go has
// returned, those posted by the functions themselves included (as the
// builder hands subtrees off), on the crew (a build holds it) and on
// goroutines (none does), and work posted with goAlloc runs while the
// poster goes on.
func TestCrewGroupWaitsForNestedWork(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 3} {
		for _, held := range []bool{true, false} {
			runtime.GOMAXPROCS(procs)
			release := func() {}
			if held {
				release = crewHold(crewHoldMin)
			}
			groupNestedWork(t, procs)
			release()
		}
	}
}

// groupNestedWork is one case of TestCrewGroupWaitsForNestedWork.
func groupNestedWork(t *testing.T, procs int) {
	var done atomic.Int32
	allocated := goAlloc(true, func() { done.Add(1) })
	var g crewGroup
	var leaves atomic.Int32
	var split func(depth int)
	split = func(depth int) {
		if depth == 10 {
			leaves.Add(1)
			return
		}
		g.Go(func() { split(depth + 1) })
		split(depth + 1)
	}
	split(0)
	g.Wait()
	if got := leaves.Load(); got != 1<<10 {
		t.Fatalf("GOMAXPROCS %d: Wait returned with %d of %d leaves done", procs, got, 1<<10)
	}
	select {
	case <-allocated:
	case <-time.After(10 * time.Second):
		t.Fatalf("GOMAXPROCS %d: work posted with goAlloc did not run", procs)
	}
	if done.Load() != 1 {
		t.Fatalf("GOMAXPROCS %d: goAlloc's function ran %d times", procs, done.Load())
	}
}

// Workers park and exit once no build holds the crew and nothing is
// posted: a program that stops building is left no goroutines spinning.
func TestCrewWorkersExitWhenIdle(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(4)
	release := crewHold(crewHoldMin)
	crewRun(8, func(int) {})
	release()
	workers := func() int {
		crew.mu.Lock()
		defer crew.mu.Unlock()
		return crew.workers
	}
	if workers() == 0 {
		t.Fatal("a hold on 4 processors started no workers: weak test")
	}
	for deadline := time.Now().Add(10 * crewExit); workers() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d workers still running %v after the last task", workers(), 10*crewExit)
		}
	}
}

// Builds large enough to hold the crew, run from several goroutines at
// once (sharing its workers and its scratch pool), give each the BLAS it
// gives built alone: the same bytes, spatial splits included.
func TestConcurrentBuildsMatchSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(4)
	rng := rand.New(rand.NewPCG(97, 98))
	type job struct {
		geoms []Geometry
		flags BuildFlags
	}
	var jobs []job
	for k := range 4 {
		pos, idx := randomSoup(rng, crewHoldMin+5000*k, 0.05)
		jobs = append(jobs, job{[]Geometry{TriangleGeometry(pos, idx)}, BuildPreferFastBuild})
	}
	sl := TriangleGeometry(slivers(rand.New(rand.NewPCG(8, 1)), sbvhMin+sbvhMin/4), nil)
	sl.Flags = GeometryOpaque
	jobs = append(jobs, job{[]Geometry{sl}, BuildPreferFastTrace})
	want := make([][]byte, len(jobs))
	for i, j := range jobs {
		want[i] = mustBLAS(t, j.geoms, j.flags).Serialize()
	}
	got := make([][]byte, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() {
			b, err := BuildBLAS(j.geoms, j.flags)
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = b.Serialize()
		})
	}
	wg.Wait()
	for i := range jobs {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("build %d: concurrent build differs from the same build alone", i)
		}
	}
}
