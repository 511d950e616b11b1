// Package tally gathers the rates of repeated runs of a side-by-side
// comparison (cmd/embreecmp's -runs) and reduces them to medians: of each
// tracer's rate, and of each ratio between two tracers taken within each
// run, with the lowest and highest run beside it. On a shared machine
// whose speed drifts from minute to minute, a ratio of two rates measured
// in the same run is what holds steady; its median over runs is what the
// README's table of raypipe against Embree quotes.
package tally

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Tally is the runs of every scene, in the order the scenes were first
// added.
type Tally struct {
	scenes []*Scene
	byName map[string]*Scene
}

// Scene is one scene's runs: every run has a rate for each tracer and row.
type Scene struct {
	Name    string
	Rows    []string
	Tracers []string
	runs    [][][]float64 // [run][tracer][row]
}

// Add records one run of the scene name: rates[t][r] is tracer
// tracers[t]'s rate on row rows[r]. Every run of a scene must have the
// same rows and tracers.
func (t *Tally) Add(name string, rows, tracers []string, rates [][]float64) error {
	if len(rates) != len(tracers) {
		return fmt.Errorf("tally: %s: %d tracers' rates for %d tracers", name, len(rates), len(tracers))
	}
	for i, r := range rates {
		if len(r) != len(rows) {
			return fmt.Errorf("tally: %s: %s has %d rates for %d rows", name, tracers[i], len(r), len(rows))
		}
	}
	s := t.byName[name]
	if s == nil {
		s = &Scene{Name: name, Rows: slices.Clone(rows), Tracers: slices.Clone(tracers)}
		if t.byName == nil {
			t.byName = map[string]*Scene{}
		}
		t.byName[name] = s
		t.scenes = append(t.scenes, s)
	} else if !slices.Equal(s.Rows, rows) || !slices.Equal(s.Tracers, tracers) {
		return fmt.Errorf("tally: %s: a run with other rows or tracers than the first", name)
	}
	run := make([][]float64, len(rates))
	for i, r := range rates {
		run[i] = slices.Clone(r)
	}
	s.runs = append(s.runs, run)
	return nil
}

// Scenes returns the scenes in the order they were first added.
func (t *Tally) Scenes() []*Scene { return t.scenes }

// Runs returns the number of runs recorded for the scene.
func (s *Scene) Runs() int { return len(s.runs) }

// Rate returns the median over the runs of tracer ti's rate on row ri.
func (s *Scene) Rate(ti, ri int) float64 {
	return Summarize(s.each(func(run [][]float64) float64 { return run[ti][ri] })).Median
}

// Ratio summarizes, over the runs, tracer a's rate on row ri divided by
// tracer b's in the same run.
func (s *Scene) Ratio(a, b, ri int) Spread {
	return Summarize(s.each(func(run [][]float64) float64 { return run[a][ri] / run[b][ri] }))
}

func (s *Scene) each(f func(run [][]float64) float64) []float64 {
	out := make([]float64, len(s.runs))
	for i, run := range s.runs {
		out[i] = f(run)
	}
	return out
}

// Spread is the median of a set of values and its lowest and highest.
type Spread struct{ Median, Low, High float64 }

// Summarize returns the median (the mean of the middle two for an even
// count) and the extremes of xs; zero for none.
func Summarize(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	m := s[n/2]
	if n%2 == 0 {
		m = (s[n/2-1] + s[n/2]) / 2
	}
	return Spread{Median: m, Low: s[0], High: s[n-1]}
}

// Markdown writes a table of the median ratios of tracer num to each of
// dens, one line per scene that has them all and one column per row kind
// of kinds (e.g. "shadow", "build"): in each cell the ratios on the kind's
// one-thread row, joined by " · ", then " / " and the same on its
// all-threads row, as the README's table of raypipe against Embree gives
// them. A kind's rows are found by name: "<kind> 1T ..." and "<kind> <n>T
// ..." (the second "1T" row where all threads are one), either after a
// "top " (a top level's rows); a cell whose rows a scene lacks is "–".
// corner heads the scenes' column.
func (t *Tally) Markdown(w io.Writer, corner, num string, dens, kinds []string) error {
	var b strings.Builder
	b.WriteString("| " + corner + " |")
	for _, k := range kinds {
		b.WriteString(" " + k + " |")
	}
	b.WriteString("\n|---|")
	for range kinds {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, s := range t.scenes {
		a := slices.Index(s.Tracers, num)
		var bs []int
		for _, d := range dens {
			if i := slices.Index(s.Tracers, d); i >= 0 {
				bs = append(bs, i)
			}
		}
		if a < 0 || len(bs) != len(dens) {
			continue
		}
		b.WriteString("| " + s.Name + " |")
		for _, k := range kinds {
			one, all := s.kindRows(k)
			if one < 0 || all < 0 {
				b.WriteString(" – |")
				continue
			}
			b.WriteString(" " + s.cell(a, bs, one) + " / " + s.cell(a, bs, all) + " |")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell is the median ratios of tracer a to each of bs on row ri.
func (s *Scene) cell(a int, bs []int, ri int) string {
	parts := make([]string, len(bs))
	for i, d := range bs {
		parts[i] = fmt.Sprintf("%.2f", s.Ratio(a, d, ri).Median)
	}
	return strings.Join(parts, " · ")
}

// kindRows returns the indices of kind's one-thread and all-threads rows,
// -1 where there is none.
func (s *Scene) kindRows(kind string) (one, all int) {
	one, all = -1, -1
	for i, r := range s.Rows {
		f := strings.Fields(strings.TrimPrefix(r, "top "))
		if len(f) < 2 || f[0] != kind || !strings.HasSuffix(f[1], "T") {
			continue
		}
		switch {
		case f[1] == "1T" && one < 0:
			one = i
		case all < 0: // with one thread in all, its second "1T" row
			all = i
		}
	}
	return one, all
}
