package reorder

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSortIsStableAndOrdered(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s Sorter
	for _, n := range []int{0, 1, 2, 17, 1000, 70000} {
		keys := s.Keys(n)
		for i := range keys {
			keys[i] = rng.Uint64() & 0xf0000000000f00ff // few distinct digits
		}
		want := slices.Clone(keys)
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case want[a] < want[b]:
				return -1
			case want[a] > want[b]:
				return 1
			}
			return 0
		})
		got := s.Sort()
		if !slices.Equal(got, order) {
			t.Fatalf("n=%d: radix permutation differs from a stable comparison sort", n)
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
