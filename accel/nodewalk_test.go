package accel

import (
	"maps"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/vec"
)

// goNodeStep is the inner-node step of walkFiniteOn's Go loop (the slabAsm
// one), as the loop writes it: the children of n hit over [tMin, tm], the
// nearest one as cur and the others pushed onto stack[sp:]. ok says
// whether cur passes the loop's cur.near <= tm check; with no child hit
// it is false and cur the zero entry.
func goNodeStep(n *wideNode, q *slabRay, tMin, tm float32, stack []stackEntry, sp int) (cur stackEntry, newSp int, ok bool) {
	var near wideRow
	mask := slabTest(n, q, tMin, tm, &near)
	if mask == 0 {
		return stackEntry{}, sp, false
	}
	i0 := bits.TrailingZeros(mask)
	m := mask & (mask - 1)
	if m == 0 {
		cur = stackEntry{n.ref[i0&wideMask], near[i0&wideMask]}
	} else if i1 := bits.TrailingZeros(m); m&(m-1) == 0 {
		a, c := stackEntry{n.ref[i0&wideMask], near[i0&wideMask]}, stackEntry{n.ref[i1&wideMask], near[i1&wideMask]}
		if c.near < a.near {
			a, c = c, a
		}
		stack[sp] = c
		sp++
		cur = a
	} else {
		sp = pushSorted(n, mask, &near, stack, sp) - 1
		cur = stack[sp]
	}
	return cur, sp, cur.near <= tm
}

// goPop is the pop loop of walkFiniteOn: the first entry from the top
// that passes the cur.near <= tm check, or ok false on an empty stack.
func goPop(stack []stackEntry, sp int, tm float32) (cur stackEntry, newSp int, ok bool) {
	for sp > 0 {
		sp--
		if cur = stack[sp]; cur.near <= tm {
			return cur, sp, true
		}
	}
	return stackEntry{}, 0, false
}

// goNodeWalk is what nodeWalk does, with the Go loop's step and pop.
func goNodeWalk(wide []wideNode, q *slabRay, tMin, tm float32, stack []stackEntry, limit int, cur stackEntry, sp int) (stackEntry, int, bool) {
	for {
		if isLeafRef(cur.node) || int(cur.node) >= len(wide) || sp > limit {
			return cur, sp, true
		}
		var ok bool
		if cur, sp, ok = goNodeStep(&wide[cur.node], q, tMin, tm, stack, sp); ok {
			continue
		}
		if cur, sp, ok = goPop(stack, sp, tm); !ok {
			return cur, sp, false
		}
	}
}

// goOccludeWalk is what occludeWalk does, with occludesFiniteOn's step
// and pop.
func goOccludeWalk(wide []wideNode, q *slabRay, tMin, tMax float32, stack []uint32, limit int, cur uint32, sp int) (uint32, int, bool) {
	for {
		if isLeafRef(cur) || int(cur) >= len(wide) || sp > limit {
			return cur, sp, true
		}
		n := &wide[cur]
		var near, far wideRow
		if mask := slabTestSpans(n, q, tMin, tMax, &near, &far); mask != 0 {
			take := reachChild(mask, &near, &far)
			for m := mask &^ (1 << take); m != 0; {
				var i int
				i, m = lastSlot(m)
				stack[sp] = n.ref[i&wideMask]
				sp++
			}
			cur = n.ref[take]
			continue
		}
		if sp == 0 {
			return 0, 0, false
		}
		sp--
		cur = stack[sp]
	}
}

func sameEntry(a, b stackEntry) bool {
	return a.node == b.node && math.Float32bits(a.near) == math.Float32bits(b.near)
}

