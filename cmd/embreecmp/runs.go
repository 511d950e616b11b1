//go:build embree

package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/raypipe/raypipe/internal/tally"
)

// runs gathers every scene's table of every run, for -runs.
var runs tally.Tally

// record adds a scene's table of this run to runs.
func record(scene string, rows []string, tracers []tracer, results []result) error {
	rates := make([][]float64, len(tracers))
	for ti := range tracers {
		rates[ti] = make([]float64, len(rows))
		for ri, row := range rows {
			rates[ti][ri] = results[ti][row]
		}
	}
	return runs.Add(scene, rows, tracerNames(tracers), rates)
}

// readmeKinds are the columns of the README's table, in its order.
var readmeKinds = []string{"shadow", "incoherent", "primary", "build"}

// printRuns writes, after -runs runs, each scene's medians over the runs:
// every tracer's rate and every ratio column's median, each ratio taken
// within its run, with the lowest and highest run's; then, for each
// raypipe tracer, the README's table: its median ratios to every Embree
// tracer, one thread / all threads, a line per scene.
func printRuns(w io.Writer, t *tally.Tally, tracers []tracer) error {
	n := 0
	if sc := t.Scenes(); len(sc) > 0 {
		n = sc[0].Runs()
	}
	fmt.Fprintf(w, "\n### medians of %d runs (each ratio taken within its run; the lowest and highest run's in brackets)\n", n)
	for _, s := range t.Scenes() {
		fmt.Fprintf(w, "\n== %s\n", s.Name)
		pairs := presentPairs(s.Tracers)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		tableHeading(tw, s.Tracers, pairs)
		for ri, row := range s.Rows {
			fmt.Fprintf(tw, "%s\t", row)
			for ti := range s.Tracers {
				fmt.Fprintf(tw, "%.2f\t", s.Rate(ti, ri))
			}
			for _, p := range pairs {
				r := s.Ratio(p[0], p[1], ri)
				fmt.Fprintf(tw, "%.2fx [%.2f-%.2f]\t", r.Median, r.Low, r.High)
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	var embrees []string
	for _, tr := range tracers {
		if strings.HasPrefix(tr.Name(), "embree-") {
			embrees = append(embrees, tr.Name())
		}
	}
	for _, tr := range tracers {
		num := tr.Name()
		if !strings.HasPrefix(num, "raypipe-") || len(embrees) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n### the README's table: %s ÷ %s, one thread / %d, medians of %d runs\n\n",
			num, strings.Join(embrees, " · ÷ "), *flagThreads, n)
		if err := t.Markdown(w, fmt.Sprintf("%s, %d runs", processor(), n), num, embrees, readmeKinds); err != nil {
			return err
		}
	}
	return nil
}

// presentPairs are the ratio columns (ratioPairs) whose two tracers are
// both among names, as indices into names.
func presentPairs(names []string) [][2]int {
	var pairs [][2]int
	for _, p := range ratioPairs {
		a, b := slices.Index(names, p[0]), slices.Index(names, p[1])
		if a >= 0 && b >= 0 {
			pairs = append(pairs, [2]int{a, b})
		}
	}
	return pairs
}
