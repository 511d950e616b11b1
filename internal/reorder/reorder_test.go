package reorder

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

func TestSortIsStableAndOrdered(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s Sorter
	// Masks of the bits the keys may differ in: few distinct digits, one
	// bit, a span that starts high, every bit, and the pipeline's shape;
	// sizes on both sides of insertionMax and across digitsFor's widths.
	masks := []uint64{0xf0000000000f00ff, 1 << 40, 0xffff_0000_0000_0000, ^uint64(0), 3<<62 | 0xfffff<<42 | 0xffff<<26 | 0x3ffff, 0}
	for _, mask := range masks {
		for _, n := range []int{0, 1, 2, 17, 48, 49, 64, 100, 256, 1000, 5000, 70000} {
			keys := s.Keys(n)
			for i := range keys {
				keys[i] = rng.Uint64() & mask
			}
			want := slices.Clone(keys)
			order := make([]int, n)
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(want[a], want[b]) })
			got := s.Sort()
			if !slices.Equal(got, order) {
				t.Fatalf("mask %#x, n=%d: radix permutation differs from a stable comparison sort", mask, n)
			}
		}
	}
}

func TestMorton3Interleaves(t *testing.T) {
	if got := Morton3(1, 0, 0, 6); got != 1 {
		t.Fatal(got)
	}
	if got := Morton3(0, 1, 0, 6); got != 2 {
		t.Fatal(got)
	}
	if got := Morton3(0, 0, 1, 6); got != 4 {
		t.Fatal(got)
	}
	if got := Morton3(3, 0, 0, 6); got != 1|8 {
		t.Fatal(got)
	}
}

// The streaming counters agree with a direct computation over all events:
// launch-order waves are the (lane group, ordinal) classes, executed waves
// consecutive chunks of 32.
func TestWaveCountersMatchDirectComputation(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type event struct{ seq, ordinal, record uint32 }
	for trial := 0; trial < 20; trial++ {
		n := 1 + rng.IntN(500)
		invokes := make([]int, n)
		for i := range invokes {
			invokes[i] = rng.IntN(5)
		}
		// Execution interleaves invocations in a random order, each
		// invocation's Invokes in order.
		var evs []event
		next := make([]int, n)
		var lo LaunchOrderCounter
		var ex ExecutedCounter
		live := make([]int, 0, n)
		for i := range invokes {
			live = append(live, i)
		}
		for len(live) > 0 {
			j := rng.IntN(len(live))
			i := live[j]
			if next[i] == invokes[i] {
				lo.Finished(uint32(i))
				live = append(live[:j], live[j+1:]...)
				continue
			}
			e := event{uint32(i), uint32(next[i]), uint32(rng.IntN(6))}
			next[i]++
			evs = append(evs, e)
			lo.Observe(e.seq, e.ordinal, e.record)
			ex.Observe(e.record)
		}
		var want Waves
		classes := map[[2]uint32][]uint32{}
		var keys [][2]uint32
		for _, e := range evs {
			k := [2]uint32{e.seq / WaveSize, e.ordinal}
			if _, ok := classes[k]; !ok {
				keys = append(keys, k)
			}
			classes[k] = append(classes[k], e.record)
		}
		for _, k := range keys {
			want.add(classes[k])
		}
		if got := lo.Result(); got != want {
			t.Fatalf("launch order: %+v, want %+v", got, want)
		}
		var wantEx Waves
		for i := 0; i < len(evs); i += WaveSize {
			var recs []uint32
			for _, e := range evs[i:min(i+WaveSize, len(evs))] {
				recs = append(recs, e.record)
			}
			wantEx.add(recs)
		}
		if got := ex.Result(); got != wantEx {
			t.Fatalf("executed: %+v, want %+v", got, wantEx)
		}
	}
}

// BenchmarkSort sorts windows of keys shaped as the pipeline's (reorder.go
// in the root package): a class in bits 62-63, a shader record in the 20
// bits below, a 16-bit coherence hint aligned to the top of its 24-bit
// field and an 18-bit Morton code of the hit point, for the window sizes a
// dispatch may use.
func BenchmarkSort(b *testing.B) {
	for _, n := range []int{64, 256, 1024, 4096, 65536} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, 4))
			src := make([]uint64, n)
			for i := range src {
				class := uint64(rng.IntN(3))
				record := uint64(1 + rng.IntN(32))
				hint := uint64(rng.IntN(1 << 16))
				morton := uint64(rng.IntN(1 << 18))
				src[i] = class<<62 | record<<42 | hint<<26 | morton
			}
			var s Sorter
			b.ResetTimer()
			for range b.N {
				copy(s.Keys(n), src)
				s.Sort()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
		})
	}
}