// TestNodeWalkMatchesGo runs nodeWalk and occludeWalk (and walkAVX2,
// where the processor has AVX2) on random single nodes of 1 to 8
// children (boxes as in TestSlabTestMatchesScalarLoop: lattice values for
// exact ties, flat and huge boxes), random stacks under them and random
// limits, and compares cur, the stack height and the whole stack, bit for
// bit, with the Go loops' steps and pops (walkFiniteOn's and
// occludesFiniteOn's). The children are leaves or inner
// nodes past the end of the node slice, so that nodeWalk returns after one
// step, at the first entry that passes the check.
func TestNodeWalkMatchesGo(t *testing.T) {
	if !slabAsm {
		t.Skip("no assembly node walk on this architecture")
	}
	rng := rand.New(rand.NewPCG(43, 44))
	comp := func() float32 {
		switch rng.IntN(8) {
		case 0:
			return 0
		case 1, 2:
			return float32(rng.IntN(5) - 2)
		case 3:
			return float32((rng.Float64()*2 - 1) * 1e30)
		default:
			return float32(rng.Float64()*4 - 2)
		}
	}
	dirComp := func() float32 {
		for {
			x := comp()
			if rng.IntN(6) == 0 {
				x = float32(rng.Float64()*2-1) * 1e-30
			}
			if x != 0 && !math.IsInf(float64(1/x), 0) {
				return x
			}
		}
	}
	ref := func() uint32 {
		if rng.IntN(3) == 0 {
			return uint32(1 + rng.IntN(1000)) // an inner node nodeWalk leaves to Go
		}
		return leafRef(uint32(rng.IntN(1000)), uint32(1+rng.IntN(maxLeafCount)))
	}
	leaves := make([]float32, rowsPerSlot*1008)
	wide := make([]wideNode, 1)
	const size = 40
	var stackA, stackG [size]stackEntry
	counts := map[int]int{}
	for iter := 0; iter < 200000; iter++ {
		org, dir := vec.V3(comp(), comp(), comp()), vec.V3(dirComp(), dirComp(), dirComp())
		var r rayBox
		r.setup(org, dir)
		if !r.finite {
			continue
		}
		n := &wide[0]
		n.clear()
		kids := 1 + rng.IntN(wideWidth)
		onRay := rng.IntN(2) == 0 // boxes around points of the ray: many hits
		var box AABB
		for i := 0; i < kids; i++ {
			switch {
			case i > 0 && rng.IntN(4) == 0:
				// the previous box again: equal entry distances
			case onRay:
				p := org.Add(dir.Scale(float32(rng.IntN(4)) * float32(rng.Float64())))
				e := func() vec.Vec3 {
					s := float32(rng.IntN(3)) * float32(rng.Float64())
					return vec.V3(s, s, s)
				}
				box = AABB{p.Sub(e()), p.Add(e())}
			default:
				a, b := vec.V3(comp(), comp(), comp()), vec.V3(comp(), comp(), comp())
				box = AABB{a.Min(b), a.Max(b)}
			}
			n.set(i, &box, ref())
		}
		n.n = uint32(kids)
		r.slab.init(&r)
		tMin := max(0, comp())
		tMax := tMin + float32(rng.IntN(3))*float32(rng.Float64()*10)
		if rng.IntN(4) == 0 {
			tMax = float32(math.Inf(1))
		}
		sp := rng.IntN(size - wideWidth + 1)
		for i := range stackA {
			e := stackEntry{ref(), tMin + float32(rng.IntN(4))*float32(rng.Float64()*10)}
			if rng.IntN(8) == 0 {
				e.near = float32(rng.IntN(3)) // ties with lattice boxes
			}
			stackA[i], stackG[i] = e, e
		}
		limit := size - wideWidth
		switch rng.IntN(16) {
		case 0, 1:
			limit = rng.IntN(size - wideWidth + 1)
		case 2:
			limit = -1 - rng.IntN(wideWidth) // a stack shorter than a node's children
		}
		cur := stackEntry{0, tMin}
		stackF := stackA // for walkAVX2
		stackV := stackA // for nodeWalkAVX2
		wc, wsp, wok := goNodeWalk(wide, &r.slab, tMin, tMax, stackG[:], limit, cur, sp)
		if haveAVX2 {
			// walkAVX2, without a triangle test set up, stops where
			// nodeWalk does; above the live stack it may leave junk.
			arrays := blasArrays{wide: unsafe.Pointer(&wide[0]), nwide: len(wide), rows: unsafe.Pointer(&leaves[0]), nrows: len(leaves)}
			fw := fusedWalk{blasArrays: arrays, slab: &r.slab, stack: unsafe.Pointer(&stackF[0]), limit: limit,
				tMin: tMin, tMax: tMax, cur: cur, sp: sp}
			more := walkAVX2(&fw)
			if more != wok || wok && (fw.sp != wsp || !sameEntry(fw.cur, wc)) {
				t.Fatalf("iteration %d: walkAVX2 got %v %d %v, want %v %d %v (node %+v, ray %+v, tMin %g, tMax %g, sp %d, limit %d)",
					iter, fw.cur, fw.sp, more, wc, wsp, wok, *n, r, tMin, tMax, sp, limit)
			}
			for i := 0; wok && i < wsp; i++ {
				if !sameEntry(stackF[i], stackG[i]) {
					t.Fatalf("iteration %d: walkAVX2 stack[%d] = %v, want %v (sp %d)", iter, i, stackF[i], stackG[i], sp)
				}
			}
		}
		gc, gsp, gok := nodeWalk(unsafe.Pointer(&wide[0]), len(wide), &r.slab, tMin, tMax,
			unsafe.Pointer(&leaves[0]), &stackA[0], limit, cur, sp)
		if gok != wok || gsp != wsp || (wok && !sameEntry(gc, wc)) {
			t.Fatalf("iteration %d: got %v %d %v, want %v %d %v (node %+v, ray %+v, tMin %g, tMax %g, sp %d, limit %d)",
				iter, gc, gsp, gok, wc, wsp, wok, *n, r, tMin, tMax, sp, limit)
		}
		for i := range stackA {
			if !sameEntry(stackA[i], stackG[i]) {
				t.Fatalf("iteration %d: stack[%d] = %v, want %v (sp %d)", iter, i, stackA[i], stackG[i], sp)
			}
		}
		if haveAVX2 {
			vc, vsp, vok := nodeWalkAVX2(unsafe.Pointer(&wide[0]), len(wide), &r.slab, tMin, tMax,
				unsafe.Pointer(&leaves[0]), &stackV[0], limit, cur, sp)
			if vok != wok || vsp != wsp || (wok && !sameEntry(vc, wc)) {
				t.Fatalf("iteration %d: nodeWalkAVX2 got %v %d %v, want %v %d %v (node %+v, ray %+v, tMin %g, tMax %g, sp %d, limit %d)",
					iter, vc, vsp, vok, wc, wsp, wok, *n, r, tMin, tMax, sp, limit)
			}
			if stackV != stackG {
				for i := range stackV {
					if !sameEntry(stackV[i], stackG[i]) {
						t.Fatalf("iteration %d: nodeWalkAVX2 stack[%d] = %v, want %v (sp %d)", iter, i, stackV[i], stackG[i], sp)
					}
				}
			}
		}
		// The occlusion walk on the same node: its stack holds references.
		var occA, occG [size]uint32
		for i := range occA {
			occA[i], occG[i] = stackA[i].node, stackA[i].node
		}
		olimit := limit + 1 // occludesFiniteOn leaves room for wideWidth-1
		wo, wosp, wook := goOccludeWalk(wide, &r.slab, tMin, tMax, occG[:], olimit, 0, sp)
		go_, gosp, gook := occludeWalk(unsafe.Pointer(&wide[0]), len(wide), &r.slab, tMin, tMax,
			unsafe.Pointer(&leaves[0]), &occA[0], olimit, 0, sp)
		if gook != wook || gosp != wosp || (wook && go_ != wo) || occA != occG {
			t.Fatalf("iteration %d: occludeWalk got %v %d %v, want %v %d %v (stacks %v, want %v)",
				iter, go_, gosp, gook, wo, wosp, wook, occA, occG)
		}
		if haveAVX2 {
			// occludeAVX2, without a triangle test set up, stops where
			// occludeWalk does. It stores all eight references of a
			// node at once, so its limit is a slot lower, as in
			// occludesFiniteOn (compared where that slot makes no
			// difference), and it may leave junk above the stack.
			var occF [size]uint32
			for i := range occF {
				occF[i] = stackA[i].node
			}
			arrays := blasArrays{wide: unsafe.Pointer(&wide[0]), nwide: len(wide), rows: unsafe.Pointer(&leaves[0]), nrows: len(leaves)}
			fw := fusedWalk{blasArrays: arrays, slab: &r.slab, stack: unsafe.Pointer(&occF[0]), limit: limit,
				tMin: tMin, tMax: tMax, sp: sp, compress: &compressSlots}
			more := occludeAVX2(&fw)
			same := sp <= limit
			if same && (more != wook || wook && (fw.sp != wosp || fw.cur.node != wo)) {
				t.Fatalf("iteration %d: occludeAVX2 got %v %d %v, want %v %d %v", iter, fw.cur.node, fw.sp, more, wo, wosp, wook)
			}
			for i := 0; same && wook && i < wosp; i++ {
				if occF[i] != occG[i] {
					t.Fatalf("iteration %d: occludeAVX2 stack[%d] = %v, want %v (sp %d)", iter, i, occF[i], occG[i], wosp)
				}
			}
		}
		counts[bits.OnesCount(uint(slabTest(n, &r.slab, tMin, tMax, new(wideRow))))]++
	}
	for k := 0; k <= wideWidth; k++ {
		if counts[k] < 500 {
			t.Errorf("only %d nodes with %d children hit", counts[k], k)
		}
	}
}

// walkEvent is where a walk reached a leaf, or stopped at an inner node
// with the stack too full: the entry and the stack under it.
type walkEvent struct {
	cur   stackEntry
	stack []stackEntry
}

