package accel

import (
	"os"
	"sync"
	"testing"
	"time"
)

// sbvhEvent is a step that testHookSBVH reported, and when.
type sbvhEvent struct {
	step  sbvhStep
	depth int
	room  span
	at    time.Time
}

// sbvhChain is where the chain of top-level nodes from the root to the
// subtree built last spent its time: choosing splits (and, at the
// subtree, what came before its build), splitting refs, waiting for a
// goroutine to take the next node up after its parent's split, and the
// subtree's build; they sum to total, from the root's start to that
// subtree's end. lastStart is when the last subtree's build started.
type sbvhChain struct {
	choose, split, wait, subtree time.Duration
	total, lastStart             time.Duration
}

// chainOf reads one build's steps; false where they hold no root.
func chainOf(evs []sbvhEvent) (sbvhChain, bool) {
	type key struct {
		depth int
		room  span
	}
	type node struct {
		key
		at [sbvhBuilt + 1]time.Time
	}
	nodes := map[key]*node{}
	var root, last *node
	var lastStart time.Time
	for _, e := range evs {
		k := key{e.depth, e.room}
		n := nodes[k]
		if n == nil {
			n = &node{key: k}
			nodes[k] = n
		}
		n.at[e.step] = e.at
		switch {
		case e.step == sbvhStart && e.depth == 0:
			root = n
		case e.step == sbvhSubtree && e.at.After(lastStart):
			lastStart = e.at
		case e.step == sbvhBuilt && (last == nil || e.at.After(last.at[sbvhBuilt])):
			last = n
		}
	}
	if root == nil || last == nil {
		return sbvhChain{}, false
	}
	parent := func(n *node) *node {
		for _, p := range nodes {
			if p.depth == n.depth-1 && p.room.lo <= n.room.lo && n.room.hi <= p.room.hi {
				return p
			}
		}
		return nil
	}
	t0 := root.at[sbvhStart]
	c := sbvhChain{
		choose:    last.at[sbvhSubtree].Sub(last.at[sbvhStart]),
		subtree:   last.at[sbvhBuilt].Sub(last.at[sbvhSubtree]),
		total:     last.at[sbvhBuilt].Sub(t0),
		lastStart: lastStart.Sub(t0),
	}
	for n := last; n.depth > 0; {
		p := parent(n)
		if p == nil {
			return sbvhChain{}, false
		}
		c.choose += p.at[sbvhChosen].Sub(p.at[sbvhStart])
		c.split += p.at[sbvhSplit].Sub(p.at[sbvhChosen])
		c.wait += n.at[sbvhStart].Sub(p.at[sbvhSplit])
		n = p
	}
	return c, true
}

// timeSBVHChain installs testHookSBVH for a benchmark's builds when
// RAYPIPE_BENCH_CHAIN is set: each op's steps are read by chainOf after
// it (done), and report adds the mean chain of the ops that made spatial
// splits as metrics ("chain-choose-ms" ... "chain-subtree-ms", which sum
// to "chain-ms", and "lastsubtree-ms"). Else both do nothing.
func timeSBVHChain(b *testing.B) (done func(), report func()) {
	if os.Getenv("RAYPIPE_BENCH_CHAIN") == "" {
		return func() {}, func() {}
	}
	var mu sync.Mutex
	var evs []sbvhEvent
	testHookSBVH = func(step sbvhStep, depth int, room span) {
		at := time.Now()
		mu.Lock()
		evs = append(evs, sbvhEvent{step, depth, room, at})
		mu.Unlock()
	}
	var sum sbvhChain
	ops := 0
	done = func() {
		if c, ok := chainOf(evs); ok {
			sum.choose += c.choose
			sum.split += c.split
			sum.wait += c.wait
			sum.subtree += c.subtree
			sum.total += c.total
			sum.lastStart += c.lastStart
			ops++
		}
		evs = evs[:0]
	}
	report = func() {
		testHookSBVH = nil
		if ops == 0 {
			return
		}
		ms := func(d time.Duration) float64 { return float64(d) / 1e6 / float64(ops) }
		b.ReportMetric(ms(sum.choose), "chain-choose-ms")
		b.ReportMetric(ms(sum.split), "chain-split-ms")
		b.ReportMetric(ms(sum.wait), "chain-wait-ms")
		b.ReportMetric(ms(sum.subtree), "chain-subtree-ms")
		b.ReportMetric(ms(sum.total), "chain-ms")
		b.ReportMetric(ms(sum.lastStart), "lastsubtree-ms")
	}
	return done, report
}

// chainOf follows the rooms from the subtree built last up to the root
// and splits the time between the steps: a hand-made timeline, then a
// real spatial-split build, whose parts must sum to the chain's length.
func TestSBVHChainSumsTheStepsToTheLastSubtree(t *testing.T) {
	t0 := time.Unix(0, 0)
	ms := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Millisecond) }
	root, left, right := span{0, 100}, span{0, 50}, span{50, 100}
	rl, rr := span{50, 70}, span{70, 100}
	evs := []sbvhEvent{
		{sbvhStart, 0, root, ms(0)}, {sbvhChosen, 0, root, ms(1)}, {sbvhSplit, 0, root, ms(3)},
		{sbvhStart, 1, left, ms(3)}, {sbvhSubtree, 1, left, ms(4)},
		{sbvhStart, 1, right, ms(5)}, {sbvhChosen, 1, right, ms(6)}, {sbvhSplit, 1, right, ms(8)},
		{sbvhStart, 2, rl, ms(8)}, {sbvhSubtree, 2, rl, ms(8)},
		{sbvhStart, 2, rr, ms(9)}, {sbvhSubtree, 2, rr, ms(9)},
		{sbvhBuilt, 1, left, ms(10)}, {sbvhBuilt, 2, rr, ms(12)}, {sbvhBuilt, 2, rl, ms(20)},
	}
	want := sbvhChain{
		choose:    2 * time.Millisecond,  // the root's 1, right's 1, rl's 0
		split:     4 * time.Millisecond,  // 2 and 2
		wait:      2 * time.Millisecond,  // right started 2 after the root's split
		subtree:   12 * time.Millisecond, // rl's, built last
		total:     20 * time.Millisecond,
		lastStart: 9 * time.Millisecond, // rr's
	}
	if got, ok := chainOf(evs); !ok || got != want {
		t.Fatalf("chainOf = %+v, %v; want %+v", got, ok, want)
	}
	if _, ok := chainOf(evs[3:]); ok {
		t.Fatal("chainOf found a chain without a root")
	}

	var mu sync.Mutex
	var real []sbvhEvent
	testHookSBVH = func(step sbvhStep, depth int, room span) {
		mu.Lock()
		real = append(real, sbvhEvent{step, depth, room, time.Now()})
		mu.Unlock()
	}
	defer func() { testHookSBVH = nil }()
	sliverBLAS(t, 1, GeometryOpaque, BuildPreferFastTrace)
	c, ok := chainOf(real)
	if !ok || c.total <= 0 || c.choose+c.split+c.wait+c.subtree != c.total || c.lastStart > c.total {
		t.Fatalf("a spatial-split build's chain: %+v, %v (%d steps)", c, ok, len(real))
	}
}
