package accel

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// fuzzInstances reads up to 24 instances of three small BLASes from data:
// for each, a byte picking the BLAS (or none), a mask byte, a flags byte
// and twelve float32 transform entries, any bits (NaN, infinities, huge
// and tiny scales, singular matrices), mostly near a rotation about a
// random point where a byte asks for it, so that most trees build.
func fuzzInstances(data []byte, blases []*BLAS) []Instance {
	var insts []Instance
	for len(data) >= 4+48 && len(insts) < 24 {
		pick, mask, flags, shape := data[0], data[1], data[2], data[3]
		var m vec.Mat3x4
		for k := range 12 {
			m[k/4][k%4] = math.Float32frombits(binary.LittleEndian.Uint32(data[4+4*k:]))
		}
		if shape&1 == 0 {
			// A rotation and scale from a seed, moved by the fuzzed translation
			// taken modulo a small box: a well-formed transform.
			rng := rand.New(rand.NewPCG(uint64(binary.LittleEndian.Uint32(data[4:])), 1))
			r := randomRotation(rng)
			for row := range 3 {
				r[row][3] = float32(math.Mod(float64(m[row][3]), 4))
				if r[row][3] != r[row][3] {
					r[row][3] = 0
				}
			}
			m = r
		}
		var b *BLAS
		if int(pick)%4 < len(blases) {
			b = blases[int(pick)%4]
		}
		insts = append(insts, Instance{Transform: m, InstanceMask: mask | 1, Flags: InstanceFlags(flags & 0x0f), BLAS: b})
		data = data[4+48:]
	}
	return insts
}

// wellConditioned reports whether m and its inverse have no entry above
// 1e3 in magnitude. A top level culls an instance by its world box, the
// BLAS's box carried forward by m, and places rays by m's inverse; for a
// matrix far from that (the fuzzer finds scales of 1e34 beside 1e-7), the
// two roundings disagree by more than a triangle's size, and a ray placed
// by the inverse can hit where the forward box does not reach.
func wellConditioned(m vec.Mat3x4) bool {
	inv, ok := m.Inverse()
	if !ok {
		return false
	}
	for r := range 3 {
		for c := range 4 {
			if !(abs32(m[r][c]) <= 1e3 && abs32(inv[r][c]) <= 1e3) {
				return false
			}
		}
	}
	return true
}

// FuzzBuildTLAS builds a top level from fuzzed instances: BuildTLAS never
// panics and returns nil or an *InputError; a built one keeps its
// invariants; and the top level of its well-conditioned instances
// (wellConditioned) answers rays as the brute-force oracle over them does
// (the same t; where another instance's hit lies at the same t, that
// instance's own brute-force hit must be there too).
func FuzzBuildTLAS(f *testing.F) {
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 16 {
		seed := make([]byte, (1+i)*(4+48))
		for k := range seed {
			seed[k] = byte(rng.Uint32())
		}
		for j := 0; j+3 < len(seed); j += 4 + 48 {
			seed[j+2] &= 3 // flags that go together (not both FORCE_ bits)
			seed[j+3] = 0  // well-formed transforms
		}
		f.Add(seed)
	}
	blases := fuzzBLASes(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		insts := fuzzInstances(data, blases)
		tl, err := BuildTLAS(insts, 0)
		if refused(t, err) {
			return
		}
		if err := tl.checkInvariants(); err != nil {
			t.Fatal(err)
		}
		var good []Instance
		for _, in := range insts {
			if in.BLAS != nil && wellConditioned(in.Transform) {
				good = append(good, in)
			}
		}
		insts = good
		if tl, err = BuildTLAS(insts, 0); err != nil {
			t.Fatalf("the well-conditioned instances of a top level that built: %v", err)
		}
		fuzzRaysMatchOracle(t, tl, insts, uint64(len(data)))
	})
}

// fuzzRaysMatchOracle traces 32 rays (from seed) through tl and checks
// each against the brute-force oracle over insts: the same t, and where
// another instance's hit lies at that t, that instance's own hit there
// too (tiedInstanceHit); and the Traversal's walk against the plain query.
func fuzzRaysMatchOracle(t *testing.T, tl *TLAS, insts []Instance, seed uint64) {
	t.Helper()
	rrng := rand.New(rand.NewPCG(seed, 7))
	for i := range 32 {
		r := Ray{Origin: randVec(rrng, 6), Direction: randVec(rrng, 1), TMax: float32(math.Inf(1))}
		want, wok := bruteClosest(insts, r, 0xff)
		got, gok := tl.Intersect(r, 0, 0xff)
		if wok != gok || wok && got.T != want.T {
			t.Fatalf("ray %d: got %v %+v, oracle %v %+v", i, gok, got, wok, want)
		}
		if wok && got.InstanceIndex != want.InstanceIndex && !tiedInstanceHit(insts, r, got, want) {
			t.Fatalf("ray %d: got instance %d at t %g, where it has no hit of its own; oracle %+v", i, got.InstanceIndex, got.T, want)
		}
		// The Traversal's walk, every triangle a candidate that it
		// commits, gives the plain query's hit (TestFastPathMatchesTraversal).
		// So does its first-hit walk (the yield walks' first-hit order,
		// top level and instances): the plain query's first hit.
		for _, flags := range []RayFlags{RayFlagForceNonOpaque, RayFlagForceNonOpaque | RayFlagAcceptFirstHitAndEndSearch} {
			walked, walkedOK := traverseClosest(tl, nil, r, flags, 0xff)
			if plain, ok := tl.Intersect(r, flags, 0xff); walkedOK != ok || walked != plain {
				t.Fatalf("ray %d, flags %v: the Traversal's walk gives %v %+v, Intersect %v %+v", i, flags, walkedOK, walked, ok, plain)
			}
		}
	}
}

