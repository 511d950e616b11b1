package accel

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// bruteClosest tests every triangle of every active instance with the same
// watertight test and no BVH: the oracle for the accelerated traversal.
func bruteClosest(insts []Instance, r Ray, mask uint32) (best Hit, ok bool) {
	best.T = r.TMax
	for ii := range insts {
		in := &insts[ii]
		if in.BLAS == nil || uint32(in.InstanceMask)&mask == 0 {
			continue
		}
		inv, _ := in.Transform.Inverse()
		o, d := inv.TransformPoint(r.Origin), inv.TransformVector(r.Direction)
		var w watertightRay
		w.setup(o, d)
		b := in.BLAS
		for s := range b.tris {
			t, u, v, _, hit := w.intersect(&b.tris[s], r.TMin, best.T)
			if hit {
				best = Hit{Kind: KindTriangle, T: t, U: u, V: v, InstanceIndex: uint32(ii), GeometryIndex: b.primGeom[s], PrimitiveIndex: b.primIndex[s]}
				ok = true
			}
		}
	}
	return best, ok
}

func randVec(rng *rand.Rand, s float32) vec.Vec3 {
	return vec.V3(float32(rng.Float64()*2-1)*s, float32(rng.Float64()*2-1)*s, float32(rng.Float64()*2-1)*s)
}

func randomSoup(rng *rand.Rand, n int, size float32) ([]vec.Vec3, []uint32) {
	pos := make([]vec.Vec3, 0, 3*n)
	idx := make([]uint32, 0, 3*n)
	for i := 0; i < n; i++ {
		c := randVec(rng, 1)
		for k := 0; k < 3; k++ {
			idx = append(idx, uint32(len(pos)))
			pos = append(pos, c.Add(randVec(rng, size)))
		}
	}
	return pos, idx
}

func randomRotation(rng *rand.Rand) vec.Mat3x4 {
	// Orthonormal basis from random vectors (Gram-Schmidt), random scale
	// and translation.
	a := randVec(rng, 1).Normalize()
	b := randVec(rng, 1)
	b = b.Sub(a.Scale(a.Dot(b))).Normalize()
	c := a.Cross(b)
	s := float32(0.5 + rng.Float64())
	t := randVec(rng, 2)
	return vec.Mat3x4{{a.X * s, b.X * s, c.X * s, t.X}, {a.Y * s, b.Y * s, c.Y * s, t.Y}, {a.Z * s, b.Z * s, c.Z * s, t.Z}}
}

var allBuildFlags = []BuildFlags{0, BuildPreferFastTrace, BuildPreferFastBuild, BuildMinimizeMemory, BuildAllowUpdate | BuildAllowCompaction | BuildAllowDataAccess}

func TestClosestHitMatchesBruteForceOracle(t *testing.T) {
	for _, flags := range allBuildFlags {
		rng := rand.New(rand.NewPCG(7, uint64(flags)))
		var blases []*BLAS
		for m := 0; m < 3; m++ {
			var geoms []Geometry
			for g := 0; g < 1+m; g++ {
				pos, idx := randomSoup(rng, 300+200*g, 0.15)
				geo := TriangleGeometry(pos, idx)
				if g == 1 {
					xf := randomRotation(rng)
					geo.Triangles.Transform = &xf
				}
				geoms = append(geoms, geo)
			}
			b, err := BuildBLAS(geoms, flags)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.checkInvariants(); err != nil {
				t.Fatalf("flags %#x: %v", flags, err)
			}
			blases = append(blases, b)
		}
		var insts []Instance
		for i := 0; i < 12; i++ {
			xf := randomRotation(rng)
			if i%4 == 3 { // mirrored instance
				xf = xf.Mul(vec.Scale3x4(vec.V3(-1, 1, 1)))
			}
			insts = append(insts, Instance{Transform: xf, InstanceID: uint32(i * 3), InstanceMask: uint8(1 << (i % 8)), BLAS: blases[i%3]})
		}
		insts = append(insts, Instance{Transform: vec.Identity3x4, InstanceMask: 0xff}) // inactive: nil BLAS
		tl, err := BuildTLAS(insts, flags)
		if err != nil {
			t.Fatal(err)
		}
		if err := tl.checkInvariants(); err != nil {
			t.Fatal(err)
		}
		hits, rays := 0, raceRays(3000)
		for i := 0; i < rays; i++ {
			r := Ray{Origin: randVec(rng, 4), Direction: randVec(rng, 1), TMin: 0, TMax: float32(math.Inf(1))}
			if i%7 == 0 {
				r.TMax = float32(rng.Float64() * 4)
			}
			mask := uint32(0xff)
			if i%5 == 0 {
				mask = uint32(rng.IntN(256))
			}
			want, wok := bruteClosest(insts, r, mask)
			got, gok := tl.Intersect(r, 0, mask)
			if wok != gok || (wok && (got.T != want.T || got.InstanceIndex != want.InstanceIndex || got.GeometryIndex != want.GeometryIndex || got.PrimitiveIndex != want.PrimitiveIndex || got.U != want.U || got.V != want.V)) {
				t.Fatalf("flags %#x ray %d: got %v %+v, oracle %v %+v", flags, i, gok, got, wok, want)
			}
			if gok {
				hits++
				if got.InstanceID() != insts[got.InstanceIndex].InstanceID {
					t.Fatalf("InstanceID %d, want %d", got.InstanceID(), insts[got.InstanceIndex].InstanceID)
				}
			}
			if occ := tl.Occluded(r, 0, mask); occ != wok {
				t.Fatalf("flags %#x ray %d: Occluded %v, oracle hit %v", flags, i, occ, wok)
			}
		}
		if hits < rays/10 {
			t.Fatalf("only %d of %d rays hit: the test is too weak", hits, rays)
		}
	}
}

