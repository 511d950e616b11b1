package accel

import (
	"math/rand/v2"
	"testing"
)

// TestPrefetchChildRefs runs the prefetch on every child reference of a
// built tree, leaves of every size included: a prefetch has no visible
// effect, so this checks that it accepts every reference the walks pass.
func TestPrefetchChildRefs(t *testing.T) {
	b := mustBLAS(t, soupGeoms(rand.New(rand.NewPCG(1, 2)), 1, 2000), 0)
	leaves := 0
	for i := range b.wide {
		n := &b.wide[i]
		for j := 0; j < int(n.n); j++ {
			if isLeafRef(n.ref[j]) {
				leaves++
			}
			prefetchChild(b.wide, b.leafLines(), n.ref[j])
		}
	}
	if leaves == 0 {
		t.Fatal("no leaves")
	}
}
