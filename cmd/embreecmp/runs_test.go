//go:build embree

package main

import (
	"strings"
	"testing"

	"github.com/raypipe/raypipe/internal/tally"
)

// TestRunsEndWithTheREADMEsTable records two runs of a scene as compare
// does (results by row name) and checks that printRuns gives each ratio
// column's median over the runs, with its range, and the README's table
// of every raypipe tracer against the Embree tracers, in -tracers order.
func TestRunsEndWithTheREADMEsTable(t *testing.T) {
	tracers, err := makeTracers("embree-medium,raypipe-fastbuild,embree-medium-robust,raypipe-fasttrace", "")
	if err != nil {
		t.Fatal(err)
	}
	rows := []string{"build 1T Mtris/s", "build 2T Mtris/s", "shadow 1T Mrays/s", "shadow 2T Mrays/s"}
	saved := runs
	defer func() { runs = saved }()
	runs = tally.Tally{}
	for _, scale := range []float64{1, 3} { // the second run on a machine three times as fast
		results := newResults(len(tracers))
		for ri, row := range rows {
			base := scale * float64(ri+1)
			results[0][row] = base       // embree-medium
			results[1][row] = 0.5 * base // raypipe-fastbuild
			results[2][row] = 0.5 * base // embree-medium-robust
			results[3][row] = 1.2 * base // raypipe-fasttrace
		}
		if scale == 3 { // fasttrace / medium on shadow 1T: 1.2 in the first run, 1.0 here
			results[3]["shadow 1T Mrays/s"] = results[0]["shadow 1T Mrays/s"]
		}
		if err := record("terrain-10k", rows, tracers, results); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	if err := printRuns(&b, &runs, tracers); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"### medians of 2 runs",
		"shadow 1T Mrays/s           6.00",
		"1.10x [1.00-1.20]", // shadow 1T, fasttrace / medium
		"0.50x [0.50-0.50]", // fastbuild / medium, every row
		"raypipe-fastbuild ÷ embree-medium · ÷ embree-medium-robust",
		"| terrain-10k | 0.50 · 1.00 / 0.50 · 1.00 | – | – | 0.50 · 1.00 / 0.50 · 1.00 |",
		"raypipe-fasttrace ÷ embree-medium · ÷ embree-medium-robust",
		"| terrain-10k | 1.10 · 2.20 / 1.20 · 2.40 | – | – | 1.20 · 2.40 / 1.20 · 2.40 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("printRuns' output lacks %q:\n%s", want, out)
		}
	}
}

// TestRunsBelowOneIsAnError checks that -runs 0 ends the run naming the
// flag before anything is built or printed.
func TestRunsBelowOneIsAnError(t *testing.T) {
	defer func(r int, s string) { *flagRuns, *flagSizes = r, s }(*flagRuns, *flagSizes)
	*flagRuns, *flagSizes = 0, "1k"
	if err := run(); err == nil || !strings.Contains(err.Error(), "-runs 0") {
		t.Errorf("-runs 0: error %v, want one naming it", err)
	}
}