// leafWalk runs walkFiniteOn's loop on b for r over [tMin, tMax] without
// testing triangles, up to an inner node that could overflow stack: at
// each leaf (and there) it records the entry and the stack and
// shrinks tMax as a hit there might (on a hash of the leaf), so that later
// pops skip entries. With asm the inner nodes are walked by nodeWalk, else
// by the Go loop's step and pop.
func leafWalk(b *BLAS, r *rayBox, tMin, tMax float32, rootNear float32, asm bool, stack []stackEntry) []walkEvent {
	var out []walkEvent
	cur, sp := stackEntry{0, rootNear}, 0
	limit := len(stack) - wideWidth
	for {
		var ok bool
		if asm {
			cur, sp, ok = nodeWalk(unsafe.Pointer(&b.wide[0]), len(b.wide), &r.slab, tMin, tMax,
				b.leafLines(), &stack[0], limit, cur, sp)
		} else {
			cur, sp, ok = goNodeWalk(b.wide, &r.slab, tMin, tMax, stack, limit, cur, sp)
		}
		if !ok {
			return out
		}
		out = append(out, walkEvent{cur, append([]stackEntry(nil), stack[:sp]...)})
		if !isLeafRef(cur.node) {
			return out // where walkFiniteOn would go on on a larger stack
		}
		if h := cur.node * 0x9e3779b9; h>>29 < 3 {
			tMax = cur.near + (tMax-cur.near)*float32(h>>20&255)/256
		}
		if cur, sp, ok = goPop(stack, sp, tMax); !ok {
			return out
		}
	}
}

// occludeLeafWalk is leafWalk for occludesFiniteOn's loop: with asm the
// inner nodes are walked by occludeWalk, else by the Go loop's step and
// pop. It records every leaf, and where it stops at an inner node, with
// the stack under it.
func occludeLeafWalk(b *BLAS, r *rayBox, tMin, tMax float32, asm bool, stack []uint32) [][]uint32 {
	var out [][]uint32
	cur, sp := uint32(0), 0
	limit := len(stack) - (wideWidth - 1)
	for {
		var ok bool
		if asm {
			cur, sp, ok = occludeWalk(unsafe.Pointer(&b.wide[0]), len(b.wide), &r.slab, tMin, tMax,
				b.leafLines(), &stack[0], limit, cur, sp)
		} else {
			cur, sp, ok = goOccludeWalk(b.wide, &r.slab, tMin, tMax, stack, limit, cur, sp)
		}
		if !ok {
			return out
		}
		out = append(out, append([]uint32{cur}, stack[:sp]...))
		if !isLeafRef(cur) || sp == 0 {
			return out
		}
		sp--
		cur = stack[sp]
	}
}

// nodeWalkRays returns rays at the bounds of pos: random ones, rays along
// (and nearly along) the axes and diagonals, from inside and outside,
// some with a finite tMax.
func nodeWalkRays(rng *rand.Rand, pos []vec.Vec3, n int) []Ray {
	var lo, hi vec.Vec3 = pos[0], pos[0]
	for _, p := range pos {
		lo, hi = lo.Min(p), hi.Max(p)
	}
	ext := hi.Sub(lo)
	point := func(s float32) vec.Vec3 {
		u := func() float32 { return float32(rng.Float64())*(1+2*s) - s }
		return vec.V3(lo.X+ext.X*u(), lo.Y+ext.Y*u(), lo.Z+ext.Z*u())
	}
	rays := make([]Ray, n)
	for i := range rays {
		o := point(0.5)
		var d vec.Vec3
		switch i % 6 {
		case 0, 1: // through a point of the scene
			d = point(0).Sub(o)
		case 2: // along an axis, possibly with tiny other components
			c := [3]float32{}
			c[rng.IntN(3)] = float32(1 - 2*rng.IntN(2))
			for k := range c {
				if c[k] == 0 && rng.IntN(2) == 0 {
					c[k] = float32(rng.Float64()*2-1) * 1e-30
				}
			}
			d = vec.V3(c[0], c[1], c[2])
		case 3: // a diagonal: equal slab distances
			d = vec.V3(float32(1-2*rng.IntN(2)), float32(1-2*rng.IntN(2)), float32(1-2*rng.IntN(2)))
		case 4: // lattice directions and origins: ties
			o = vec.V3(float32(math.Round(float64(o.X))), float32(math.Round(float64(o.Y))), float32(math.Round(float64(o.Z))))
			d = vec.V3(float32(rng.IntN(5)-2), float32(rng.IntN(5)-2), float32(rng.IntN(3)-1))
		default:
			d = vec.V3(float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64()))
		}
		if d == (vec.Vec3{}) {
			d = vec.V3(0, 0, -1)
		}
		rays[i] = Ray{Origin: o, Direction: d, TMax: float32(math.Inf(1))}
		if i%5 == 0 {
			rays[i].TMax = float32(rng.Float64()) * ext.Len()
		}
		if i%9 == 0 {
			rays[i].TMin = float32(rng.Float64()) * ext.Len() / 4
		}
	}
	return rays
}

type nodeWalkScene struct {
	b   *BLAS
	pos []vec.Vec3
}

// nodeWalkScenes returns the terrain and soup of meshgen, 20000 triangles
// each.
func nodeWalkScenes(t *testing.T) map[string]nodeWalkScene {
	tp, ti := meshgen.Terrain(20000, 7)
	sp, si := meshgen.Soup(20000, 7)
	return map[string]nodeWalkScene{
		"terrain": {mustBLAS(t, []Geometry{TriangleGeometry(tp, ti)}, BuildPreferFastTrace), tp},
		"soup":    {mustBLAS(t, []Geometry{TriangleGeometry(sp, si)}, 0), sp},
	}
}

// TestNodeWalkTrees walks real trees (terrain and soup from meshgen) with
// nodeWalk and occludeWalk and with the Go loops' steps and pops, and
// compares every leaf reached, with the whole stack under it, bit for bit,
// on full and on small stacks (where the assembly leaves the nodes past
// its limit to Go).
func TestNodeWalkTrees(t *testing.T) {
	if !slabAsm {
		t.Skip("no assembly node walk on this architecture")
	}
	rng := rand.New(rand.NewPCG(45, 46))
	for name, sc := range nodeWalkScenes(t) {
		b, pos := sc.b, sc.pos
		leaves := 0
		for _, ray := range nodeWalkRays(rng, pos, 8000) {
			var r rayBox
			r.setup(ray.Origin, ray.Direction)
			if !r.finite {
				continue
			}
			r.slab.init(&r)
			near, ok := r.hit(&b.nodes[0].bounds, ray.TMin, ray.TMax)
			if !ok {
				continue
			}
			for _, size := range []int{stackSizeWide, wideWidth + 3} {
				sa, sg := make([]stackEntry, size), make([]stackEntry, size)
				got := leafWalk(b, &r, ray.TMin, ray.TMax, near, true, sa)
				want := leafWalk(b, &r, ray.TMin, ray.TMax, near, false, sg)
				if len(got) != len(want) {
					t.Fatalf("%s ray %+v stack %d: %d leaves, want %d", name, ray, size, len(got), len(want))
				}
				for i := range got {
					g, w := got[i], want[i]
					same := sameEntry(g.cur, w.cur) && len(g.stack) == len(w.stack)
					for j := 0; same && j < len(g.stack); j++ {
						same = sameEntry(g.stack[j], w.stack[j])
					}
					if !same {
						t.Fatalf("%s ray %+v stack %d leaf %d: %v over %v, want %v over %v", name, ray, size, i, g.cur, g.stack, w.cur, w.stack)
					}
				}
				leaves += len(got)
				oa, og := make([]uint32, size), make([]uint32, size)
				ogot := occludeLeafWalk(b, &r, ray.TMin, ray.TMax, true, oa)
				owant := occludeLeafWalk(b, &r, ray.TMin, ray.TMax, false, og)
				if !slices.EqualFunc(ogot, owant, slices.Equal) {
					t.Fatalf("%s ray %+v stack %d: occlusion walk %v, want %v", name, ray, size, ogot, owant)
				}
				leaves += len(ogot)
			}
		}
		if leaves < 10000 {
			t.Fatalf("%s: only %d leaves reached", name, leaves)
		}
	}
}

