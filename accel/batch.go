package accel

import (
	"math/bits"
	"sync"
	"unsafe"
)

// Batches: the same queries as Intersect and Occluded for many rays at once.
//
// On a scene larger than the caches a walk is a chain of dependent cache
// misses (node, child, ..., leaf), and one walk leaves the memory system
// idle while it waits. The batch calls keep batchLanes walks in flight and
// advance them in turn, one node or leaf at a time, so that the misses of
// different rays overlap. Each walk takes exactly the steps it would take
// alone, so the answers are Intersect's and Occluded's bit for bit
// (TestBatchMatchesSingleRays).
//
// Interleaving costs a little per step (the walk's state lives in memory,
// not registers), so it only pays where misses dominate: measured in one
// process against single rays, 1M-triangle terrain and soup (about 60 MB
// with the vector walks' rows) gain 1.7-1.8x on shadow rays, 1.4-1.6x on
// incoherent rays and 0.8-1.2x on coherent primary rays, while 10k-100k
// triangles (a few MB, in the last-level cache) lose 0-30%. So a BLAS
// smaller than batchMinBytes is traced one ray at a time, and so, where
// the walks are stepped from Go, is a batch of a camera's primary rays
// (coherent), whose walks share their nodes and branches. Where the
// processor has AVX2, BLAS batches interleave in assembly
// (batchWalkAVX2, batchOccludeAVX2), each of eight walks yielding to the
// next once it has prefetched its next node or leaf; coherent ones
// interleave while their walks take few steps per hit (walkCoherent).

// batchLanes is the number of walks a batch keeps in flight: on the
// 1M-triangle soup 2 gave 1.37x, 4 1.78x, 8 1.92x and 16 1.93x.
const batchLanes = 8

// batchMinBytes is the traversal footprint (wide nodes and triangles)
// from which batches interleave walks; tests lower it.
var batchMinBytes = 16 << 20

// batchMinBytesAsm is batchMinBytes for the assembly batch walks, whose
// interleaving costs less: measured in one process, 100k-triangle
// terrain and soup batches (about 5 MB, past this machine's 2 MB L2)
// gained 1.35x and 1.2x from it, 10k-triangle ones (under 1 MB) 1.09x
// and 0.88x.
const batchMinBytesAsm = 2 << 20

// interleaves reports whether batches on b interleave their walks.
func (b *BLAS) interleaves() bool {
	least := uint64(batchMinBytes)
	if b.queriesInAsm() {
		least = min(least, batchMinBytesAsm)
	}
	return b.typ == GeometryTriangles && b.traversalBytes() >= least
}

// coherent reports whether rays look like a camera's primary rays: at
// most neighbours, sampled across the batch, the two rays share their
// origin and their directions lie within about 2.5 degrees. Such rays
// walk the same nodes one after the other, which the next walk finds in
// the cache and the branch predictor has seen, so batches trace them one
// at a time: interleaved, 1M-triangle soup primary rays ran at 0.55x and
// terrain ones at 0.97x the single-ray rate (cmd/embreecmp, one thread).
// Rays from scattered origins (shadow rays) or in scattered directions
// keep interleaving, which hides their cache misses. This holds for the
// walks stepped from Go; the assembly batch walks (batchWalkAVX2) switch
// rays so cheaply that interleaving paid on some coherent rays too (1M
// and 2M terrain primary rays 1.3-1.7x the single-ray rate) and not on
// others (soup, 0.8-0.9x), so they decide by the steps their walks take
// per hit (walkCoherent).
func coherent(rays []Ray) bool {
	const (
		samples = 64
		cos2    = 0.998 // cos² of about 2.5 degrees
	)
	pairs := len(rays) - 1
	if pairs < 1 {
		return false
	}
	stride := max(1, pairs/samples)
	close, tried := 0, 0
	for i := 0; i < pairs; i += stride {
		a, b := &rays[i], &rays[i+1]
		tried++
		if a.Origin != b.Origin {
			continue
		}
		da, db := a.Direction, b.Direction
		if d := da.Dot(db); d > 0 && d*d >= cos2*da.Dot(da)*db.Dot(db) {
			close++
		}
	}
	return close*4 >= tried*3
}

// Lanes are reused across calls: they are large (about 14 and 21 KB), and
// the closures that fill them make them escape.
var (
	blasLanes = sync.Pool{New: func() any { return new([batchLanes]batchWalk) }}
	tlasLanes = sync.Pool{New: func() any { return new([batchLanes]tlasWalk) }}
)

