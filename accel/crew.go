package accel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// The crew: worker goroutines that run the parallel parts of builds
// (crewRun, crewGroup) and keep their processors awake while a large build
// runs (crewHold).
//
// A build is a chain of short fork-joins (decode, primitive boxes, the
// tree's top levels, widen, slot copies, leaf rows), and a goroutine per
// part started each one cold: Go wakes an idle processor's thread one at a
// time, each woken one waking the next, so on a 16-core virtual machine
// the 16 chunks of a 100k-triangle vertex fetch ran on 3 processors for
// 0.3 ms before the fourth woke (an execution trace of
// BenchmarkBuild/terrain/100k), and such a build kept 5.8 of 16
// processors busy on average. Crew workers instead spin between parts
// while a build holds them, as a TBB arena's threads do for Embree, take
// parts from posted tasks the moment they appear, and park only when no
// build has held them for a while; a worker parked for a second exits.
//
// Where no build holds the crew (builds under crewHoldMin primitives,
// refits), crewRun and crewGroup run their parts on goroutines of their
// own, as Go schedules them: the crew changes nothing for a program that
// never builds a large structure, and many small builds at once do not
// meet on its lock.
//
// Every part writes only its own outputs, so which goroutine runs it, and
// when, changes nothing in a build's result.

// crewTask is parts 0..n-1 of run, posted for the crew and the poster.
type crewTask struct {
	run  func(part int)
	n    int64
	seq  int64        // post order
	next atomic.Int64 // the next part to claim
	left atomic.Int64 // parts not yet finished
	// urgent tasks are taken before the others (crewPick): work that a
	// build waits for later (crewAsync), or that the rest of a build waits
	// on (crewRunUrgent, crewPairUrgent).
	urgent bool
}

// work runs parts of t until none is left to claim.
func (t *crewTask) work() {
	for i := t.next.Add(1) - 1; i < t.n; i = t.next.Add(1) - 1 {
		if i == t.n-1 && t.urgent {
			crew.urgent.Add(-1) // its last part claimed
		}
		t.run(int(i))
		t.left.Add(-1)
	}
}

var crew struct {
	mu      sync.Mutex
	tasks   []*crewTask   // posted tasks that may have parts to claim, newest last
	wake    chan struct{} // closed (and replaced) to wake parked workers
	workers int           // running
	size    atomic.Int64  // workers wanted: GOMAXPROCS-1 of the latest crewRun or hold
	open    atomic.Int64  // len(tasks), read without the lock
	urgent  atomic.Int64  // urgent tasks posted with parts left to claim
	posted  int64         // tasks posted so far
	holds   atomic.Int64  // builds that keep the workers spinning
}

const (
	// crewSpin is how long a worker spins after its last part when no
	// build holds the crew: a build's serial stretches between its
	// parallel stages are shorter.
	crewSpin = 200 * time.Microsecond
	// crewYield is how often a spinning worker lets the other goroutines
	// of its processor run.
	crewYield = 20 * time.Microsecond
	// crewExit is how long a parked worker waits before it exits.
	crewExit = time.Second
	// crewHoldMin is the least count of primitives of a build that holds
	// the crew.
	crewHoldMin = 1 << 14
)

// crewHold keeps the crew spinning, and wakes its parked workers, until
// the returned function is called: for a build of n primitives, from
// crewHoldMin on more than one processor (else it does nothing).
func crewHold(n int) (release func()) { return crewHoldFrom(n, crewHoldMin) }

// crewHoldFrom is crewHold for work of n primitives that holds the crew
// from least on.
func crewHoldFrom(n, least int) (release func()) {
	procs := runtime.GOMAXPROCS(0)
	if n < least || procs == 1 {
		return func() {}
	}
	crew.holds.Add(1)
	crewStaff(procs - 1)
	return func() { crew.holds.Add(-1) }
}

// crewStaff sets the crew's size to k workers, starting those missing
// and waking parked ones.
func crewStaff(k int) {
	crew.size.Store(int64(k))
	crew.mu.Lock()
	defer crew.mu.Unlock()
	for crew.workers < k {
		crew.workers++
		go crewWorker()
	}
	crewWakeLocked()
}

// crewWakeLocked wakes the parked workers; crew.mu is held.
func crewWakeLocked() {
	if crew.wake != nil {
		close(crew.wake)
		crew.wake = nil
	}
}