// checkInvariants verifies the BVH: every node's bounds contain its
// children or primitives, children follow parents, and every active
// primitive is referenced exactly once.
func (b *BLAS) checkInvariants() error {
	// A triangle split among leaves (sbvhBuild) is in several slots; a
	// leaf holds the part of it inside the leaf's bounds, so the bounds
	// need only meet its box.
	slots := map[[2]uint32]int{}
	for s := range b.primGeom {
		slots[[2]uint32{b.primGeom[s], b.primIndex[s]}]++
	}
	split := func(s uint32) bool { return slots[[2]uint32{b.primGeom[s], b.primIndex[s]}] > 1 }
	if len(slots) != b.active {
		return treeError("ActivePrimitives " + strconv.Itoa(b.active) + " of " + strconv.Itoa(len(slots)) + " primitives in the slots")
	}
	return checkTree(b.nodes, len(b.primGeom), b.slotBox, split) // empty for slots made inactive by an update
}

func (t *TLAS) checkInvariants() error {
	return checkTree(t.nodes, len(t.order), func(s uint32) AABB {
		in := &t.instances[t.order[s]]
		return in.worldBox()
	}, nil)
}

type treeError string

func (e treeError) Error() string { return string(e) }

func checkTree(nodes []node, prims int, box func(uint32) AABB, split func(uint32) bool) error {
	if prims == 0 {
		if len(nodes) != 1 || !nodes[0].bounds.IsEmpty() {
			return treeError("empty tree must be one empty root")
		}
		return nil
	}
	seen := make([]int, prims)
	var walk func(n uint32, depth int) error
	walk = func(n uint32, depth int) error {
		if depth > maxTreeDepth {
			return treeError("tree deeper than maxTreeDepth")
		}
		nd := nodes[n]
		if nd.isLeaf() {
			for s := nd.first; s < nd.first+nd.count; s++ {
				seen[s]++
				switch {
				case split != nil && split(s):
					if nd.bounds.intersection(box(s)).IsEmpty() {
						return treeError("leaf bounds do not meet a split primitive")
					}
				case !nd.bounds.Contains(box(s)):
					return treeError("leaf bounds do not contain a primitive")
				}
			}
			return nil
		}
		if nd.first <= n || int(nd.first)+1 >= len(nodes) {
			return treeError("children must follow their parent")
		}
		for _, c := range []uint32{nd.first, nd.first + 1} {
			if !nd.bounds.Contains(nodes[c].bounds) {
				return treeError("node bounds do not contain a child")
			}
			if err := walk(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(0, 0); err != nil {
		return err
	}
	for s, c := range seen {
		if c != 1 {
			return treeError("primitive slot " + strconv.Itoa(s) + " referenced " + strconv.Itoa(c) + " times")
		}
	}
	return nil
}