// batchStackLimit is the stack height above which a batch walk stops and
// its ray is traced alone (a node can push wideWidth entries before it pops one); tests lower it.
var batchStackLimit = defaultBatchStackLimit

// defaultBatchStackLimit leaves room on the small stack for one node's pushes.
const defaultBatchStackLimit = smallStack - wideWidth

// batchWalk is one in-flight walk of a batch: the state walkFiniteOn keeps
// in registers, kept in memory between steps.
type batchWalk struct {
	o     objectRay
	q     nodeRay // vector slab constants (vector walks only)
	tMin  float32
	tMax  float32 // shrinks to each committed hit
	h     fastHit
	found bool
	// overflow: the walk outgrew stack; the ray is traced again alone.
	overflow bool
	cur      stackEntry
	sp       int
	ray      int // index of the ray in the batch
	stack    [smallStack]stackEntry
}

// IntersectBatch stores Intersect(rays[i], flags) in hits[i] and found[i]
// for every ray. hits and found must be at least as long as rays (else an
// *InputError, and nothing is traced).
func (b *BLAS) IntersectBatch(rays []Ray, flags RayFlags, hits []Hit, found []bool) error {
	if len(hits) < len(rays) || len(found) < len(rays) {
		return inputErr("IntersectBatch", "hits, found", "%d rays need as many hit and found slots (have %d and %d)", len(rays), len(hits), len(found))
	}
	if flags&fastUnsupported != 0 || b == nil || !b.interleaves() || (!b.queriesInAsm() && coherent(rays)) {
		for i := range rays {
			found[i] = b.IntersectTo(&rays[i], flags, &hits[i])
		}
		return nil
	}
	flags |= RayFlagSkipProceduralPrimitives
	first := flags&RayFlagAcceptFirstHitAndEndSearch != 0
	if b.queriesInAsm() && !b.nodes[0].bounds.IsEmpty() {
		b.self.intersectBatchAVX2(rays, flags, hits, found, func(i int) { found[i] = b.IntersectTo(&rays[i], flags, &hits[i]) })
		return nil
	}
	lanes := blasLanes.Get().(*[batchLanes]batchWalk)
	defer blasLanes.Put(lanes)
	next := 0
	// start puts the next ray that needs a walk into w, answering the
	// others (misses, and rays that need the general walk) on the way.
	start := func(w *batchWalk) bool {
		for next < len(rays) {
			i := next
			next++
			hits[i], found[i] = Hit{}, false
			r := &rays[i]
			if r.TMin > r.TMax || b.nodes[0].bounds.IsEmpty() || !rayUsable(r) {
				continue
			}
			w.o.setupSelf(r)
			near, ok := w.o.rb.hit(&b.nodes[0].bounds, r.TMin, r.TMax)
			if !ok || !first && near > r.TMax {
				continue
			}
			if !w.o.rb.finite {
				hits[i], found[i] = b.Intersect(*r, flags)
				continue
			}
			w.tMin, w.tMax, w.found, w.overflow = r.TMin, r.TMax, false, false
			w.cur, w.sp, w.ray = stackEntry{0, near}, 0, i
			if first {
				w.cur = stackEntry{} // firstHit's walk: no distances
			}
			if useSIMD {
				w.q.init(&w.o.rb, r.TMin)
			}
			return true
		}
		return false
	}
	mode := batchClosest
	if first {
		mode = batchFirst
	}
	b.runBatch(lanes, mode, start, func(w *batchWalk) {
		switch {
		case w.overflow:
			hits[w.ray], found[w.ray] = b.Intersect(rays[w.ray], flags)
		case w.found:
			setHit(&hits[w.ray], &b.self, 0, &w.o.org, &w.o.dir, &w.h, flags)
			found[w.ray] = true
		}
	})
	return nil
}