// crewRun runs f(0), ..., f(n-1) in parallel on the crew and the calling
// goroutine, and returns when all have returned. While it waits it runs
// parts of other posted tasks, so parts may call crewRun themselves.
// Where no build holds the crew, the parts run on goroutines of their own,
// as they did before the crew.
func crewRun(n int, f func(part int)) { crewRunAs(n, f, crewHelp) }

// crewRunUrgent is crewRun for short parts that the rest of a build waits
// on: the crew takes them before the parts of other tasks (crewPick), and
// the caller, once none is left to claim, waits for those running
// elsewhere without taking up other work. Taking up a posted part of
// another task, it could finish that long after its own parts (a whole
// subtree's build, say): on 16 processors the CAD engine's spatial-split
// build spent 5.0-5.6 ms of its chain of top-level nodes to its last
// subtree in their splits, waiting so, and 0.5-0.9 ms once they did not
// (crewPairUrgent too). Its parts must not wait for other tasks.
func crewRunUrgent(n int, f func(part int)) { crewRunAs(n, f, crewAlone) }

// How the caller of crewRunAs waits for the parts that others run.
const (
	crewHelp  = iota // running parts of tasks posted since (crewRun)
	crewAlone        // urgent, running no other task's parts (crewRunUrgent)
	crewFirst        // urgent, helping as crewHelp does (crewPairUrgent)
)

// crewHelpNone, as crewWait's from, has it help with no task.
const crewHelpNone = -1

// crewRunAs is crewRun, with the parts posted and waited for as wait says.
func crewRunAs(n int, f func(part int), wait int) {
	if n <= 0 {
		return
	}
	procs := runtime.GOMAXPROCS(0)
	if n == 1 || procs == 1 {
		for i := range n {
			f(i)
		}
		return
	}
	if crew.holds.Load() == 0 {
		// No build holds the crew: goroutines, as Go schedules them.
		var wg sync.WaitGroup
		for i := 1; i < n; i++ {
			wg.Go(func() { f(i) })
		}
		f(0)
		wg.Wait()
		return
	}
	if int(crew.size.Load()) < procs-1 {
		crewStaff(procs - 1)
	}
	t := &crewTask{run: f, n: int64(n), urgent: wait != crewHelp}
	t.left.Store(int64(n))
	crewPost(t)
	t.work()
	from := t.seq
	if wait == crewAlone {
		from = crewHelpNone // the parts left run elsewhere, started already
	}
	crewWait(&t.left, from)
}

// crewPair runs left and right in parallel (crewRun) and returns when
// both have returned.
func crewPair(left, right func()) { crewRunAs(2, pair(left, right), crewHelp) }

// crewPairUrgent is crewPair for halves of work that the rest of a build
// waits on, such as the spatial-split build's top levels: the crew takes
// the right half before the parts of other tasks (crewPick). Its caller
// helps while it waits, as crewPair's does: the halves may be large.
func crewPairUrgent(left, right func()) { crewRunAs(2, pair(left, right), crewFirst) }

// pair returns the parts of a pair: left is part 0, right part 1.
func pair(left, right func()) func(part int) {
	return func(part int) {
		if part == 0 {
			left()
		} else {
			right()
		}
	}
}

// crewGroup runs functions on the crew (Go) and waits for them all (Wait),
// like a sync.WaitGroup whose Wait helps.
type crewGroup struct {
	left  atomic.Int64
	first atomic.Int64 // seq+1 of the first task posted, 0 before
	// goroutines is set by the first Go where no build held the crew: the
	// group's functions then run on goroutines of their own (wg).
	mode       sync.Once
	goroutines bool
	wg         sync.WaitGroup
}

// Go posts f for the crew, or runs it on a goroutine of its own where no
// build held the crew at the group's first Go.
func (g *crewGroup) Go(f func()) {
	g.mode.Do(func() { g.goroutines = crew.holds.Load() == 0 })
	if g.goroutines {
		g.wg.Go(f)
		return
	}
	g.left.Add(1)
	if runtime.GOMAXPROCS(0) == 1 {
		f()
		g.left.Add(-1)
		return
	}
	t := &crewTask{run: func(int) { f(); g.left.Add(-1) }, n: 1}
	t.left.Store(1)
	crewPost(t)
	g.first.CompareAndSwap(0, t.seq+1)
}

// Wait returns when every function posted with Go has returned, running
// posted parts meanwhile.
func (g *crewGroup) Wait() {
	g.mode.Do(func() {}) // no Go: nothing to wait for
	if g.goroutines {
		g.wg.Wait()
		return
	}
	crewWait(&g.left, max(0, g.first.Load()-1))
}

