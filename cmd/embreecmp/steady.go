//go:build embree

package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/raypipe/raypipe/internal/embree"
)

// The steady-state rows (-steady): how each tracer's rate per thread holds
// from one thread to many, away from what a short timed batch adds (the
// goroutines' start, the last chunks' imbalance). For each thread count
// every thread is locked to an OS thread, all start together
// (embree.Together, the start line of the tables' timings too), and each
// traces the kind's rays chunk after chunk, from its own first chunk
// round the batch, for the -steady duration; the row is the mean rate per
// thread and its ratio to the rate on the first of -steady-threads (one
// thread by default).

// steadyRate traces k's rays on sc from threads locked threads for about
// d, and returns the mean of the threads' rates in rays per second.
func steadyRate(k rayKind, sc scene, threads int, d time.Duration) float64 {
	n := len(k.rays)
	nchunks := max(1, (n+embree.ChunkSize-1)/embree.ChunkSize)
	rates := make([]float64, threads)
	hits := make([][]hit, threads)
	occ := make([][]bool, threads)
	embree.Together(threads, func(w int) {
		runtime.LockOSThread()
		if k.occluded {
			occ[w] = make([]bool, embree.ChunkSize)
		} else {
			hits[w] = make([]hit, embree.ChunkSize)
		}
	}, func(w int) {
		defer runtime.UnlockOSThread()
		start := time.Now()
		traced := 0
		for c := w % nchunks; traced == 0 || time.Since(start) < d; c = (c + 1) % nchunks {
			lo, hi := c*embree.ChunkSize, min((c+1)*embree.ChunkSize, n)
			if k.occluded {
				sc.Occluded(k.rays[lo:hi], occ[w][:hi-lo])
			} else {
				sc.Intersect(k.rays[lo:hi], hits[w][:hi-lo])
			}
			traced += hi - lo
		}
		rates[w] = float64(traced) / time.Since(start).Seconds()
	})
	sum := 0.0
	for _, r := range rates {
		sum += r
	}
	return sum / float64(threads)
}

// printSteady prints the steady-state rows of every kind for each of
// -steady-threads, every tracer's in turn, after a garbage collection.
func printSteady(kinds []rayKind, tracers []tracer, scenes []scene, threads []int) {
	fmt.Printf("steady state (%d-ray chunks, %v per run, threads locked and started together): Mrays/s per thread, ÷ its %d-thread rate\n", embree.ChunkSize, *flagSteady, threads[0])
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(w, "\t")
	for _, t := range tracers {
		fmt.Fprintf(w, "%s\t", t.Name())
	}
	for ti := 1; ti < len(tracers); ti++ {
		fmt.Fprintf(w, "%s/%s\t", short(tracers[ti].Name()), short(tracers[0].Name()))
	}
	fmt.Fprintln(w)
	for _, k := range kinds {
		one := make([]float64, len(tracers))
		for _, t := range threads {
			rate := make([]float64, len(tracers))
			var cells []string
			for ti := range tracers {
				runtime.GC()
				rate[ti] = steadyRate(k, scenes[ti], t, *flagSteady)
				if t == threads[0] {
					one[ti] = rate[ti]
				}
				cells = append(cells, fmt.Sprintf("%.2f (%.2f)", rate[ti]/1e6, rate[ti]/one[ti]))
			}
			for ti := 1; ti < len(tracers); ti++ {
				cells = append(cells, fmt.Sprintf("%.2fx", rate[ti]/rate[0]))
			}
			fmt.Fprintf(w, "%s %dT steady\t%s\t\n", k.name, t, strings.Join(cells, "\t"))
		}
	}
	w.Flush()
}

// steadyFlags checks -steady (d, not negative) and parses -steady-threads
// (s, with def where it is empty).
func steadyFlags(d time.Duration, s string, def []int) ([]int, error) {
	if d < 0 {
		return nil, fmt.Errorf("-steady %v: want a duration of 0 (no steady rows) or more", d)
	}
	return parseThreadList(s, def)
}

// parseThreadList parses -steady-threads: a comma-separated list of
// thread counts of at least 1; empty gives def.
func parseThreadList(s string, def []int) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return def, nil
	}
	var out []int
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-steady-threads: %q is not a thread count", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-steady-threads: %q names no thread count", s)
	}
	return out, nil
}