// OccludedBatch stores Occluded(rays[i], flags) in occluded[i] for every
// ray. occluded must be at least as long as rays (else an *InputError).
func (b *BLAS) OccludedBatch(rays []Ray, flags RayFlags, occluded []bool) error {
	if len(occluded) < len(rays) {
		return inputErr("OccludedBatch", "occluded", "%d rays need as many results (have %d)", len(rays), len(occluded))
	}
	if flags&fastUnsupported != 0 || b == nil || !b.interleaves() || (!b.queriesInAsm() && coherent(rays)) {
		for i := range rays {
			occluded[i] = b.Occluded(rays[i], flags)
		}
		return nil
	}
	if b.queriesInAsm() && !b.nodes[0].bounds.IsEmpty() {
		b.self.occludedBatchAVX2(rays, occluded, func(i int) bool { return b.Occluded(rays[i], flags) })
		return nil
	}
	lanes := blasLanes.Get().(*[batchLanes]batchWalk)
	defer blasLanes.Put(lanes)
	next := 0
	start := func(w *batchWalk) bool {
		for next < len(rays) {
			i := next
			next++
			occluded[i] = false
			r := &rays[i]
			if r.TMin > r.TMax || b.nodes[0].bounds.IsEmpty() || !rayUsable(r) {
				continue
			}
			w.o.setupSelf(r)
			if _, ok := w.o.rb.hit(&b.nodes[0].bounds, r.TMin, r.TMax); !ok {
				continue
			}
			if !w.o.rb.finite {
				occluded[i] = b.occludes(&w.o, r.TMin, r.TMax)
				continue
			}
			w.tMin, w.tMax, w.found, w.overflow = r.TMin, r.TMax, false, false
			w.cur, w.sp, w.ray = stackEntry{}, 0, i
			if useSIMD {
				w.q.init(&w.o.rb, r.TMin)
			}
			return true
		}
		return false
	}
	b.runBatch(lanes, batchOccluded, start, func(w *batchWalk) {
		if w.overflow {
			occluded[w.ray] = b.occluded(&rays[w.ray], flags)
		} else {
			occluded[w.ray] = w.found
		}
	})
	return nil
}

// batchResults holds the assembly batch walks' answers for one call;
// the slices are reused across calls (every entry read is written first).
type batchResults struct {
	status []uint8
	hits   []fastHit
	rays   []Ray   // rays placed in an instance's object space
	which  []int32 // walkNotFinite: the batch's rays it walks
}

var batchResultsPool = sync.Pool{New: func() any { return new(batchResults) }}

// query returns the batchQuery of rays on the BLAS of in, with its
// results in res, grown to len(rays), and the rays the walks take: placed
// in the object space of in, or, for the BLAS's own identity instance,
// as they are (the assembly places them as BLAS.Intersect does).
func (res *batchResults) query(in *instance, rays []Ray, first bool) (batchQuery, []Ray) {
	if cap(res.status) < len(rays) {
		res.status, res.hits = make([]uint8, len(rays)), make([]fastHit, len(rays))
	}
	res.status, res.hits = res.status[:len(rays)], res.hits[:len(rays)]
	b := in.blas
	placed := in != &b.self
	if placed {
		rays = res.placed(rays, in)
	}
	return batchQuery{
		blasArrays: b.arrays(),
		rays:       unsafe.SliceData(rays), n: len(rays),
		status: unsafe.SliceData(res.status), hits: unsafe.SliceData(res.hits),
		first: first, placed: placed,
	}, rays
}

// intersectBatchAVX2 is IntersectBatch on the BLAS of in, the only
// instance (index 0), through batchWalkAVX2 (where queriesInAsm holds);
// alone(i) traces a ray the assembly leaves to Go.
func (in *instance) intersectBatchAVX2(rays []Ray, flags RayFlags, hits []Hit, found []bool, alone func(i int)) {
	res := batchResultsPool.Get().(*batchResults)
	defer batchResultsPool.Put(res)
	q, obj := res.query(in, rays, flags&RayFlagAcceptFirstHitAndEndSearch != 0)
	switch {
	case q.first:
		batchOccludeAVX2(&q) // firstHit's walks, which commit their hit
	case coherent(rays):
		res.walkCoherent(&q, alone)
	default:
		batchWalkAVX2(&q)
	}
	res.walkNotFinite(&q, obj, false)
	res.intersected(hits, found, func(i int) {
		org, dir := obj[i].Origin, obj[i].Direction
		if !q.placed {
			org, dir = identityPoint(org), identityVector(dir)
		}
		setHit(&hits[i], in, 0, &org, &dir, &res.hits[i], flags)
	}, alone)
}

