//go:build embree

package main

import (
	"strings"
	"testing"
)

func TestProcessorFrom(t *testing.T) {
	for _, c := range []struct{ listing, want string }{
		{"processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse avx avx2 fma\n\nprocessor\t: 1\nmodel name\t: other\n", "AMD EPYC (AVX2, no AVX-512)"},
		{"model name : Xeon\nflags : sse avx2 avx512f avx512bw\n", "Xeon (AVX-512)"},
		{"model name : Old\nflags : sse sse2 avx\n", "Old (no AVX2)"},
		{"flags : avx2x\n", "processor unknown (no AVX2)"},
		{"", "processor unknown"},
		{"garbage without colons\n\x00\n", "processor unknown"},
	} {
		if got := processorFrom(strings.NewReader(c.listing)); got != c.want {
			t.Errorf("processorFrom(%q) = %q, want %q", c.listing, got, c.want)
		}
	}
}
