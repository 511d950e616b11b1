package accel

import (
	"math"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/raypipe/raypipe/vec"
)

// atDepth calls f n frames deeper than its caller and returns the address
// of a local of the innermost frame, so that a caller can place a query's
// frames at chosen stack depths.
//
//go:noinline
func atDepth(n int, f func()) uintptr {
	var local [8]byte
	if n == 0 {
		f()
		return uintptr(unsafe.Pointer(&local))
	}
	return atDepth(n-1, f) + uintptr(local[n&7])
}

// BenchmarkQueryStackDepth traces the same primary rays over the 1k
// terrain from callers at stack depths that cover every 8-byte position
// in a 4 KB page, and reports the median nanoseconds per ray over those
// depths, the 95th percentile's ratio to it and how many depths took more
// than 1.12 times the median. Go places the assembly's frame wherever the caller's
// depth puts it; stores in that frame that share a page offset with data
// the walk then loads (4K aliasing), or that straddle a cache line, once
// made some callers 20-30% slower than others (LANEBASE, FRAMELEAF in
// fused_amd64.s): a window of about 30 consecutive slow depths. A handful
// of scattered slow depths is the machine's noise.
func BenchmarkQueryStackDepth(b *testing.B) {
	bl := cachedBLAS(b, "terrain", 1000)
	rays := make([]Ray, 0, 64*64)
	for i := range 64 * 64 {
		u, v := float32(i%64)/32-1, float32(i/64)/32-1
		rays = append(rays, Ray{Origin: vec.V3(0, -0.5, 3), Direction: vec.V3(u*0.4, v*0.4+0.15, -1), TMax: float32(math.Inf(1))})
	}
	hits := make([]Hit, len(rays))
	var perRay []float64
	offsets := map[uintptr]bool{}
	b.ResetTimer()
	for range b.N {
		perRay = perRay[:0]
		for depth := 0; depth < 4096 && (depth < 512 || len(offsets) < 512); depth++ {
			best := time.Duration(math.MaxInt64)
			sp := atDepth(depth, func() {
				for range 3 {
					start := time.Now()
					for i := range rays {
						bl.IntersectTo(&rays[i], 0, &hits[i])
					}
					best = min(best, time.Since(start))
				}
			})
			offsets[sp%4096] = true
			perRay = append(perRay, float64(best.Nanoseconds())/float64(len(rays)))
		}
	}
	sorted := slices.Sorted(slices.Values(perRay))
	median := sorted[len(sorted)/2]
	slow := 0
	for _, ns := range perRay {
		if ns > 1.12*median {
			slow++
		}
	}
	b.ReportMetric(median, "median-ns/ray")
	b.ReportMetric(sorted[len(sorted)*95/100]/median, "p95/median")
	b.ReportMetric(float64(slow), "slow-depths")
	b.ReportMetric(float64(len(perRay)), "depths")
	b.ReportMetric(float64(len(offsets)), "page-offsets")
}