// Coherent closest-hit batches in assembly (walkCoherent) interleave
// while their walks take few steps per hit: a camera's primary rays over
// the 1M terrain take about 9 steps (nodes and leaves) per hit and ran
// 1.3-1.5x faster interleaved than one at a time, over the 1M soup about
// 17 and ran 0.8-0.86x as fast (100k: terrain 8 steps, 1.04x; soup 17,
// 0.77x; 2M: 10 and 18 steps, 1.5x and 0.86x; one process, best of 3).
// Such walks share most of their nodes and leaves with their neighbours'
// and find them in the cache, so each step pays the lane switch and
// hides little. The count is the walks' own, so the choice does not
// depend on timing.
const (
	coherentChunk      = 256 // rays per sampled call
	coherentSampleHits = 128 // hits before the choice
	coherentMaxSteps   = 13  // most steps per hit that still interleave
)

// walkCoherent runs batchWalkAVX2 on q's rays a chunk at a time until
// they have found coherentSampleHits hits, then the rest of them either
// the same way or, when the walks so far took more than coherentMaxSteps
// steps per hit, one at a time with alone(i) (status rayAnswered).
func (res *batchResults) walkCoherent(q *batchQuery, alone func(i int)) {
	n, hits := q.n, 0
	for q.next < n {
		if hits >= coherentSampleHits {
			if q.steps <= coherentMaxSteps*hits {
				q.n = n
				batchWalkAVX2(q)
				return
			}
			for i := q.next; i < n; i++ {
				alone(i)
				res.status[i] = rayAnswered
			}
			return
		}
		lo := q.next
		q.n = min(n, lo+coherentChunk)
		batchWalkAVX2(q)
		for _, s := range res.status[lo:q.n] {
			if s == rayHit {
				hits++
			}
		}
	}
}

// occludedBatchAVX2 is OccludedBatch on the BLAS of in through
// batchOccludeAVX2, as intersectBatchAVX2.
func (in *instance) occludedBatchAVX2(rays []Ray, occluded []bool, alone func(i int) bool) {
	res := batchResultsPool.Get().(*batchResults)
	defer batchResultsPool.Put(res)
	q, obj := res.query(in, rays, false)
	batchOccludeAVX2(&q)
	res.walkNotFinite(&q, obj, true)
	res.occluded(occluded, alone)
}

// walkNotFinite walks the rays of q (rays, as the walks take them) that
// its batch walks answered rayNotFinite, those whose inverse direction
// has infinite components, in a batch of their own through the NaN walks
// (batchWalkNaNAVX2, or batchOccludeNaNAVX2 for occlusion and first-hit
// queries, q.first), and puts their answers in res: interleaved as the
// others are, where each went to the one-call NaN query before
// (BenchmarkHeightQueries' batches straight down 1.4x on the 100k
// terrain, 1.9x on the 1M, three rounds alternated).
func (res *batchResults) walkNotFinite(q *batchQuery, rays []Ray, occlusion bool) {
	which := res.which[:0]
	for i, s := range res.status {
		if s == rayNotFinite {
			which = append(which, int32(i))
		}
	}
	res.which = which
	if len(which) == 0 {
		return
	}
	sub := batchResultsPool.Get().(*batchResults)
	defer batchResultsPool.Put(sub)
	n := len(which)
	if cap(sub.rays) < n {
		sub.rays = make([]Ray, n)
	}
	if cap(sub.status) < n {
		sub.status, sub.hits = make([]uint8, n), make([]fastHit, n)
	}
	sub.rays, sub.status, sub.hits = sub.rays[:n], sub.status[:n], sub.hits[:n]
	for k, i := range which {
		sub.rays[k] = rays[i]
	}
	sq := *q
	sq.rays, sq.n, sq.next, sq.steps = unsafe.SliceData(sub.rays), n, 0, 0
	sq.status, sq.hits = unsafe.SliceData(sub.status), unsafe.SliceData(sub.hits)
	if occlusion || q.first {
		batchOccludeNaNAVX2(&sq)
	} else {
		batchWalkNaNAVX2(&sq)
	}
	for k, i := range which {
		res.status[i], res.hits[i] = sub.status[k], sub.hits[k]
	}
}

// occluded writes the answers of an occlusion batch to occluded, with
// alone(i) for the rays the assembly left to Go.
func (res *batchResults) occluded(occluded []bool, alone func(i int) bool) {
	for i, s := range res.status {
		switch s {
		case rayMiss:
			occluded[i] = false
		case rayHit:
			occluded[i] = true
		default:
			occluded[i] = alone(i)
		}
	}
}

