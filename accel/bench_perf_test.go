package accel

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/raypipe/raypipe/internal/meshgen"
	"github.com/raypipe/raypipe/internal/raygen"
	"github.com/raypipe/raypipe/vec"
)

// perfScene is a mesh with the ray batches of cmd/embreecmp.
type perfScene struct {
	name       string
	pos        []vec.Vec3
	idx        []uint32
	blas       *BLAS
	primary    []Ray
	shadow     []Ray
	incoherent []Ray
}

var perfScenes = map[string]*perfScene{}

func perfSceneFor(b *testing.B, kind string, n int) *perfScene {
	key := kind + strconv.Itoa(n)
	if s := perfScenes[key]; s != nil {
		return s
	}
	var pos []vec.Vec3
	var idx []uint32
	if kind == "terrain" {
		pos, idx = meshgen.Terrain(n, 1)
	} else {
		pos, idx = meshgen.Soup(n, 1)
	}
	blas, err := BuildBLAS([]Geometry{TriangleGeometry(pos, idx)}, BuildPreferFastTrace)
	if err != nil {
		b.Fatal(err)
	}
	bb := raygen.BoundsOf(pos)
	conv := func(rs []raygen.Ray) []Ray {
		out := make([]Ray, len(rs))
		for i, r := range rs {
			out[i] = Ray{Origin: r.Origin, TMin: r.TMin, Direction: r.Dir, TMax: r.TMax}
		}
		return out
	}
	s := &perfScene{name: key, pos: pos, idx: idx, blas: blas,
		primary:    conv(raygen.Primary(bb, 256, 256)),
		shadow:     conv(raygen.Shadow(pos, idx, bb, 1<<16, 1)),
		incoherent: conv(raygen.Incoherent(bb, 1<<16, 1)),
	}
	perfScenes[key] = s
	return s
}

var benchScenes = []struct {
	kind string
	n    int
}{{"terrain", 100_000}, {"soup", 100_000}}

func BenchmarkTrace(b *testing.B) {
	for _, sc := range benchScenes {
		for _, kind := range []string{"primary", "shadow", "incoherent"} {
			b.Run(sc.kind+"-"+strconv.Itoa(sc.n/1000)+"k/"+kind, func(b *testing.B) {
				s := perfSceneFor(b, sc.kind, sc.n)
				rays := s.primary
				switch kind {
				case "shadow":
					rays = s.shadow
				case "incoherent":
					rays = s.incoherent
				}
				b.ReportAllocs()
				hits := 0
				for b.Loop() {
					for i := range rays {
						if kind == "shadow" {
							if s.blas.Occluded(rays[i], 0) {
								hits++
							}
						} else if _, ok := s.blas.Intersect(rays[i], 0); ok {
							hits++
						}
					}
				}
				b.ReportMetric(float64(b.N)*float64(len(rays))/b.Elapsed().Seconds()/1e6, "Mrays/s")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}

func BenchmarkBuild(b *testing.B) {
	for _, sc := range benchScenes {
		for _, fl := range []struct {
			name  string
			flags BuildFlags
		}{{"fastbuild", BuildPreferFastBuild}, {"fasttrace", BuildPreferFastTrace}} {
			b.Run(sc.kind+"-"+strconv.Itoa(sc.n/1000)+"k/"+fl.name, func(b *testing.B) {
				s := perfSceneFor(b, sc.kind, sc.n)
				geo := []Geometry{TriangleGeometry(s.pos, s.idx)}
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
				for b.Loop() {
					if _, err := BuildBLAS(geo, fl.flags); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)*float64(len(s.idx)/3)/b.Elapsed().Seconds()/1e6, "Mtris/s")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