// TestNodeWalkSameHits compares whole closest-hit and first-hit walks
// with nodeWalk and with the Go loop (nodeWalkAsm off): t, u, v, slot and
// front bit for bit, on the full walk and on walkFiniteOn from small
// stacks that it outgrows (the walkFiniteDeep path); and occlusion
// answers with occludeWalk and without, on the full walk and on a small
// stack.
//
// The same comparisons run with the fused AVX2 walks (walkAVX2,
// occludeAVX2) where the processor has AVX2, against the same Go loops.
func TestNodeWalkSameHits(t *testing.T) {
	if !slabAsm || useSIMD {
		t.Skip("nodeWalk runs in the scalar amd64 walks only")
	}
	defer func(old, oldFused bool) { nodeWalkAsm, fusedAVX2 = old, oldFused }(nodeWalkAsm, fusedAVX2)
	// The walks compared with the Go loop (nodeWalkAsm and fusedAVX2
	// off), by the switches they set.
	type walker struct {
		name                string
		nodeWalk, fusedAVX2 bool
	}
	walkers := []walker{{"nodeWalk", true, false}}
	if haveAVX2 {
		walkers = append(walkers, walker{"walkAVX2", false, true})
	}
	use := func(w walker) { nodeWalkAsm, fusedAVX2 = w.nodeWalk, w.fusedAVX2 }
	goLoop := walker{"Go loop", false, false}
	rng := rand.New(rand.NewPCG(47, 48))
	type result struct {
		h  fastHit
		ok bool
	}
	walk := func(b *BLAS, r *Ray, first bool, small int) result {
		var o objectRay
		var h fastHit
		if r.TMin > r.TMax || !rayUsable(r) {
			return result{}
		}
		o.setupSelf(r)
		tMax := r.TMax
		if small == 0 || !o.rb.finite {
			return result{h, b.walk(&o, r.TMin, &tMax, first, &h)}
		}
		near, ok := o.rb.hit(&b.nodes[0].bounds, r.TMin, tMax)
		if first {
			// firstHit's walk, which starts over on the full stack when
			// it would outgrow the small one.
			if !ok {
				return result{}
			}
			if hit, done := b.occludesFiniteOn(&o, r.TMin, tMax, make([]uint32, small), &h); done {
				return result{h, hit}
			}
			return result{h, b.occludesFiniteDeep(&o, r.TMin, tMax, &h)}
		}
		if !ok || near > tMax {
			return result{}
		}
		stack := make([]stackEntry, small)
		st := walkState{cur: stackEntry{0, near}}
		if b.walkFiniteOn(&o, r.TMin, &tMax, &h, &st, stack) {
			return result{h, st.found}
		}
		return result{h, b.walkFiniteDeep(&o, r.TMin, &tMax, &h, &st, stack[:st.sp])}
	}
	same := func(a, b result) bool {
		f := math.Float32bits
		return a.ok == b.ok && (!a.ok || f(a.h.t) == f(b.h.t) && f(a.h.u) == f(b.h.u) && f(a.h.v) == f(b.h.v) &&
			a.h.slot == b.h.slot && a.h.front == b.h.front)
	}
	for name, sc := range nodeWalkScenes(t) {
		b, pos := sc.b, sc.pos
		hits, occluded := 0, 0
		for _, ray := range nodeWalkRays(rng, pos, 6000) {
			for _, first := range []bool{false, true} {
				for _, small := range []int{0, wideWidth + 2} {
					use(goLoop)
					want := walk(b, &ray, first, small)
					for _, w := range walkers {
						use(w)
						got := walk(b, &ray, first, small)
						if !same(got, want) {
							t.Fatalf("%s, %s ray %+v first %v stack %d: %+v, want %+v", w.name, name, ray, first, small, got, want)
						}
					}
					if want.ok {
						hits++
					}
				}
			}
			// Occlusion: the answer, and on a small stack that the walk
			// outgrows, where it stops (done false) or its answer.
			if !rayUsable(&ray) || ray.TMin > ray.TMax {
				continue
			}
			var o objectRay
			o.setupSelf(&ray)
			type occ struct{ hit, done bool }
			occludes := func() (full, small occ) {
				full.hit = b.occludes(&o, ray.TMin, ray.TMax)
				full.done = true
				if o.rb.finite {
					small.hit, small.done = b.occludesFiniteOn(&o, ray.TMin, ray.TMax, make([]uint32, wideWidth+1), nil)
				}
				return full, small
			}
			use(goLoop)
			wantFull, wantSmall := occludes()
			for _, w := range walkers {
				use(w)
				gotFull, gotSmall := occludes()
				if gotFull != wantFull || gotSmall != wantSmall {
					t.Fatalf("%s, %s ray %+v: occludes %v, small stack %v; want %v, %v", w.name, name, ray, gotFull, gotSmall, wantFull, wantSmall)
				}
			}
			if wantFull.hit {
				occluded++
			}
		}
		if hits < 5000 || occluded < 1000 {
			t.Fatalf("%s: only %d hits, %d rays occluded", name, hits, occluded)
		}
	}
}

// Walks names the walks the switches select.
func TestWalksNamesTheWalkInUse(t *testing.T) {
	defer func(old bool) { fusedAVX2 = old }(fusedAVX2)
	want := map[bool]string{true: "scalar, AVX2 assembly", false: "scalar, SSE assembly"}
	for _, fused := range []bool{false, haveAVX2} {
		fusedAVX2 = fused
		switch got := Walks(); {
		case useSIMD:
			if got != "vector (GOEXPERIMENT=simd)" {
				t.Errorf("vector build: Walks() = %q", got)
			}
		case !slabAsm:
			if got != "scalar Go" {
				t.Errorf("no assembly: Walks() = %q", got)
			}
		case got != want[fused]:
			t.Errorf("fusedAVX2 %v: Walks() = %q, want %q", fused, got, want[fused])
		}
	}
}

// queryAndWalk answers ray in mode (rayClosest, rayFirst, rayOcclude)
// with queryAVX2, the ray placed as BLAS.Intersect places it (s, got), and
// with the Go loop (wantOK, want; nodeWalkAsm and fusedAVX2 as the caller
// set them), and returns the placed objectRay too.
func queryAndWalk(b *BLAS, ray *Ray, mode int) (s int, got, want fastHit, wantOK bool, o objectRay) {
	o.setupSelf(ray)
	if mode == rayOcclude {
		wantOK = b.occludes(&o, ray.TMin, ray.TMax)
	} else {
		tMax := ray.TMax
		wantOK = b.walk(&o, ray.TMin, &tMax, mode == rayFirst, &want)
	}
	s = b.queryAVX2(&o.org, &o.dir, ray.TMin, ray.TMax, mode, &got)
	return s, got, want, wantOK, o
}