// intersected writes the answers of a closest-hit batch to hits and
// found: hit(i) builds ray i's hit from res.hits[i], alone(i) traces a ray
// the assembly left to Go.
func (res *batchResults) intersected(hits []Hit, found []bool, hit func(i int), alone func(i int)) {
	for i, s := range res.status {
		switch s {
		case rayMiss:
			hits[i], found[i] = Hit{}, false
		case rayHit:
			hit(i)
			found[i] = true
		case rayGoMust, rayNotFinite:
			alone(i)
		}
	}
}

// soleInstance returns t's only instance when t's batches may run as its
// BLAS's on the rays in its object space (soleQuery) and that BLAS's
// batches interleave in assembly; else nil.
func (t *TLAS) soleInstance(flags RayFlags, mask uint8) *instance {
	if flags&fastUnsupported != 0 {
		return nil
	}
	in := t.soleQuery(mask)
	if in == nil || !in.blas.interleaves() {
		return nil
	}
	return in
}

// placed returns rays in the object space of in, in res's buffer.
func (res *batchResults) placed(rays []Ray, in *instance) []Ray {
	if cap(res.rays) < len(rays) {
		res.rays = make([]Ray, len(rays))
	}
	obj := res.rays[:len(rays)]
	m := &in.worldToObject
	for i := range rays {
		r := &rays[i]
		obj[i] = Ray{Origin: m.TransformPoint(r.Origin), TMin: r.TMin, Direction: m.TransformVector(r.Direction), TMax: r.TMax}
	}
	return obj
}

// batchMode selects the walk of a batch.
type batchMode int

const (
	batchClosest  batchMode = iota // closest hit
	batchFirst                     // the occlusion walk's hit (ACCEPT_FIRST_HIT_AND_END_SEARCH: firstHit)
	batchOccluded                  // any hit
)

// step advances w by one node or leaf and reports whether its walk goes
// on. The steps are direct calls: a function value here cost 10-20% on
// scenes that fit in the caches.
func (b *BLAS) step(w *batchWalk, mode batchMode) bool {
	switch {
	case mode != batchClosest && useSIMD:
		return b.stepOccludedSIMD(w, mode == batchFirst)
	case mode != batchClosest:
		return b.stepOccluded(w, mode == batchFirst)
	case useSIMD:
		return b.stepClosestSIMD(w)
	}
	return b.stepClosest(w)
}

// runBatch keeps the lanes busy: it fills them with start, advances each
// in turn until its walk ends, then hands it to finish and refills it.
func (b *BLAS) runBatch(lanes *[batchLanes]batchWalk, mode batchMode, start func(*batchWalk) bool, finish func(*batchWalk)) {
	var live uint // bit per lane with a walk in flight
	for i := range lanes {
		if !start(&lanes[i]) {
			break
		}
		live |= 1 << i
	}
	for live != 0 {
		for m := live; m != 0; m &= m - 1 {
			i := bits.TrailingZeros(m)
			w := &lanes[i%batchLanes]
			if b.step(w, mode) {
				continue
			}
			finish(w)
			if !start(w) {
				live &^= 1 << i
			}
		}
	}
}

// stepClosest runs one node or leaf of w's closest-hit walk, as one turn
// of walkFiniteOn's loop, and reports whether the walk goes on.
func (b *BLAS) stepClosest(w *batchWalk) bool {
	cur, sp, tm := w.cur, w.sp, w.tMax
	if !isLeafRef(cur.node) {
		if sp > batchStackLimit {
			w.overflow = true
			return false
		}
		n := &b.wide[cur.node]
		var near wideRow
		if mask := w.o.rb.hitWide(n, w.tMin, tm, &near); mask != 0 {
			i0 := bits.TrailingZeros(mask)
			m := mask & (mask - 1)
			if m == 0 {
				cur = stackEntry{n.ref[i0&wideMask], near[i0&wideMask]}
			} else if i1 := bits.TrailingZeros(m); m&(m-1) == 0 {
				a, c := stackEntry{n.ref[i0&wideMask], near[i0&wideMask]}, stackEntry{n.ref[i1&wideMask], near[i1&wideMask]}
				if c.near < a.near {
					a, c = c, a
				}
				w.stack[sp] = c
				prefetchChild(b.wide, b.leafLines(), c.node)
				sp++
				cur = a
			} else {
				base := sp
				sp = pushSorted(n, mask, &near, w.stack[:], sp) - 1
				cur = w.stack[sp]
				for j := base; j < sp; j++ {
					prefetchChild(b.wide, b.leafLines(), w.stack[j].node)
				}
			}
			if cur.near <= tm {
				prefetchChild(b.wide, b.leafLines(), cur.node)
				w.cur, w.sp = cur, sp
				return true
			}
			w.sp = sp
		}
	} else {
		lo, hi := leafRange(cur.node)
		var lh leafHits
		cand, edge := b.leafScan(w.o.tri(), lo, hi, w.tMin, tm, &lh)
		for m := cand; m != 0; m &= m - 1 {
			k := bits.TrailingZeros(m)
			s := lo + uint32(k)
			var t, u, v float32
			var front, ok bool
			if edge&(1<<k) != 0 {
				t, u, v, front, ok = w.o.tri().intersect(&b.tris[s], w.tMin, tm)
			} else {
				t, u, v, front, ok = lh.hit(k, w.tMin, tm)
			}
			if !ok {
				continue
			}
			tm = t
			w.h = fastHit{t, u, v, s, front, b.primID(s)}
			w.found = true
		}
		w.tMax = tm
	}
	return w.pop()
}

