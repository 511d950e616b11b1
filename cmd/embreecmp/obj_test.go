//go:build embree

package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/raypipe/raypipe/vec"
)

func TestReadOBJ(t *testing.T) {
	src := `# a quad and a triangle
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
vn 0 0 1
f 1/1/1 2/2/1 3/3/1 4/4/1
f -4//1 -2//1 -1//1
o ignored
`
	pos, idx, err := readOBJ(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(pos) != 4 || pos[2] != vec.V3(1, 1, 0) {
		t.Errorf("positions %v", pos)
	}
	if want := []uint32{0, 1, 2, 0, 2, 3, 0, 2, 3}; !slices.Equal(idx, want) {
		t.Errorf("indices %v, want %v", idx, want)
	}
	for _, bad := range []string{"v 1 2\n", "v 0 0 0\nf 1 2 3\n", "v 0 0 0\nf a b c\n"} {
		if _, _, err := readOBJ(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int{"10000": 10000, "10k": 10000, "1.5m": 1500000, "2M": 2000000} {
		if got, err := parseSize(s); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v", s, got, err)
		}
	}
	if _, err := parseSize("x"); err == nil {
		t.Error("bad size accepted")
	}
}
