//go:build embree

package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/raypipe/raypipe/vec"
)

// loadOBJ reads the vertices and faces of a Wavefront OBJ file: "v x y z"
// and "f a b c ..." lines (index forms i, i/t, i//n, i/t/n, negative indices
// relative to the end), polygons triangulated as fans. Everything else is
// ignored. A coordinate that does not parse or is not finite is an error
// that names its line.
func loadOBJ(path string) ([]vec.Vec3, []uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	pos, idx, err := readOBJ(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return pos, idx, nil
}

func readOBJ(r io.Reader) ([]vec.Vec3, []uint32, error) {
	var pos []vec.Vec3
	var idx []uint32
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	line := 0
	var face []uint32
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "v":
			if len(fields) < 4 {
				return nil, nil, fmt.Errorf("line %d: vertex needs 3 coordinates", line)
			}
			var p [3]float32
			for k := range p {
				x, err := strconv.ParseFloat(fields[1+k], 32)
				if err != nil {
					return nil, nil, fmt.Errorf("line %d: %v", line, err)
				}
				if math.IsNaN(x) || math.IsInf(x, 0) {
					// Rays are aimed from the mesh's bounds, and Embree
					// aborts on a ray that is not finite.
					return nil, nil, fmt.Errorf("line %d: coordinate %q is not finite", line, fields[1+k])
				}
				p[k] = float32(x)
			}
			pos = append(pos, vec.V3(p[0], p[1], p[2]))
		case "f":
			face = face[:0]
			for _, fv := range fields[1:] {
				s, _, _ := strings.Cut(fv, "/")
				i, err := strconv.Atoi(s)
				if err != nil {
					return nil, nil, fmt.Errorf("line %d: bad index %q", line, fv)
				}
				if i < 0 {
					i += len(pos) + 1
				}
				if i < 1 || i > len(pos) {
					return nil, nil, fmt.Errorf("line %d: index %d out of range (%d vertices so far)", line, i, len(pos))
				}
				face = append(face, uint32(i-1))
			}
			for k := 2; k < len(face); k++ {
				idx = append(idx, face[0], face[k-1], face[k])
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	return pos, idx, nil
}