// pop takes the next stack entry that can still hold a closer hit into
// w.cur, or reports that the walk is over.
func (w *batchWalk) pop() bool {
	for sp := w.sp; sp > 0; {
		sp--
		if cur := w.stack[sp]; cur.near <= w.tMax {
			w.cur, w.sp = cur, sp
			return true
		}
	}
	return false
}

// stepOccluded runs one node or leaf of w's occlusion walk, as one turn of
// occludesFinite's loop, and reports whether the walk goes on.
func (b *BLAS) stepOccluded(w *batchWalk, record bool) bool {
	cur := w.cur.node
	if !isLeafRef(cur) {
		if w.sp > batchStackLimit {
			w.overflow = true
			return false
		}
		n := &b.wide[cur]
		var near, far wideRow
		if mask := w.o.rb.hitWideSpans(n, w.tMin, w.tMax, &near, &far); mask != 0 {
			take := reachChild(mask, &near, &far)
			for m := mask &^ (1 << take); m != 0; {
				var i int
				i, m = lastSlot(m)
				w.stack[w.sp] = stackEntry{node: n.ref[i&wideMask]}
				prefetchChild(b.wide, b.leafLines(), w.stack[w.sp].node)
				w.sp++
			}
			w.cur.node = n.ref[take]
			prefetchChild(b.wide, b.leafLines(), w.cur.node)
			return true
		}
	} else {
		lo, hi := leafRange(cur)
		var lh leafHits
		cand, edge := b.leafScan(w.o.tri(), lo, hi, w.tMin, w.tMax, &lh)
		if w.occludeLeaf(b, lo, cand, edge, &lh, record) {
			return false
		}
	}
	if w.sp == 0 {
		return false
	}
	w.sp--
	w.cur = w.stack[w.sp]
	return true
}

// occludeLeaf is the leaf step of w's occlusion walk on a leaf test's
// candidates (leafOccludes), committing the hit it stops at into w.h with
// record (batchFirst); it reports whether the walk has its answer.
func (w *batchWalk) occludeLeaf(b *BLAS, lo uint32, cand, edge uint, lh *leafHits, record bool) bool {
	var h *fastHit
	if record {
		h = &w.h
	}
	if !leafOccludes(b, w.o.tri(), lo, cand, edge, lh, w.tMin, w.tMax, h) {
		return false
	}
	w.found = true
	if record {
		w.tMax = w.h.t
	}
	return true
}

// traversalBytes is what a walk of b may read: wide nodes and triangles.
func (b *BLAS) traversalBytes() uint64 {
	return sliceBytes(b.wide, false) + sliceBytes(b.tris, false) + sliceBytes(b.rows, false)
}

// deriveBLASBytes recomputes blasBytes, the traversal footprint of the
// distinct triangle BLASes of t's active instances, after a build, update
// or deserialization.
func (t *TLAS) deriveBLASBytes() {
	t.blasBytes = 0
	seen := make(map[*BLAS]bool)
	var last *BLAS // instances of one BLAS often come in runs: no lookup for those
	for i := range t.instances {
		in := &t.instances[i]
		if !in.active() || in.blas == last || in.blas.typ != GeometryTriangles || seen[in.blas] {
			continue
		}
		seen[in.blas], last = true, in.blas
		t.blasBytes += in.blas.traversalBytes()
	}
}