// TestRayAVX2MatchesWalk runs whole queries through rayWalkAVX2 and
// rayOccludeAVX2 (queryAVX2: rays placed in the BLAS's object space, set
// up in assembly) and compares every answer they give with the Go loop's (nodeWalkAsm and fusedAVX2 off) bit for bit: closest hit,
// first hit and occlusion. Rays with a zero or tiny direction component,
// whose slab distances may be NaN, go to the NaN variants
// (rayWalkNaNAVX2, rayOccludeNaNAVX2), whose answers the Go loop's
// non-finite walks check. Edge cases (an edge function of zero: the
// lattice rays through the terrain's vertices and edges) are decided in
// the assembly as intersectExact decides them (EXACTLANE); hits on an
// edge (u or v of zero, which only that path gives) must come up, and so
// must such rays answered, hits and misses in each mode. Rays left to
// Go (rayGoMust) are not compared.
func TestRayAVX2MatchesWalk(t *testing.T) {
	if !haveAVX2 || useSIMD {
		t.Skip("the one-call queries run in the scalar amd64 build on AVX2 processors only")
	}
	defer func(old, oldFused bool) { nodeWalkAsm, fusedAVX2 = old, oldFused }(nodeWalkAsm, fusedAVX2)
	nodeWalkAsm, fusedAVX2 = false, false
	rng := rand.New(rand.NewPCG(51, 52))
	f := math.Float32bits
	edgeHits := 0
	for name, sc := range nodeWalkScenes(t) {
		b := sc.b
		var status [3][3]int // [mode][result]
		var nonFinite [3]int // [mode]
		for _, ray := range nodeWalkRays(rng, sc.pos, 6000) {
			if ray.TMin > ray.TMax || !rayUsable(&ray) {
				continue
			}
			for mode := rayClosest; mode <= rayOcclude; mode++ {
				s, got, want, wantOK, o := queryAndWalk(b, &ray, mode)
				status[mode][s]++
				switch {
				case s == rayGoMust:
					// Nothing to compare: Go walks the ray.
				case (s == rayHit) != wantOK:
					t.Fatalf("%s mode %d ray %+v: queryAVX2 %d, Go loop hit %v", name, mode, ray, s, wantOK)
				case s == rayHit && mode != rayOcclude &&
					(f(got.t) != f(want.t) || f(got.u) != f(want.u) || f(got.v) != f(want.v) || got.slot != want.slot || got.front != want.front):
					t.Fatalf("%s mode %d ray %+v: %+v, want %+v", name, mode, ray, got, want)
				}
				if !o.rb.finite && s != rayGoMust {
					nonFinite[mode]++ // answered by the NaN walks (rayWalkNaNAVX2, rayOccludeNaNAVX2)
				}
				if s == rayHit && mode == rayClosest && (got.u == 0 || got.v == 0) {
					edgeHits++ // decided by EXACTLANE
				}
			}
		}
		for mode, n := range status {
			if n[rayMiss] < 300 || n[rayHit] < 1000 || nonFinite[mode] < 300 {
				t.Errorf("%s mode %d: %d misses, %d hits, %d with infinite inverse components answered: too few of one to compare",
					name, mode, n[rayMiss], n[rayHit], nonFinite[mode])
			}
		}
		t.Logf("%s: [miss hit go] closest %v, first %v, occlusion %v; infinite inverse components answered %v", name, status[0], status[1], status[2], nonFinite)
	}
	if edgeHits < 30 {
		t.Errorf("%d hits on an edge: too few to check the exact path", edgeHits)
	}
	t.Logf("%d closest hits on an edge", edgeHits)
}

// TestRayAVX2DegenerateTrianglesStayInAssembly traces rays through a
// terrain in which every fourth triangle has two vertices at one place
// (an index repeated, or two indices of one position): such a triangle's
// edge function along the collapsed edge is zero for every ray, so the
// assembly sees an edge case wherever a leaf holds one. Its other two
// edge functions are each other's negations, which makes it a miss for
// every ray (watertightRay.intersectExact's first test), and the one-call
// queries must decide so themselves: with rays off the scene's vertices
// and edges (random origins and directions in float32), no ray may be
// left to Go (rayGoMust), and every answer must be the Go loop's bit for
// bit.
func TestRayAVX2DegenerateTrianglesStayInAssembly(t *testing.T) {
	if !haveAVX2 || useSIMD {
		t.Skip("the one-call queries run in the scalar amd64 build on AVX2 processors only")
	}
	defer func(old, oldFused bool) { nodeWalkAsm, fusedAVX2 = old, oldFused }(nodeWalkAsm, fusedAVX2)
	nodeWalkAsm, fusedAVX2 = false, false
	pos, idx := meshgen.Terrain(20000, 11)
	degenerate := 0
	for k := 0; k+2 < len(idx); k += 12 {
		if k%24 == 0 {
			idx[k+2] = idx[k] // vertices 0 and 2 the same index
		} else {
			pos = append(pos, pos[idx[k+1]]) // vertices 1 and 2 the same position
			idx[k+2] = uint32(len(pos) - 1)
		}
		degenerate++
	}
	b := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, BuildPreferFastTrace)
	rng := rand.New(rand.NewPCG(61, 62))
	f := math.Float32bits
	var status [3][3]int // [mode][result]
	for i := range 6000 {
		// From above the terrain (or from a point on a triangle, as a shadow
		// ray starts) in a random direction.
		tri := 4*rng.IntN(len(idx)/12) + 1 + rng.IntN(3) // not a degenerate one
		a, bv, c := pos[idx[3*tri]], pos[idx[3*tri+1]], pos[idx[3*tri+2]]
		u, v := float32(rng.Float64()), float32(rng.Float64())
		if u+v > 1 {
			u, v = 1-u, 1-v
		}
		o := a.Add(bv.Sub(a).Scale(u)).Add(c.Sub(a).Scale(v))
		if i%2 == 0 {
			o.Z += 0.5 * float32(rng.Float64())
		}
		d := vec.V3(float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64()))
		ray := Ray{Origin: o, Direction: d, TMin: 1e-4, TMax: float32(math.Inf(1))}
		if i%3 == 0 {
			ray.TMax = float32(rng.Float64()) * 2
		}
		for mode := rayClosest; mode <= rayOcclude; mode++ {
			s, got, want, wantOK, _ := queryAndWalk(b, &ray, mode)
			status[mode][s]++
			switch {
			case s == rayGoMust:
				t.Fatalf("mode %d ray %+v: left to Go", mode, ray)
			case (s == rayHit) != wantOK:
				t.Fatalf("mode %d ray %+v: queryAVX2 %d, Go loop hit %v", mode, ray, s, wantOK)
			case s == rayHit && mode != rayOcclude &&
				(f(got.t) != f(want.t) || f(got.u) != f(want.u) || f(got.v) != f(want.v) || got.slot != want.slot || got.front != want.front):
				t.Fatalf("mode %d ray %+v: %+v, want %+v", mode, ray, got, want)
			}
		}
	}
	for mode, n := range status {
		if n[rayMiss] < 1000 || n[rayHit] < 1000 {
			t.Errorf("mode %d: %d misses, %d hits: too few of one to compare", mode, n[rayMiss], n[rayHit])
		}
	}
	t.Logf("%d degenerate triangles; [miss hit go] closest %v, first %v, occlusion %v", degenerate, status[0], status[1], status[2])
}

