package accel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// A team runs the pieces of one small parallel build on helper goroutines
// that stay awake between pieces, as a thread pool's spinning workers do.
//
// Handing a piece to a new goroutine (`go`) makes the runtime wake a
// parked thread for it; on the machines measured that took about 40 µs
// from `go` to the piece's first instruction (the average over the root
// hand-offs of 1000 builds of a 3.7k-triangle mesh on two threads), a
// tenth of such a build, and the build's serial stages could not be
// split at all for that price. A team's helpers are started when the
// build starts, so that their wake-up overlaps its serial beginning, and
// then poll the team's queue (yielding the processor between polls) until
// the build ends: a piece pushed to the queue starts within about a
// microsecond. Polling costs processor time for as long as the build
// runs, which is why only small builds use a team (teamFor); large builds
// take a millisecond or more a piece, and pay the wake-up once per piece.
//
// One team works at a time (activeTeams): builds that start while another
// build's team works hand their pieces to goroutines of their own, as
// large builds do, so that concurrent builds do not multiply the polling
// helpers; they run in parallel with each other anyway.
//
// Pieces are functions that never block on each other: they write
// disjoint outputs and may push more pieces. Whoever waits for a set of
// pieces (tasks.wait) runs queued pieces itself meanwhile, so the set
// finishes even before any helper has woken up.
type team struct {
	mu    sync.Mutex
	queue []func() // pending pieces, oldest (largest, for the tree build) first
	head  int      // queue[head:] are pending
	quit  atomic.Bool
	size  int // goroutines working on the team's pieces: the helpers and the caller
}

// Teams are for builds of teamMin to teamMax primitives on more than one
// processor. Below teamMin a build stays on one goroutine: its pieces are
// too small even for a team. Above teamMax the build's serial stages
// (validating and hashing indices, allocating) take milliseconds, which
// helpers would spend polling.
const (
	teamMin = 1 << 10
	teamMax = 1 << 16
)

// activeTeams counts the teams that have not stopped (at most one).
var activeTeams atomic.Int32

// teamFor returns a team for a build of about n primitives with
// GOMAXPROCS processors, or nil when the build should hand its pieces to
// goroutines of their own (or keep them all on one). A team must be
// stopped.
func teamFor(n int) *team {
	procs := runtime.GOMAXPROCS(0)
	if procs <= 1 || n < teamMin || n > teamMax {
		return nil
	}
	if activeTeams.Add(1) > 1 {
		activeTeams.Add(-1)
		return nil
	}
	t := &team{size: procs}
	for range procs - 1 {
		go t.help()
	}
	return t
}

// stop lets the helpers return once they finish what they are running.
// The team must have no pending pieces (every tasks set was waited for).
func (t *team) stop() {
	if t != nil && !t.quit.Swap(true) {
		activeTeams.Add(-1)
	}
}

func (t *team) help() {
	for !t.quit.Load() {
		if !t.runOne() {
			runtime.Gosched()
		}
	}
}

func (t *team) push(f func()) {
	t.mu.Lock()
	if t.head == len(t.queue) {
		t.queue, t.head = t.queue[:0], 0
	}
	t.queue = append(t.queue, f)
	t.mu.Unlock()
}

// runOne runs the oldest pending piece, if there is one.
func (t *team) runOne() bool {
	t.mu.Lock()
	if t.head == len(t.queue) {
		t.mu.Unlock()
		return false
	}
	f := t.queue[t.head]
	t.queue[t.head] = nil
	t.head++
	t.mu.Unlock()
	f()
	return true
}

// tasks is a set of pieces run on a team or, without one (nil), each on
// a goroutine of its own.
type tasks struct {
	team    *team
	wg      sync.WaitGroup
	pending atomic.Int64
}

// run starts f.
func (s *tasks) run(f func()) {
	if s.team == nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			f()
		}()
		return
	}
	s.pending.Add(1)
	s.team.push(func() {
		defer s.pending.Add(-1)
		f()
	})
}

// wait returns when every piece started with run (and every piece those
// started) has returned; on a team it runs pending pieces meanwhile.
func (s *tasks) wait() {
	if s.team == nil {
		s.wg.Wait()
		return
	}
	for s.pending.Load() != 0 {
		if !s.team.runOne() {
			runtime.Gosched()
		}
	}
}

// chunks cuts [0, n) for parallelChunks: splitWork's chunks without a
// team; with one, a chunk per team member when n is at least
// teamChunk items a member (else one).
func (t *team) chunks(n int) [][2]int {
	if t == nil {
		return splitWork(n)
	}
	k := min(t.size, max(1, n/teamChunk))
	ch := make([][2]int, k)
	for i := range ch {
		ch[i] = [2]int{i * n / k, (i + 1) * n / k}
	}
	return ch
}

// teamChunk is the least number of items a team member takes in
// parallelChunks' stages (a few microseconds of work).
const teamChunk = 256

// parallel runs f on every chunk: on the team (the caller taking the
// first chunk) or, without one, as parallelChunks does.
func (t *team) parallel(chunks [][2]int, f func(c, lo, hi int)) {
	if t == nil || len(chunks) == 1 {
		parallelChunks(chunks, f)
		return
	}
	s := tasks{team: t}
	for c := 1; c < len(chunks); c++ {
		ch := chunks[c]
		s.run(func() { f(c, ch[0], ch[1]) })
	}
	f(0, chunks[0][0], chunks[0][1])
	s.wait()
}