// tlasWalk is one in-flight ray of a TLAS batch: its top-level walk, and
// the bottom-level walk in flight (w) when inBLAS.
type tlasWalk struct {
	ray    int
	r      Ray
	world  rayBox
	tMax   float32 // the closest hit so far
	inBLAS bool
	inst   uint32 // instance of the bottom-level walk
	w      batchWalk
	// The closest hit so far: its object-space ray, instance and hit.
	best    objectRay
	bestIdx uint32
	h       fastHit
	// overflow: the top-level stack would overflow; the ray is traced
	// again alone.
	overflow bool
	sp       int
	stack    [smallStack]stackEntry
}

// IntersectBatch stores Intersect(rays[i], flags, mask) in hits[i] and
// found[i] for every ray. Like BLAS.IntersectBatch it interleaves the walks
// of several rays when the scene's bottom-level structures are larger than
// the caches, and gives Intersect's answers bit for bit. hits and found
// must be at least as long as rays (else an *InputError).
func (t *TLAS) IntersectBatch(rays []Ray, flags RayFlags, mask uint32, hits []Hit, found []bool) error {
	if len(hits) < len(rays) || len(found) < len(rays) {
		return inputErr("IntersectBatch", "hits, found", "%d rays need as many hit and found slots (have %d and %d)", len(rays), len(hits), len(found))
	}
	if in := t.soleInstance(flags, uint8(mask)); in != nil {
		flags |= RayFlagSkipProceduralPrimitives
		in.intersectBatchAVX2(rays, flags, hits, found, func(i int) { hits[i], found[i] = t.Intersect(rays[i], flags, mask) })
		return nil
	}
	if flags&fastUnsupported != 0 || t == nil || t.blasBytes < uint64(batchMinBytes) || coherent(rays) {
		for i := range rays {
			found[i] = t.IntersectTo(&rays[i], flags, mask, &hits[i])
		}
		return nil
	}
	flags |= RayFlagSkipProceduralPrimitives
	mode := batchClosest
	if flags&RayFlagAcceptFirstHitAndEndSearch != 0 {
		mode = batchFirst
	}
	t.runBatch(rays, mode, uint8(mask), func(l *tlasWalk) {
		switch {
		case l.overflow:
			hits[l.ray], found[l.ray] = t.Intersect(l.r, flags, mask)
		case l.bestIdx != ^uint32(0):
			setHit(&hits[l.ray], &t.instances[l.bestIdx], l.bestIdx, &l.best.org, &l.best.dir, &l.h, flags)
			found[l.ray] = true
		default:
			hits[l.ray], found[l.ray] = Hit{}, false
		}
	})
	return nil
}

// OccludedBatch stores Occluded(rays[i], flags, mask) in occluded[i] for
// every ray. occluded must be at least as long as rays (else an
// *InputError).
func (t *TLAS) OccludedBatch(rays []Ray, flags RayFlags, mask uint32, occluded []bool) error {
	if len(occluded) < len(rays) {
		return inputErr("OccludedBatch", "occluded", "%d rays need as many results (have %d)", len(rays), len(occluded))
	}
	if in := t.soleInstance(flags, uint8(mask)); in != nil {
		in.occludedBatchAVX2(rays, occluded, func(i int) bool { return t.Occluded(rays[i], flags, mask) })
		return nil
	}
	if flags&fastUnsupported != 0 || t == nil || t.blasBytes < uint64(batchMinBytes) || coherent(rays) {
		for i := range rays {
			occluded[i] = t.Occluded(rays[i], flags, mask)
		}
		return nil
	}
	t.runBatch(rays, batchOccluded, uint8(mask), func(l *tlasWalk) {
		if l.overflow {
			occluded[l.ray] = t.firstHit(&l.r, uint8(mask), nil)
		} else {
			occluded[l.ray] = l.bestIdx != ^uint32(0)
		}
	})
	return nil
}

