package accel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

// TestLeafRowsAVXMatchesGo checks the assembly leaf layout against the
// leaf rows' definition (row 3*vertex+axis holds that coordinate of the
// leaf's n triangles, in slot order) and the union of the triangles'
// boxes against Go's min and max, bit for bit, for leaves of 1 to 8
// triangles whose coordinates tie (+0 and -0 among them) and, now and
// then, are not finite: it writes nothing around the n floats of each
// row (the primitive id row and the next leaf's rows are another
// goroutine's in an update), and a leaf with a coordinate that is not
// finite reports so and keeps *box.
func TestLeafRowsAVXMatchesGo(t *testing.T) {
	if !leafRowsFast {
		t.Skip("no assembly leaf rows here")
	}
	const guard = 16
	canary := math.Float32frombits(0x7fc0dead)
	values := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 2.5, -3.25, 1e-40, -1e30, 7}
	rng := rand.New(rand.NewPCG(6, 1))
	for trial := range 20000 {
		n := 1 + trial%maxLeafCount
		tris := make([]triVerts, n)
		for k := range tris {
			for v := range 3 {
				tris[k][v].X = values[rng.IntN(len(values))]
				tris[k][v].Y = values[rng.IntN(len(values))]
				tris[k][v].Z = values[rng.IntN(len(values))]
			}
		}
		finite := true
		if rng.IntN(8) == 0 {
			bad := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}[rng.IntN(3)]
			k, v := rng.IntN(n), rng.IntN(3)
			switch rng.IntN(3) {
			case 0:
				tris[k][v].X = bad
			case 1:
				tris[k][v].Y = bad
			default:
				tris[k][v].Z = bad
			}
			finite = false
		}
		buf := make([]float32, guard+rowsPerSlot*n+guard)
		for i := range buf {
			buf[i] = canary
		}
		box := canaryBox(canary)
		got := leafRowsAVX(&tris[0], n, &buf[guard], &box)
		if got != finite {
			t.Fatalf("trial %d: finite %v, want %v (%v)", trial, got, finite, tris)
		}
		for i, f := range buf {
			want := canary
			if r, k := (i-guard)/n, (i-guard)%n; i >= guard && r < 9 {
				want = [9]float32{
					tris[k][0].X, tris[k][0].Y, tris[k][0].Z,
					tris[k][1].X, tris[k][1].Y, tris[k][1].Z,
					tris[k][2].X, tris[k][2].Y, tris[k][2].Z,
				}[r]
			}
			if math.Float32bits(f) != math.Float32bits(want) {
				t.Fatalf("trial %d, %d triangles: float %d of the buffer (row %d from the block) is %v (%#x), want %v", trial, n, i, (i-guard)/n, f, math.Float32bits(f), want)
			}
		}
		want := canaryBox(canary)
		if finite {
			want = tris[0].bounds()
			for k := 1; k < n; k++ {
				b := tris[k].bounds()
				want.Min.X, want.Min.Y, want.Min.Z = min(want.Min.X, b.Min.X), min(want.Min.Y, b.Min.Y), min(want.Min.Z, b.Min.Z)
				want.Max.X, want.Max.Y, want.Max.Z = max(want.Max.X, b.Max.X), max(want.Max.Y, b.Max.Y), max(want.Max.Z, b.Max.Z)
			}
		}
		if !sameBoxBits(box, want) {
			t.Fatalf("trial %d, %d triangles: box %v, want %v (%v)", trial, n, box, want, tris)
		}
		// Without a box (a build's rows): the same rows, nothing around.
		rowsOnly := make([]float32, len(buf))
		for i := range rowsOnly {
			rowsOnly[i] = canary
		}
		if !leafRowsAVX(&tris[0], n, &rowsOnly[guard], nil) || !sameBytes(rowsOnly, buf) {
			t.Fatalf("trial %d, %d triangles: with no box, other rows or false", trial, n)
		}
	}
}

// bounds is the triangle's box with Go's min and max of its three
// vertices, axis by axis.
func (t *triVerts) bounds() AABB {
	var b AABB
	b.Min.X, b.Max.X = min(t[0].X, t[1].X, t[2].X), max(t[0].X, t[1].X, t[2].X)
	b.Min.Y, b.Max.Y = min(t[0].Y, t[1].Y, t[2].Y), max(t[0].Y, t[1].Y, t[2].Y)
	b.Min.Z, b.Max.Z = min(t[0].Z, t[1].Z, t[2].Z), max(t[0].Z, t[1].Z, t[2].Z)
	return b
}

func canaryBox(c float32) AABB {
	return AABB{Min: vec.V3(c, c, c), Max: vec.V3(c, c, c)}
}

func sameBoxBits(a, b AABB) bool {
	return sameBits(a.Min.X, b.Min.X) && sameBits(a.Min.Y, b.Min.Y) && sameBits(a.Min.Z, b.Min.Z) &&
		sameBits(a.Max.X, b.Max.X) && sameBits(a.Max.Y, b.Max.Y) && sameBits(a.Max.Z, b.Max.Z)
}
