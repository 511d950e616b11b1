package tally

import (
	"strings"
	"testing"
)

func TestSummarizeMedianOddEvenAndNone(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want Spread
	}{
		{[]float64{3, 1, 2}, Spread{2, 1, 3}},
		{[]float64{4, 1, 3, 2}, Spread{2.5, 1, 4}},
		{[]float64{7}, Spread{7, 7, 7}},
		{nil, Spread{}},
	} {
		if got := Summarize(c.xs); got != c.want {
			t.Errorf("Summarize(%v) = %+v, want %+v", c.xs, got, c.want)
		}
	}
	xs := []float64{3, 1, 2}
	Summarize(xs)
	if xs[0] != 3 || xs[1] != 1 {
		t.Errorf("Summarize reordered its argument: %v", xs)
	}
}

// The ratio of two tracers is taken within each run, then its median:
// not the ratio of the median rates, which pairs rates of different runs.
func TestRatioIsTheMedianOfEachRunsRatio(t *testing.T) {
	var ta Tally
	rows, tracers := []string{"shadow 1T Mrays/s"}, []string{"embree", "raypipe"}
	// Runs whose machine was slow, normal and fast: raypipe/embree is
	// 0.5, 1.0 and 0.9 in them; the median rates are 4 and 4 (ratio 1.0).
	for _, r := range [][2]float64{{2, 1}, {4, 4}, {10, 9}} {
		if err := ta.Add("s", rows, tracers, [][]float64{{r[0]}, {r[1]}}); err != nil {
			t.Fatal(err)
		}
	}
	s := ta.Scenes()[0]
	if got := s.Ratio(1, 0, 0); got != (Spread{0.9, 0.5, 1.0}) {
		t.Errorf("Ratio = %+v, want median 0.9 of 0.5, 1.0, 0.9", got)
	}
	if got := s.Rate(1, 0); got != 4 {
		t.Errorf("Rate(raypipe) = %v, want the median 4 of 1, 4, 9", got)
	}
	if s.Runs() != 3 {
		t.Errorf("Runs = %d, want 3", s.Runs())
	}
}

func TestAddRejectsRunsThatDoNotMatch(t *testing.T) {
	var ta Tally
	rows, tracers := []string{"a", "b"}, []string{"x", "y"}
	ok := [][]float64{{1, 2}, {3, 4}}
	if err := ta.Add("s", rows, tracers, ok); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		rows, tracers []string
		rates         [][]float64
	}{
		"fewer tracers' rates": {rows, tracers, [][]float64{{1, 2}}},
		"fewer rows' rates":    {rows, tracers, [][]float64{{1, 2}, {3}}},
		"other rows":           {[]string{"a", "c"}, tracers, ok},
		"other tracers":        {rows, []string{"y", "x"}, ok},
	} {
		if err := ta.Add("s", c.rows, c.tracers, c.rates); err == nil {
			t.Errorf("%s: Add accepted it", name)
		} else if !strings.Contains(err.Error(), "s:") {
			t.Errorf("%s: error %q does not name the scene", name, err)
		}
	}
	if n := ta.Scenes()[0].Runs(); n != 1 {
		t.Errorf("rejected runs were kept: %d runs", n)
	}
	// A caller's slices changed after Add do not change the run.
	ok[1][0] = 100
	if got := ta.Scenes()[0].Rate(1, 0); got != 3 {
		t.Errorf("Rate after the caller's change = %v, want 3", got)
	}
}

// The README's form: the ratios to each denominator joined by " · ", one
// thread / all threads, "top " rows found as a top level's, "–" for a
// kind a scene lacks, scenes without every tracer left out.
func TestMarkdownGivesTheREADMEsCells(t *testing.T) {
	var ta Tally
	tracers := []string{"embree-medium", "embree-medium-robust", "raypipe-fasttrace"}
	mesh := []string{"build 1T Mtris/s", "build 2T Mtris/s", "shadow 1T Mrays/s", "shadow 2T Mrays/s"}
	top := []string{"top build 1T Minst/s", "top build 2T Minst/s", "shadow 1T Mrays/s", "shadow 2T Mrays/s"}
	for _, run := range [][][]float64{
		{{10, 20, 4, 8}, {5, 10, 2, 4}, {12, 30, 3, 8}},
		{{10, 20, 4, 8}, {5, 10, 2, 4}, {8, 16, 5, 8}},
		{{10, 20, 4, 8}, {5, 10, 2, 4}, {9, 22, 4.4, 9}},
	} {
		if err := ta.Add("terrain-10k", mesh, tracers, run); err != nil {
			t.Fatal(err)
		}
		if err := ta.Add("instances-1k", top, tracers, run); err != nil {
			t.Fatal(err)
		}
		if err := ta.Add("other", mesh, []string{"embree-medium", "raypipe-fasttrace"}, [][]float64{run[0], run[2]}); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	if err := ta.Markdown(&b, "Zen 3", "raypipe-fasttrace", []string{"embree-medium", "embree-medium-robust"}, []string{"shadow", "incoherent", "build"}); err != nil {
		t.Fatal(err)
	}
	// shadow 1T: raypipe/embree 0.75, 1.25, 1.1 -> 1.10; /robust 1.5,
	// 2.5, 2.2 -> 2.20. 2T: 1.0, 1.0, 1.125 -> 1.00; 2.0, 2.0, 2.25 ->
	// 2.00. build 1T: 1.2, 0.8, 0.9 -> 0.90; 2.4, 1.6, 1.8 -> 1.80. 2T:
	// 1.5, 0.8, 1.1 -> 1.10; 3.0, 1.6, 2.2 -> 2.20.
	want := "| Zen 3 | shadow | incoherent | build |\n" +
		"|---|---|---|---|\n" +
		"| terrain-10k | 1.10 · 2.20 / 1.00 · 2.00 | – | 0.90 · 1.80 / 1.10 · 2.20 |\n" +
		"| instances-1k | 1.10 · 2.20 / 1.00 · 2.00 | – | 0.90 · 1.80 / 1.10 · 2.20 |\n"
	if b.String() != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestKindRowsWithOneThreadTakeTheSecond1TRow(t *testing.T) {
	s := Scene{Rows: []string{"build 1T Mtris/s", "build 1T Mtris/s", "shadow 1T Mrays/s", "shadow 16T Mrays/s", "top build 1T Minst/s"}}
	for _, c := range []struct {
		kind     string
		one, all int
	}{{"build", 0, 1}, {"shadow", 2, 3}, {"primary", -1, -1}} {
		if one, all := s.kindRows(c.kind); one != c.one || all != c.all {
			t.Errorf("kindRows(%q) = %d, %d, want %d, %d", c.kind, one, all, c.one, c.all)
		}
	}
}