// runBatch walks rays on batchLanes lanes, as BLAS.runBatch, handing each
// finished ray to finish.
func (t *TLAS) runBatch(rays []Ray, mode batchMode, mask uint8, finish func(*tlasWalk)) {
	lanes := tlasLanes.Get().(*[batchLanes]tlasWalk)
	defer tlasLanes.Put(lanes)
	next := 0
	// start begins the next ray on l and runs its top-level walk to its
	// first bottom-level walk; rays that end before are finished here.
	start := func(l *tlasWalk) bool {
		for next < len(rays) {
			l.ray, l.r = next, rays[next]
			next++
			l.bestIdx, l.overflow, l.inBLAS = ^uint32(0), false, false
			r := &l.r
			if r.TMin > r.TMax || t.nodes[0].bounds.IsEmpty() || !rayUsable(r) {
				finish(l)
				continue
			}
			l.world.setup(r.Origin, r.Direction)
			l.tMax = r.TMax
			l.sp = 0
			if _, ok := l.world.hit(&t.nodes[0].bounds, r.TMin, r.TMax); ok || mode == batchClosest {
				l.stack[0] = stackEntry{0, r.TMin}
				l.sp = 1
			}
			if t.advance(l, mode, mask) {
				return true
			}
			finish(l)
		}
		return false
	}
	var live uint
	for i := range lanes {
		if !start(&lanes[i]) {
			break
		}
		live |= 1 << i
	}
	for live != 0 {
		for m := live; m != 0; m &= m - 1 {
			i := bits.TrailingZeros(m)
			l := &lanes[i%batchLanes]
			in := &t.instances[l.inst]
			if in.blas.step(&l.w, mode) {
				continue
			}
			if t.endBLAS(l, in, mode) && t.advance(l, mode, mask) {
				continue
			}
			finish(l)
			if !start(l) {
				live &^= 1 << i
			}
		}
	}
}

// endBLAS takes the result of l's bottom-level walk in instance in and
// reports whether the top-level walk goes on.
func (t *TLAS) endBLAS(l *tlasWalk, in *instance, mode batchMode) bool {
	l.inBLAS = false
	w := &l.w
	if w.overflow {
		// Walk this instance again alone, from where the top level was.
		var h fastHit
		if mode == batchOccluded {
			w.found = in.blas.occludes(&w.o, l.r.TMin, l.tMax)
		} else {
			w.found = in.blas.walk(&w.o, l.r.TMin, &l.tMax, mode == batchFirst, &h)
			w.h, w.tMax = h, l.tMax
		}
	}
	if !w.found {
		return true
	}
	l.best, l.bestIdx, l.h, l.tMax = w.o, l.inst, w.h, w.tMax
	return mode != batchOccluded && mode != batchFirst
}

// advance runs l's top-level walk (TLAS.Intersect's loop, or firstHit's)
// until it starts a bottom-level walk, which it leaves in flight in l.w,
// or ends; it reports whether a bottom-level walk is in flight. Instances
// whose object-space ray needs the general walk are walked here, alone.
func (t *TLAS) advance(l *tlasWalk, mode batchMode, mask uint8) bool {
	r := &l.r
	for l.sp > 0 {
		l.sp--
		e := l.stack[l.sp]
		if mode == batchClosest && e.near > l.tMax {
			continue
		}
		if !isLeafRef(e.node) {
			if l.sp+1 > batchStackLimit { // Intersect's sp+wideWidth > len(stack)
				l.overflow = true
				return false
			}
			if mode != batchClosest {
				n := &t.wide[e.node]
				if mw, take := l.world.occlusionPick(n, r.TMin, r.TMax); mw != 0 {
					// occludedOn takes that child next and stacks the
					// others: the same order on this stack.
					for m := mw &^ (1 << take); m != 0; {
						var i int
						i, m = lastSlot(m)
						l.stack[l.sp] = stackEntry{node: n.ref[i&wideMask]}
						l.sp++
					}
					l.stack[l.sp] = stackEntry{node: n.ref[take]}
					l.sp++
				}
			} else {
				l.sp = l.world.pushChildren(&t.wide[e.node], r.TMin, l.tMax, l.stack[:], l.sp)
			}
			continue
		}
		leaf, _ := leafRange(e.node)
		idx := t.order[leaf]
		in := &t.instances[idx]
		if in.mask&mask == 0 || in.blas.typ != GeometryTriangles {
			continue
		}
		w := &l.w
		w.o.setup(in, r)
		near, ok := w.o.rb.hit(&in.blas.nodes[0].bounds, r.TMin, l.tMax)
		if !ok || mode == batchClosest && near > l.tMax {
			continue
		}
		l.inst = idx
		if !w.o.rb.finite {
			w.overflow = true // walked alone by endBLAS
			if t.endBLAS(l, in, mode) {
				continue
			}
			return false
		}
		w.tMin, w.tMax, w.found, w.overflow = r.TMin, l.tMax, false, false
		w.cur, w.sp = stackEntry{0, near}, 0
		if mode != batchClosest {
			w.cur = stackEntry{}
		}
		if useSIMD {
			w.q.init(&w.o.rb, r.TMin)
		}
		l.inBLAS = true
		return true
	}
	return false
}
