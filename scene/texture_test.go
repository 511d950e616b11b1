package scene

import (
	"math"
	"testing"
)

func TestTextureSample(t *testing.T) {
	tex := NewTexture("t", 2, 2)
	tex.Set(0, 0, [4]float32{1, 0, 0, 1})
	tex.Set(1, 0, [4]float32{0, 1, 0, 1})
	tex.Set(0, 1, [4]float32{0, 0, 1, 1})
	tex.Set(1, 1, [4]float32{1, 1, 1, 0})
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	tests := []struct {
		u, v float32
		want [4]float32
	}{
		{0.25, 0.25, [4]float32{1, 0, 0, 1}}, // texel centers
		{0.75, 0.25, [4]float32{0, 1, 0, 1}},
		{0.25, 0.75, [4]float32{0, 0, 1, 1}},
		{1.25, -0.75, [4]float32{1, 0, 0, 1}},       // repeat
		{0.5, 0.25, [4]float32{0.5, 0.5, 0, 1}},     // bilinear between two
		{0, 0.25, [4]float32{0.5, 0.5, 0, 1}},       // wraps across the edge
		{0.5, 0.5, [4]float32{0.5, 0.5, 0.5, 0.75}}, // four texels
		{nan, inf, tex.Sample(0, 0)},
	}
	for _, tc := range tests {
		if got := tex.Sample(tc.u, tc.v); got != tc.want {
			t.Errorf("Sample(%g, %g) = %v, want %v", tc.u, tc.v, got, tc.want)
		}
	}
	if got := (&Texture{}).Sample(0.5, 0.5); got != [4]float32{1, 1, 1, 1} {
		t.Errorf("empty texture sample %v", got)
	}
	if a := testing.AllocsPerRun(100, func() { tex.Sample(0.3, 0.7) }); a != 0 {
		t.Errorf("Sample allocates %v times", a)
	}
}

func TestCheckerTexture(t *testing.T) {
	a, b := [4]float32{1, 1, 1, 1}, [4]float32{0, 0, 0, 1}
	tex := CheckerTexture("c", 8, 2, a, b)
	if tex.At(0, 0) != a || tex.At(4, 0) != b || tex.At(4, 4) != a || tex.At(3, 7) != b {
		t.Errorf("checker layout wrong")
	}
}

func BenchmarkTextureSample(b *testing.B) {
	tex := CheckerTexture("c", 512, 8, [4]float32{1, 1, 1, 1}, [4]float32{0, 0, 0, 1})
	var sink float32
	u := float32(0)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		u += 0.0137
		sink += tex.Sample(u, u*0.7)[0]
	}
	_ = sink
}