// TestRayAVX2Constants checks the constants the assembly spells out: the
// float32 bits of robustScale (robust<> in fused_amd64.s, FARMAX in
// slab_amd64.h).
func TestRayAVX2Constants(t *testing.T) {
	if got := math.Float32bits(robustScale); got != 0x3f800004 {
		t.Errorf("robustScale is %#x as a float32; the assembly's robust<> is 0x3f800004", got)
	}
}

// spoilRay makes r one of the rays the assembly queries must refuse or
// treat with care, by case k (1 to 9; others leave r alone): TMin > TMax,
// a NaN origin, a zero direction, a NaN TMax, a -0 origin component, an
// infinite direction, a NaN TMin, an infinite origin, an infinite TMax.
func spoilRay(r *Ray, k int) {
	nz := float32(math.Copysign(0, -1))
	inf := float32(math.Inf(1))
	switch k {
	case 1:
		r.TMin, r.TMax = 2, 1
	case 2:
		r.Origin.X = float32(math.NaN())
	case 3:
		r.Direction = vec.Vec3{}
	case 4:
		r.TMax = float32(math.NaN())
	case 5:
		r.Origin.Z = nz
	case 6:
		r.Direction.Z = inf
	case 7:
		r.TMin = float32(math.NaN())
	case 8:
		r.Origin.X = -inf
	case 9:
		r.TMax = inf
	}
}

// checkedQuery is what the assembly entries must answer for r: queryAVX2
// on r checked and placed in Go as BLAS.Intersect checks and places it,
// or rayGoMust for a ray that fails the checks.
func checkedQuery(b *BLAS, r *Ray, mode int, h *fastHit) int {
	if !(r.TMin <= r.TMax && rayUsable(r)) {
		return rayGoMust
	}
	org, dir := identityPoint(r.Origin), identityVector(r.Direction)
	return b.queryAVX2(&org, &dir, r.TMin, r.TMax, mode, h)
}

// inverseFinite reports whether 1/d is finite in every component, as the
// assembly computes it (RAYINVFINITE).
func inverseFinite(d vec.Vec3) bool {
	fin := func(x float32) bool { return abs32(1/x) <= math.MaxFloat32 }
	return fin(d.X) && fin(d.Y) && fin(d.Z)
}

// sameFastHit reports whether two hits are equal bit for bit.
func sameFastHit(g, h *fastHit) bool {
	f := math.Float32bits
	return f(g.t) == f(h.t) && f(g.u) == f(h.u) && f(g.v) == f(h.v) && g.slot == h.slot && g.front == h.front
}

// TestBatchAVX2MatchesRayAVX2 runs whole batches through batchWalkAVX2
// and batchOccludeAVX2, and the rays they answer rayNotFinite (those with
// infinite inverse components) through walkNotFinite's NaN batches, and
// checks each ray's result against queryAVX2 on the same ray alone: the
// same status (miss, hit, or left to Go) and, for a hit, the same hit bit
// for bit. Rays that are not rayUsable or have TMin > TMax must be left
// to Go. Batch sizes below, at and above the eight lanes check the lanes'
// refilling and draining.
func TestBatchAVX2MatchesRayAVX2(t *testing.T) {
	if !haveAVX2 || useSIMD {
		t.Skip("the assembly batch walks run in the scalar amd64 build on AVX2 processors only")
	}
	rng := rand.New(rand.NewPCG(53, 54))
	for name, sc := range nodeWalkScenes(t) {
		b := sc.b
		rays := nodeWalkRays(rng, sc.pos, 3000)
		for i := range rays {
			if k := i % 13; k <= 5 {
				spoilRay(&rays[i], k)
			}
		}
		for _, n := range []int{0, 1, 7, 8, 9, len(rays)} {
			for mode := rayClosest; mode <= rayOcclude; mode++ {
				var res batchResults
				q, obj := res.query(&b.self, rays[:n], mode == rayFirst)
				if mode != rayClosest {
					batchOccludeAVX2(&q) // firstHit's walks (mode rayFirst) too
				} else {
					batchWalkAVX2(&q)
				}
				// The rays with infinite inverse components, and only those
				// that pass the checks, come back rayNotFinite; the NaN
				// batch walks answer them.
				notFinite := 0
				for i, r := range rays[:n] {
					usable := r.TMin <= r.TMax && rayUsable(&r) || r.Direction == (vec.Vec3{}) && r.Origin.IsFinite() && r.TMin <= r.TMax
					if want := usable && !inverseFinite(r.Direction); (res.status[i] == rayNotFinite) != want {
						t.Fatalf("%s n %d mode %d ray %d %+v: batch status %d; infinite inverse components %v", name, n, mode, i, r, res.status[i], want)
					}
					if res.status[i] == rayNotFinite {
						notFinite++
					}
				}
				if n == len(rays) && notFinite < 200 {
					t.Errorf("%s mode %d: %d rays with infinite inverse components: too few to compare", name, mode, notFinite)
				}
				res.walkNotFinite(&q, obj, mode == rayOcclude)
				var count [3]int
				for i, r := range rays[:n] {
					var h fastHit
					want := checkedQuery(b, &r, mode, &h)
					got := int(res.status[i])
					count[got]++
					if got != want {
						t.Fatalf("%s n %d mode %d ray %d %+v: batch status %d, alone %d", name, n, mode, i, r, got, want)
					}
					g := res.hits[i]
					if got == rayHit && mode != rayOcclude && !sameFastHit(&g, &h) {
						t.Fatalf("%s n %d mode %d ray %d %+v: batch hit %+v, alone %+v", name, n, mode, i, r, g, h)
					}
				}
				if n == len(rays) && (count[rayMiss] < 300 || count[rayHit] < 300 || count[rayGoMust] < 300) {
					t.Errorf("%s mode %d: %v [miss hit go]: too few of one to compare", name, mode, count)
				}
			}
		}
	}
}