// crewAsync runs f on the crew, before the parts of any task that is not
// urgent, and returns a channel closed when f has returned: for work that
// a build waits for later, such as allocating an array it will fill. A
// goroutine of its own would wait behind the spinning workers, whose
// processors do not look for goroutines on the others' queues.
func crewAsync(f func()) <-chan struct{} {
	done := make(chan struct{})
	t := &crewTask{run: func(int) { f(); close(done) }, n: 1, urgent: true}
	t.left.Store(1)
	crewPost(t)
	return done
}

// crewPost numbers t and posts it.
func crewPost(t *crewTask) {
	crew.mu.Lock()
	t.seq = crew.posted
	crew.posted++
	if t.urgent {
		crew.urgent.Add(1)
	}
	crew.tasks = append(crew.tasks, t)
	crew.open.Store(int64(len(crew.tasks)))
	crewWakeLocked()
	crew.mu.Unlock()
}

// crewPick returns a posted task with a part left to claim, posted as
// seq from or later, or nil, dropping those wholly claimed. It takes the
// oldest urgent task, else the newest other: a waiter helps the innermost
// work first, and only work posted since its own (its own task's
// descendants, and what other goroutines of a build posted meanwhile), so
// that it seldom takes up a long part while its own task's continuation
// waits (crewRunUrgent's callers take up none).
func crewPick(from int64) *crewTask {
	if crew.open.Load() == 0 {
		return nil
	}
	crew.mu.Lock()
	defer crew.mu.Unlock()
	if crew.urgent.Load() > 0 {
		for _, t := range crew.tasks {
			if t.urgent && t.seq >= from && t.next.Load() < t.n {
				return t
			}
		}
	}
	for k := len(crew.tasks) - 1; k >= 0; k-- {
		t := crew.tasks[k]
		if t.next.Load() < t.n {
			if t.seq < from {
				break
			}
			return t
		}
		// Wholly claimed: drop it, keeping the others' order.
		copy(crew.tasks[k:], crew.tasks[k+1:])
		crew.tasks[len(crew.tasks)-1] = nil
		crew.tasks = crew.tasks[:len(crew.tasks)-1]
	}
	crew.open.Store(int64(len(crew.tasks)))
	return nil
}

// crewWait returns when *left is 0, running parts posted as from or later
// meanwhile (none where from is crewHelpNone), and spinning (with a yield
// every crewYield) when there are none.
func crewWait(left *atomic.Int64, from int64) {
	var yielded time.Time
	for spins := 0; left.Load() > 0; spins++ {
		if from != crewHelpNone {
			if t := crewPick(from); t != nil {
				t.work()
				continue
			}
		}
		if spins&255 == 255 {
			if now := time.Now(); now.Sub(yielded) >= crewYield {
				runtime.Gosched()
				yielded = now
			}
		}
	}
}

// crewWorker runs posted parts, spins while a build holds the crew (or
// for crewSpin after its last part), parks otherwise, and exits after
// crewExit parked, or when the crew is larger than wanted.
func crewWorker() {
	idle := time.Now()
	yielded := idle
	for spins := 0; ; spins++ {
		if t := crewPick(0); t != nil {
			t.work()
			idle, spins = time.Now(), 0
			continue
		}
		if spins&255 != 255 {
			continue
		}
		now := time.Now()
		if crew.holds.Load() > 0 || now.Sub(idle) < crewSpin {
			if now.Sub(yielded) >= crewYield {
				runtime.Gosched()
				yielded = now
			}
			continue
		}
		if !crewPark() {
			return
		}
		idle, yielded, spins = time.Now(), time.Now(), 0
	}
}

// crewPark waits until a task is posted, a build holds the crew or the
// crew is restaffed; false means the worker should exit (parked for
// crewExit, or not wanted).
func crewPark() bool {
	crew.mu.Lock()
	if int64(crew.workers) > crew.size.Load() {
		crew.workers--
		crew.mu.Unlock()
		return false
	}
	if crew.open.Load() > 0 || crew.holds.Load() > 0 {
		crew.mu.Unlock()
		return true
	}
	if crew.wake == nil {
		crew.wake = make(chan struct{})
	}
	wake := crew.wake
	crew.mu.Unlock()
	timer := time.NewTimer(crewExit)
	defer timer.Stop()
	select {
	case <-wake:
		return true
	case <-timer.C:
		crew.mu.Lock()
		defer crew.mu.Unlock()
		if crew.open.Load() > 0 || crew.holds.Load() > 0 {
			return true
		}
		crew.workers--
		return false
	}
}