// fuzzBLASes are the fuzzed top levels' three BLASes (1, 4 and 40
// triangles).
func fuzzBLASes(f *testing.F) []*BLAS {
	brng := rand.New(rand.NewPCG(3, 4))
	var blases []*BLAS
	for _, n := range []int{1, 4, 40} {
		pos, idx := randomSoup(brng, n, 0.3)
		blases = append(blases, mustBLAS(f, []Geometry{TriangleGeometry(pos, idx)}, 0))
	}
	return blases
}

// allWellConditioned reports whether every instance with a BLAS has a
// well-conditioned transform (wellConditioned).
func allWellConditioned(insts []Instance) bool {
	for _, in := range insts {
		if in.BLAS != nil && !wellConditioned(in.Transform) {
			return false
		}
	}
	return true
}

// FuzzUpdateTLAS updates a top level built with BuildAllowUpdate from one
// fuzzed set of instances to another of the same count ("Top-level
// acceleration structure updates": anything about an instance may change,
// a refit where the same instances stay active, a build where not):
// Update never panics and returns nil or an *InputError; a refused update
// leaves the structure as it was (its instances, and its answers where
// they can be checked); an accepted one gives the new instances back,
// keeps the invariants and, where every instance is well-conditioned,
// answers as the brute-force oracle over the new instances does.
func FuzzUpdateTLAS(f *testing.F) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 12 {
		seed := make([]byte, 2*(1+i)*(4+48))
		for k := range seed {
			seed[k] = byte(rng.Uint32())
		}
		for j := 0; j+3 < len(seed); j += 4 + 48 {
			seed[j+2] &= 3 // flags that go together (not both FORCE_ bits)
			seed[j+3] = 0  // well-formed transforms
			if i%3 != 2 {
				seed[j] = seed[j] &^ 3 // the same BLAS before and after: a refit
			}
		}
		if i%3 == 1 {
			// As many active instances before and after, not the same
			// ones: the first inactive before, the second after (a build).
			seed[0] |= 3
			seed[len(seed)/2+4+48] |= 3
		}
		f.Add(seed)
	}
	blases := fuzzBLASes(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		half := len(data) / 2 / (4 + 48) * (4 + 48)
		before, after := fuzzInstances(data[:half], blases), fuzzInstances(data[half:], blases)
		n := min(len(before), len(after))
		before, after = before[:n], after[:n]
		tl, err := BuildTLAS(before, BuildAllowUpdate)
		if refused(t, err) {
			return
		}
		want := after
		if refused(t, tl.Update(after)) {
			want = before // a refused update leaves the structure as it was
		}
		for i := range want {
			if tl.Instance(i) != want[i] {
				t.Fatalf("instance %d after the update (refused: %v): %+v, want %+v", i, &want[0] == &before[0], tl.Instance(i), want[i])
			}
		}
		if err := tl.checkInvariants(); err != nil {
			t.Fatal(err)
		}
		if allWellConditioned(want) {
			fuzzRaysMatchOracle(t, tl, want, uint64(len(data)))
		}
	})
}

// An instance whose world box overflows float32 (a sliver 2e37 long in x,
// scaled by 100 in x: its box runs from -Inf to +Inf there, its centroid
// is not a number) is
// culled by a box that still holds every finite point, and the other
// instances' boxes still hold theirs: the top level answers as the oracle
// does, and rays do reach the large triangle.
func TestTopLevelInstanceBoxOverflows(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	pos, idx := randomSoup(rng, 30, 0.5)
	small := mustBLAS(t, []Geometry{TriangleGeometry(pos, idx)}, 0)
	large := mustBLAS(t, []Geometry{TriangleGeometry([]vec.Vec3{vec.V3(-1e37, -1, 2), vec.V3(1e37, -1, 2), vec.V3(0, 1, 2)}, nil)}, 0)
	var insts []Instance
	for i := range 9 {
		in := Instance{Transform: randomRotation(rng), InstanceMask: 0xff, BLAS: small}
		if i == 4 {
			in.Transform, in.BLAS = vec.Mat3x4{{100, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}, large
		}
		insts = append(insts, in)
	}
	tl, err := BuildTLAS(insts, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := tl.checkInvariants(); err != nil {
		t.Fatal(err)
	}
	if box := tl.instances[4].worldBox(); box.Min.X != -math.MaxFloat32 || box.Max.X != math.MaxFloat32 {
		t.Fatalf("the overflowing instance's box %v, want the float32 range in x", box)
	}
	oracleHitting(t, tl, insts, rng, 4)
}

// oracleHitting casts 4000 random rays (from rng) at tl, checks their
// closest hits against the oracle over insts (oracleTLAS), and returns how
// many hit instance want, failing t where none does: the case would test
// nothing.
func oracleHitting(t *testing.T, tl *TLAS, insts []Instance, rng *rand.Rand, want uint32) (hits int) {
	t.Helper()
	rays := make([]Ray, 4000)
	for i := range rays {
		rays[i] = Ray{Origin: randVec(rng, 4), Direction: randVec(rng, 1), TMax: float32(math.Inf(1))}
	}
	oracleTLAS(t, tl, insts, rays)
	for _, r := range rays {
		if h, ok := tl.Intersect(r, 0, 0xff); ok && h.InstanceIndex == want {
			hits++
		}
	}
	if hits == 0 {
		t.Fatalf("no ray hit instance %d: the case tests nothing", want)
	}
	return hits
}