// TestRayEntryMatchesQuery checks rayIntersectAVX2 and rayOccludedAVX2,
// which check and place the Ray themselves, against queryAVX2 on the ray
// placed and checked in Go (rayUsable, TMin <= TMax; rays that fail must
// come back rayGoMust): status and hit bit for bit, all three modes, with
// NaN and infinite components, TMin > TMax, zero directions and -0
// origins among the rays. It fails if the entry skips a check (TMin >
// TMax, say) or reads a field at the wrong offset. (Whether the origin
// gets its +0 it cannot see: a -0 origin gives the same answers.)
func TestRayEntryMatchesQuery(t *testing.T) {
	if !haveAVX2 || useSIMD {
		t.Skip("the assembly queries run in the scalar amd64 build on AVX2 processors only")
	}
	rng := rand.New(rand.NewPCG(71, 72))
	for name, sc := range nodeWalkScenes(t) {
		b := sc.b
		rays := nodeWalkRays(rng, sc.pos, 3000)
		for i := range rays {
			spoilRay(&rays[i], i%17)
		}
		for mode := rayClosest; mode <= rayOcclude; mode++ {
			var count [3]int
			for i, r := range rays {
				var h fastHit
				want := checkedQuery(b, &r, mode, &h)
				var g fastHit
				got := b.rayAVX2(&r, mode, &g)
				count[got]++
				if got != want {
					t.Fatalf("%s mode %d ray %d %+v: entry status %d, query %d", name, mode, i, r, got, want)
				}
				if got == rayHit && mode != rayOcclude && !sameFastHit(&g, &h) {
					t.Fatalf("%s mode %d ray %d %+v: entry hit %+v, query %+v", name, mode, i, r, g, h)
				}
			}
			if count[rayMiss] < 300 || count[rayHit] < 300 || count[rayGoMust] < 300 {
				t.Errorf("%s mode %d: %v [miss hit go]: too few of one to compare", name, mode, count)
			}
		}
	}
}

// TestYieldWalkGivesTheGoWalksCandidates runs Traversals with
// FORCE_NON_OPAQUE, so that every triangle hit comes back from Next, with
// the yield walks (walkYieldAVX2, and occludeYieldAVX2 with
// ACCEPT_FIRST_HIT_AND_END_SEARCH) and with the Go loop (fusedAVX2 and
// nodeWalkAsm off), and compares every candidate in order, bit for bit,
// and the committed hit. Candidates are committed by a rule of their own
// (the primitive index), so that tMax shrinks at some and not at others;
// the scenes are the terrain and soup BLASes alone (BeginBLAS) and six
// instances of them, four with placed rays (Begin; the walk's stack then
// starts above the top level's entries), and a lattice whose rays pass
// through edges and vertices. With yieldRoom lowered the walks
// leave nodes to the Go loop on the way (takeFirstWalk, and descend's
// own node steps).
func TestYieldWalkGivesTheGoWalksCandidates(t *testing.T) {
	if !haveAVX2 || useSIMD {
		t.Skip("no AVX2 walk")
	}
	defer func(old, oldFused bool, room int) { nodeWalkAsm, fusedAVX2, yieldRoom = old, oldFused, room }(nodeWalkAsm, fusedAVX2, yieldRoom)
	scenes := nodeWalkScenes(t)
	var insts []Instance
	for i, name := range []string{"terrain", "soup", "terrain", "soup", "terrain", "soup"} {
		xf := vec.Identity3x4
		if i >= 2 {
			xf = vec.Translate3x4(vec.V3(float32(i)*0.1, 0.05, -float32(i)*0.07))
		}
		insts = append(insts, Instance{Transform: xf, InstanceMask: 0xff, BLAS: scenes[name].b})
	}
	tl := mustTLAS(t, insts, 0)
	type scene struct {
		b    *BLAS
		tl   *TLAS
		rays func() []Ray
	}
	rng := rand.New(rand.NewPCG(47, 48))
	all := map[string]scene{
		// Rays through the lattice's edges and vertices: the walks decide
		// those triangles exactly (LEAFEDGECASE).
		"lattice": func() scene {
			pos, idx := latticeBox(6)
			b := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, 0)
			tl := mustTLAS(t, []Instance{{Transform: vec.Identity3x4, InstanceMask: 0xff, BLAS: b}}, 0)
			return scene{b, tl, func() []Ray { return latticeRays(rng, 6, 1500) }}
		}(),
	}
	for name, sc := range scenes {
		pos := sc.pos
		all[name] = scene{sc.b, tl, func() []Ray { return nodeWalkRays(rng, pos, 1500) }}
	}
	// 48 instances: a top level deep enough for its walks to leave nodes
	// to Go with yieldRoom lowered (takeTopFirst).
	var many []Instance
	for i := range 48 {
		xf := vec.Translate3x4(vec.V3(float32(i%4)*0.3, float32(i/4%4)*0.3, float32(i/16)*0.3))
		many = append(many, Instance{Transform: xf, InstanceMask: 0xff, BLAS: scenes["soup"].b})
	}
	soupPos := scenes["soup"].pos
	all["many"] = scene{scenes["soup"].b, mustTLAS(t, many, 0), func() []Ray { return nodeWalkRays(rng, soupPos, 1000) }}
	// One instance, moved: Begin enters it at once (soleQuery), where the
	// Go walk takes the top level.
	moved := Instance{Transform: vec.Translate3x4(vec.V3(0.1, 0.05, -0.07)), InstanceMask: 0xff, BLAS: scenes["terrain"].b}
	terrainPos := scenes["terrain"].pos
	all["sole"] = scene{scenes["terrain"].b, mustTLAS(t, []Instance{moved}, 0), func() []Ray { return nodeWalkRays(rng, terrainPos, 1000) }}
	trace := func(begin func(tr *Traversal)) []hitKey {
		var tr Traversal
		var out []hitKey
		begin(&tr)
		for tr.Next() {
			c := tr.Candidate()
			out = append(out, keyOf(c))
			if c.PrimitiveIndex%3 != 0 {
				tr.Commit()
			}
		}
		return append(out, keyOf(tr.Committed()))
	}
	candidates, onEdge := map[RayFlags]int{}, 0
	for _, room := range []int{stackSize, wideWidth + 3} {
		for _, name := range slices.Sorted(maps.Keys(all)) {
			sc := all[name]
			for _, ray := range sc.rays() {
				for _, flags := range []RayFlags{RayFlagForceNonOpaque, RayFlagForceNonOpaque | RayFlagAcceptFirstHitAndEndSearch} {
					begins := map[string]func(tr *Traversal){
						"BLAS": func(tr *Traversal) { tr.BeginBLAS(sc.b, ray, flags) },
						"TLAS": func(tr *Traversal) { tr.Begin(sc.tl, ray, flags, 0xff) },
					}
					for level, begin := range begins {
						nodeWalkAsm, fusedAVX2, yieldRoom = true, true, room
						got := trace(begin)
						nodeWalkAsm, fusedAVX2, yieldRoom = false, false, stackSize
						want := trace(begin)
						if !equalKeys(got, want) {
							t.Fatalf("%s %s flags %v room %d, ray %+v: candidates and commit %v, want %v", name, level, flags, room, ray, got, want)
						}
						candidates[flags] += len(got) - 1
						for _, k := range got[:len(got)-1] {
							if name == "lattice" && (k.U == 0 || k.V == 0 || k.U+k.V == 1) {
								onEdge++
							}
						}
					}
				}
			}
		}
	}
	if candidates[RayFlagForceNonOpaque] < 8000 || candidates[RayFlagForceNonOpaque|RayFlagAcceptFirstHitAndEndSearch] < 5000 {
		t.Fatalf("only %v candidates", candidates)
	}
	if onEdge < 300 {
		t.Fatalf("only %d candidates on an edge or vertex", onEdge)
	}
}

