//go:build embree

package main

import (
	"bufio"
	"io"
	"os"
	"slices"
	"strings"
)

// processor names the processor this runs on and the widest vector
// instructions it has, for the header of every run: ratios against Embree
// depend on both (its kernels use AVX-512 where the processor has it,
// raypipe's walks AVX2), so a saved run says where it was taken.
func processor() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "processor unknown"
	}
	defer f.Close()
	return processorFrom(f)
}

// processorFrom reads processor's answer from a /proc/cpuinfo listing:
// the first processor's model name and whether its flags hold avx512f or
// avx2.
func processorFrom(r io.Reader) string {
	name, isa := "", ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() && (name == "" || isa == "") {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch key {
		case "model name":
			if name == "" {
				name = val
			}
		case "flags":
			if isa == "" {
				flags := strings.Fields(val)
				switch {
				case slices.Contains(flags, "avx512f"):
					isa = "AVX-512"
				case slices.Contains(flags, "avx2"):
					isa = "AVX2, no AVX-512"
				default:
					isa = "no AVX2"
				}
			}
		}
	}
	if name == "" {
		name = "processor unknown"
	}
	if isa == "" {
		return name
	}
	return name + " (" + isa + ")"
}
