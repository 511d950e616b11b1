package meshgen

import (
	"slices"
	"testing"
)

func TestTerrain(t *testing.T) {
	for _, n := range []int{1, 2, 10, 1000, 10001} {
		pos, idx := Terrain(n, 1)
		if len(idx)%3 != 0 || len(idx)/3 < n {
			t.Errorf("Terrain(%d): %d indices", n, len(idx))
		}
		for _, i := range idx {
			if int(i) >= len(pos) {
				t.Fatalf("Terrain(%d): index %d out of range (%d vertices)", n, i, len(pos))
			}
		}
		for _, p := range pos {
			if p.X < -1 || p.X > 1 || p.Z < -1 || p.Z > 1 || p.Y < -0.5 || p.Y > 0.5 {
				t.Fatalf("Terrain(%d): vertex %v out of range", n, p)
			}
		}
		// Counter-clockwise seen from above: normals point up.
		for i := 0; i < len(idx); i += 3 {
			a, b, c := pos[idx[i]], pos[idx[i+1]], pos[idx[i+2]]
			if b.Sub(a).Cross(c.Sub(a)).Y <= 0 {
				t.Fatalf("Terrain(%d): triangle %d faces down", n, i/3)
			}
		}
	}
	p1, i1 := Terrain(500, 7)
	p2, i2 := Terrain(500, 7)
	if !slices.Equal(p1, p2) || !slices.Equal(i1, i2) {
		t.Error("Terrain is not deterministic")
	}
}

func TestSoup(t *testing.T) {
	pos, idx := Soup(1000, 3)
	if len(idx) != 3000 || len(pos) != 3000 {
		t.Fatalf("Soup(1000): %d vertices, %d indices", len(pos), len(idx))
	}
	for _, p := range pos {
		if !p.IsFinite() || p.X < -2 || p.X > 2 || p.Y < -2 || p.Y > 2 || p.Z < -2 || p.Z > 2 {
			t.Fatalf("vertex %v out of range", p)
		}
	}
	p2, i2 := Soup(1000, 3)
	if !slices.Equal(pos, p2) || !slices.Equal(idx, i2) {
		t.Error("Soup is not deterministic")
	}
	p3, _ := Soup(1000, 4)
	if slices.Equal(pos, p3) {
		t.Error("Soup ignores its seed")
	}
}

func TestPipes(t *testing.T) {
	per := 4 * PipeSegments
	for _, n := range []int{1, per, per + 1, 10000} {
		pos, idx := Pipes(n, 1)
		tris := len(idx) / 3
		if len(idx)%3 != 0 || tris < n || tris >= n+per || tris%per != 0 {
			t.Errorf("Pipes(%d): %d indices", n, len(idx))
		}
		for _, i := range idx {
			if int(i) >= len(pos) {
				t.Fatalf("Pipes(%d): index %d out of range (%d vertices)", n, i, len(pos))
			}
		}
		for _, p := range pos {
			if !p.IsFinite() || p.X < -2.1 || p.X > 2.1 || p.Y < -2.1 || p.Y > 2.1 || p.Z < -2.1 || p.Z > 2.1 {
				t.Fatalf("Pipes(%d): vertex %v out of range", n, p)
			}
		}
		// Every triangle faces away from its pipe's axis (the sides) or
		// along it, away from the pipe's middle (the caps): its normal
		// points from the pipe's center toward the triangle.
		for i := 0; i < len(idx); i += 3 {
			pipe := int(idx[i]) / (2*PipeSegments + 2)
			first := pipe * (2*PipeSegments + 2)
			center := pos[first].Add(pos[first+1]).Scale(0.5)
			a, b, c := pos[idx[i]], pos[idx[i+1]], pos[idx[i+2]]
			mid := a.Add(b).Add(c).Scale(1.0 / 3)
			if b.Sub(a).Cross(c.Sub(a)).Dot(mid.Sub(center)) <= 0 {
				t.Fatalf("Pipes(%d): triangle %d faces in", n, i/3)
			}
		}
	}
	p1, i1 := Pipes(5000, 7)
	p2, i2 := Pipes(5000, 7)
	if !slices.Equal(p1, p2) || !slices.Equal(i1, i2) {
		t.Error("Pipes is not deterministic")
	}
	if p3, _ := Pipes(5000, 8); slices.Equal(p1, p3) {
		t.Error("Pipes ignores its seed")
	}
}
