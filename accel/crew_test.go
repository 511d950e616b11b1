package accel

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"strconv"
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

// parallelWork hands every index of [0, n) to exactly one call, in
// contiguous chunks numbered 0 to workChunks-1 that tile the range in
// order, for empty, tiny and large ranges on one processor and several.
func TestParallelWorkCoversTheRangeOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 7} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 5, minChunk - 1, 3*minChunk + 17, 5*workGrain + 3} {
			for _, grain := range []int{1, 1000, workGrain} {
				k := workChunks(n, grain)
				if k < 1 || k > 4*procs {
					t.Fatalf("GOMAXPROCS %d, n %d, grain %d: %d chunks", procs, n, grain, k)
				}
				seen := make([]atomic.Int32, n)
				bounds := make([][2]int, k)
				var calls atomic.Int32
				parallelWork(n, grain, func(c, lo, hi int) {
					calls.Add(1)
					bounds[c] = [2]int{lo, hi}
					for i := lo; i < hi; i++ {
						seen[i].Add(1)
					}
				})
				if got := int(calls.Load()); got != k {
					t.Errorf("GOMAXPROCS %d, n %d, grain %d: %d calls for %d chunks", procs, n, grain, got, k)
				}
				end := 0
				for c, b := range bounds {
					if b[0] != end || b[1] < b[0] {
						t.Errorf("GOMAXPROCS %d, n %d, grain %d: chunk %d is [%d, %d) after %d", procs, n, grain, c, b[0], b[1], end)
					}
					end = b[1]
				}
				if end != n {
					t.Errorf("GOMAXPROCS %d, n %d, grain %d: chunks end at %d", procs, n, grain, end)
				}
				for i := range seen {
					if got := seen[i].Load(); got != 1 {
						t.Errorf("GOMAXPROCS %d, n %d, grain %d: index %d handed out %d times", procs, n, grain, i, got)
						break
					}
				}
			}
		}
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

// crewRunUrgent's caller, its own parts claimed, runs no part of another
// task while it waits, not even of one posted after its own (a crewRun
// caller would help there), and every urgent part runs once.
func TestCrewRunUrgentCallerRunsNoOtherTasksParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(4)
	release := crewHold(crewHoldMin)
	defer release()
	me := goroutineID()
	for try := 0; ; try++ {
		var counts [2]atomic.Int32
		var ranOnMe, ran atomic.Int32
		var posted atomic.Bool
		done := make(chan struct{})
		crewRunUrgent(2, func(part int) {
			counts[part].Add(1)
			if goroutineID() == me {
				// The caller's part: it gives a worker a moment to claim
				// the other, then goes on to wait.
				for end := time.Now().Add(time.Millisecond); counts[1-part].Load() == 0 && time.Now().Before(end); {
					runtime.Gosched()
				}
				return
			}
			// A part run elsewhere posts another task and returns once the
			// crew has run half of it, the caller waiting meanwhile.
			posted.Store(true)
			go func() {
				crewRun(64, func(int) {
					if goroutineID() == me {
						ranOnMe.Add(1)
					}
					ran.Add(1)
					time.Sleep(50 * time.Microsecond)
				})
				close(done)
			}()
			for ran.Load() < 32 {
				runtime.Gosched()
			}
		})
		if counts[0].Load() != 1 || counts[1].Load() != 1 {
			t.Fatalf("parts ran %d and %d times, want once each", counts[0].Load(), counts[1].Load())
		}
		if !posted.Load() {
			if try == 100 {
				t.Fatal("the caller ran both parts itself in 100 tries: weak test")
			}
			continue
		}
		<-done
		if n := ranOnMe.Load(); n > 0 {
			t.Fatalf("the caller ran %d parts of another task while it waited", n)
		}
		return
	}
}

// goroutineID returns the calling goroutine's number (runtime.Stack's
// first line), for tests that check where work ran.
func goroutineID() int {
	var buf [64]byte
	f := bytes.Fields(buf[:runtime.Stack(buf[:], false)])
	id, _ := strconv.Atoi(string(f[1]))
	return id
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
