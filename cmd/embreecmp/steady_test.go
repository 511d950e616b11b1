//go:build embree

package main

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/raypipe/raypipe/internal/embree"
	"github.com/raypipe/raypipe/internal/raygen"
)

// countingScene records the first ray index of every chunk it is handed.
type countingScene struct {
	rays []raygen.Ray
	mu   sync.Mutex
	los  []int
}

func (s *countingScene) record(rays []raygen.Ray) {
	if len(rays) == 0 || len(rays) > embree.ChunkSize {
		panic("chunk of the wrong size")
	}
	lo := 0
	for &s.rays[lo] != &rays[0] {
		lo++
	}
	s.mu.Lock()
	s.los = append(s.los, lo)
	s.mu.Unlock()
}
func (s *countingScene) Intersect(rays []raygen.Ray, hits []hit) { s.record(rays) }
func (s *countingScene) Occluded(rays []raygen.Ray, out []bool)  { s.record(rays) }
func (s *countingScene) Close()                                  {}

// The steady-state runs trace whole chunks for at least their duration,
// every thread starting at a chunk of its own.
func TestSteadyRateTracesChunksForTheDuration(t *testing.T) {
	rays := make([]raygen.Ray, 3*embree.ChunkSize+5)
	for _, occluded := range []bool{false, true} {
		sc := &countingScene{rays: rays}
		k := rayKind{name: "k", rays: rays, occluded: occluded}
		start := time.Now()
		rate := steadyRate(k, sc, 3, 5*time.Millisecond)
		if el := time.Since(start); el < 5*time.Millisecond {
			t.Errorf("occluded %v: returned after %v, want the 5ms run", occluded, el)
		}
		if rate <= 0 {
			t.Errorf("occluded %v: rate %v", occluded, rate)
		}
		seen := map[int]bool{}
		for _, lo := range sc.los {
			if lo%embree.ChunkSize != 0 {
				t.Fatalf("occluded %v: a chunk starts at ray %d", occluded, lo)
			}
			seen[lo] = true
		}
		if len(seen) != 4 {
			t.Errorf("occluded %v: chunks traced start at %v, want all four", occluded, seen)
		}
	}
}

func TestParseThreadList(t *testing.T) {
	got, err := parseThreadList("1, 4,16", nil)
	if err != nil || !slices.Equal(got, []int{1, 4, 16}) {
		t.Errorf(`parseThreadList("1, 4,16") = %v, %v`, got, err)
	}
	if got, err := parseThreadList("", []int{1, 8}); err != nil || !slices.Equal(got, []int{1, 8}) {
		t.Errorf(`parseThreadList("") = %v, %v; want the default`, got, err)
	}
	for _, bad := range []string{"0", "1,x", "-2", ","} {
		if _, err := parseThreadList(bad, nil); err == nil {
			t.Errorf("parseThreadList(%q) accepted", bad)
		}
	}
}

func TestSteadyFlagsRefuseANegativeDuration(t *testing.T) {
	if _, err := steadyFlags(-time.Millisecond, "", []int{1}); err == nil || !strings.Contains(err.Error(), "-steady") {
		t.Errorf("steadyFlags(-1ms) = %v, want an error naming -steady", err)
	}
	if got, err := steadyFlags(0, "2,4", nil); err != nil || !slices.Equal(got, []int{2, 4}) {
		t.Errorf(`steadyFlags(0, "2,4") = %v, %v`, got, err)
	}
}