// TestSetupRayAVX2MatchesGo sets rays up with setupRayAVX2 and with
// rayBox.setup and watertightRay.setup, and compares every field bit for
// bit (the slabRay where the ray is finite, as setup only sets it then):
// random rays of several scales, with components that are zero of either
// sign, subnormal (whose inverse overflows and is clamped), tiny, huge,
// or tied in magnitude (the dominant axis' first); and it checks that
// rays with a non-finite origin or direction, or a zero direction, are
// refused. Two rays in three test a root box too, which must answer as
// rayBox.hitAny does, the entry distance bit for bit: boxes around a
// point of the ray or beside it, some with a face through the origin
// (which a zero direction component turns into NaN distances), over
// [0, +Inf) or a random interval.
func TestSetupRayAVX2MatchesGo(t *testing.T) {
	if !haveAVX2 || useSIMD {
		t.Skip("no AVX2 set-up")
	}
	rng := rand.New(rand.NewPCG(93, 94))
	special := []float32{0, float32(math.Copysign(0, -1)), 1e-40, -3e-41, 1e-38, -2e-37, 1e30, -3e37, 1, -1, 0.5}
	comp := func(scale float64) float32 {
		if rng.IntN(4) == 0 {
			return special[rng.IntN(len(special))]
		}
		return float32((rng.Float64()*2 - 1) * scale)
	}
	bits := func(v vec.Vec3) [3]uint32 {
		return [3]uint32{math.Float32bits(v.X), math.Float32bits(v.Y), math.Float32bits(v.Z)}
	}
	checked, finite, rootTests := 0, 0, map[bool]int{}
	for i := range 200000 {
		scale := []float64{1, 1e-3, 1e6, 1e30}[i%4]
		o := vec.V3(comp(scale), comp(scale), comp(scale))
		d := vec.V3(comp(1), comp(1), comp(1))
		if i%7 == 0 { // ties in magnitude
			d.Y = d.X
			if i%14 == 0 {
				d.Z = -d.X
			}
		}
		var root *AABB
		tMin, tMax := float32(0), float32(math.Inf(1))
		if i%3 != 0 {
			p := o.Add(d.Scale(float32(rng.Float64() * 4 * scale)))
			if i%5 == 0 { // beside the ray
				p = p.Add(vec.V3(comp(scale), comp(scale), comp(scale)))
			}
			e := vec.V3(float32(rng.Float64()*scale), float32(rng.Float64()*scale), float32(rng.Float64()*scale))
			box := AABB{Min: p.Sub(e), Max: p.Add(e)}
			if i%11 == 0 { // a face through the origin
				box.Min.X = o.X
			}
			root = &box
			if i%3 == 2 {
				tMin = float32(rng.Float64() * scale)
				tMax = tMin + float32(rng.Float64()*4*scale)
			}
			if i%6 == 5 && o.IsFinite() && d.IsFinite() {
				// Just short of the entry: the exit's robustScale keeps
				// the box.
				var pre rayBox
				pre.setup(o, d)
				if e, ok := pre.hitAny(root, 0, float32(math.Inf(1))); ok && e > 0 {
					tMin, tMax = 0, e*(1-0x1p-23)
				}
			}
		}
		var gr, ar rayBox
		var gw, aw watertightRay
		near, status := setupRayAVX2(&o, &d, &ar, &aw, root, tMin, tMax)
		if want := o.IsFinite() && d.IsFinite() && d != (vec.Vec3{}); (status != setupRefused) != want {
			t.Fatalf("ray %v along %v: setupRayAVX2 %v, want set up %v", o, d, status, want)
		}
		if status == setupRefused {
			continue
		}
		gr.setup(o, d)
		gw.setup(o, d)
		wantNear, wantHit := tMin, true
		if root != nil {
			wantNear, wantHit = gr.hitAny(root, tMin, tMax)
			rootTests[wantHit]++
		}
		if (status == setupDone) != wantHit || wantHit && math.Float32bits(near) != math.Float32bits(wantNear) {
			t.Fatalf("ray %v along %v over [%v, %v], root %v: status %d at %v, want hit %v at %v", o, d, tMin, tMax, root, status, near, wantHit, wantNear)
		}
		same := bits(ar.org) == bits(gr.org) && bits(ar.inv) == bits(gr.inv) && bits(ar.invFar) == bits(gr.invFar) &&
			ar.negX == gr.negX && ar.negY == gr.negY && ar.negZ == gr.negZ &&
			ar.nearX == gr.nearX && ar.nearY == gr.nearY && ar.nearZ == gr.nearZ
		if status == setupMissed { // the rest is not set up
			if !same {
				t.Fatalf("ray %v along %v, root missed:\nassembly %+v\nGo       %+v", o, d, ar, gr)
			}
			continue
		}
		same = same && ar.finite == gr.finite
		if same && gr.finite {
			finite++
			as := unsafe.Slice((*byte)(unsafe.Pointer(&ar.slab)), unsafe.Sizeof(ar.slab))
			gs := unsafe.Slice((*byte)(unsafe.Pointer(&gr.slab)), unsafe.Sizeof(gr.slab))
			same = slices.Equal(as, gs)
		}
		f := func(x float32) uint32 { return math.Float32bits(x) }
		same = same && aw.org == gw.org && aw.kx == gw.kx && aw.ky == gw.ky && aw.kz == gw.kz &&
			aw.kxo == gw.kxo && aw.kyo == gw.kyo && aw.kzo == gw.kzo &&
			f(aw.ox) == f(gw.ox) && f(aw.oy) == f(gw.oy) && f(aw.oz) == f(gw.oz) &&
			f(aw.sx) == f(gw.sx) && f(aw.sy) == f(gw.sy) && f(aw.sz) == f(gw.sz)
		if !same {
			t.Fatalf("ray %v along %v:\nassembly %+v %+v\nGo       %+v %+v", o, d, ar, aw, gr, gw)
		}
		checked++
	}
	for _, bad := range [][2]vec.Vec3{
		{vec.V3(float32(math.Inf(1)), 0, 0), vec.V3(1, 0, 0)},
		{vec.V3(0, float32(math.NaN()), 0), vec.V3(1, 0, 0)},
		{vec.V3(0, 0, 0), vec.V3(0, 0, float32(math.Inf(-1)))},
		{vec.V3(0, 0, 0), vec.V3(0, 0, 0)},
	} {
		var r rayBox
		var w watertightRay
		if _, status := setupRayAVX2(&bad[0], &bad[1], &r, &w, &AABB{Max: vec.V3(1, 1, 1)}, 0, 1); status != setupRefused {
			t.Errorf("ray %v along %v: status %d, want refused", bad[0], bad[1], status)
		}
	}
	if checked < 100000 || finite < 30000 || rootTests[true] < 30000 || rootTests[false] < 30000 {
		t.Fatalf("only %d rays compared, %d finite, root boxes hit and missed %v", checked, finite, rootTests)
	}
}
