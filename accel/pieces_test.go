package accel

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/vec"
)

// compactSerial is the serial pass the builder used to end with, kept as
// the reference for the order of its output: it copies the tree rooted at
// src[0] depth first, each inner node's children adjacent and placed when
// their parent is reached, the left subtree's before the right one's.
func compactSerial(src []node) []node {
	out := []node{src[0]}
	type item struct{ old, dst uint32 }
	stack := []item{{0, 0}}
	for len(stack) > 0 && len(out) <= len(src) { // a broken src may loop
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := src[it.old]
		if n.isLeaf() {
			continue
		}
		pair := uint32(len(out))
		out = append(out, src[n.first], src[n.first+1])
		out[it.dst].first = pair
		stack = append(stack, item{n.first + 1, pair + 1}, item{n.first, pair})
	}
	return out
}

// triRefs returns the builder's refs for an indexed triangle mesh.
func triRefs(pos []vec.Vec3, idx []uint32) []bref {
	refs := make([]bref, len(idx)/3)
	for i := range refs {
		t := triVerts{pos[idx[3*i]], pos[idx[3*i+1]], pos[idx[3*i+2]]}
		a := triBounds(&t)
		refs[i] = bref{a.Min.X, a.Min.Y, a.Min.Z, -a.Max.X, -a.Max.Y, -a.Max.Z, uint32(i)}
	}
	return refs
}

// buildWithGrain builds a copy of refs (the builder takes its refs over).
func buildWithGrain(refs []bref, p buildParams, grain int) ([]node, []uint32) {
	refs = slices.Clone(refs)
	bb, cb := rangeBounds(refs)
	return buildBVHGrain(refs, bb, cb, p, grain, 0)
}

// Goroutines build the tree in pieces, which are spliced together: the
// result must be exactly the tree that one piece holds when nothing is
// handed off, and that one must be in the serial compaction's order,
// whatever GOMAXPROCS and however small the pieces (a grain of 2 hands
// off every split, so pieces nest as deep as the tree). Lopsided splits
// and coincident centroids (halved ranges) are among the scenes.
func TestPiecesSpliceInSerialOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(71, 72))
	soupPos, soupIdx := randomSoup(rng, 6000, 0.02)
	terrPos, terrIdx := meshgen.Terrain(5000, 3)
	// A dense clump of identical triangles and a few far away.
	var clumpPos []vec.Vec3
	var clumpIdx []uint32
	for i := 0; i < 3000; i++ {
		c := vec.V3(0, 0, 0)
		if i%500 == 0 {
			c = randVec(rng, 100)
		}
		for k := 0; k < 3; k++ {
			clumpIdx = append(clumpIdx, uint32(len(clumpPos)))
			clumpPos = append(clumpPos, c.Add(vec.V3(float32(k), float32(k*k), 1)))
		}
	}
	scenes := map[string][]bref{
		"soup":    triRefs(soupPos, soupIdx),
		"terrain": triRefs(terrPos, terrIdx),
		"clump":   triRefs(clumpPos, clumpIdx),
	}
	tlas := paramsFor(0)
	tlas.maxLeaf = 1
	params := []buildParams{paramsFor(BuildPreferFastTrace), paramsFor(BuildPreferFastBuild), paramsFor(BuildMinimizeMemory), tlas}
	for name, refs := range scenes {
		for pi, p := range params {
			runtime.GOMAXPROCS(1)
			want, wantOrder := buildWithGrain(refs, p, math.MaxInt)
			if !slices.Equal(want, compactSerial(want)) {
				t.Fatalf("%s params %d: one piece is not in the serial compaction's order", name, pi)
			}
			for _, procs := range []int{1, 2, 3} {
				runtime.GOMAXPROCS(procs)
				for _, grain := range []int{2, 37, 1000} {
					got, order := buildWithGrain(refs, p, grain)
					if !slices.Equal(got, want) || !slices.Equal(order, wantOrder) {
						t.Fatalf("%s params %d GOMAXPROCS %d grain %d: spliced tree differs from the one-piece tree", name, pi, procs, grain)
					}
				}
			}
		}
	}
}

// The same at the real grain, on a tree of many pieces whose large nodes
// are also binned and partitioned in parallel chunks.
func TestPiecesSpliceInSerialOrderLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large build")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	pos, idx := meshgen.Soup(5*parallelGrain+321, 5)
	refs := triRefs(pos, idx)
	p := paramsFor(BuildPreferFastTrace)
	runtime.GOMAXPROCS(1)
	want, wantOrder := buildWithGrain(refs, p, math.MaxInt)
	if !slices.Equal(want, compactSerial(want)) {
		t.Fatal("one piece is not in the serial compaction's order")
	}
	for _, procs := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(procs)
		got, order := buildWithGrain(refs, p, parallelGrain)
		if !slices.Equal(got, want) || !slices.Equal(order, wantOrder) {
			t.Fatalf("GOMAXPROCS %d: spliced tree differs from the one-piece tree", procs)
		}
	}
}
