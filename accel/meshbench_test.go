package accel_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/scene"
)

// BenchmarkBuildPhasesOfMesh is BenchmarkBuildPhases over the glTF or OBJ
// files that RAYPIPE_BENCH_MESH names (comma-separated; flattened into
// world space by Scene.Flatten, as embreecmp's -mesh), built with the fast
// build and the fast trace preferences: where a real mesh's build spends
// its time, stage by stage, for -cpu 1,4,8,16. Without the variable it is
// skipped. For example, the CAD engine of Debian's assimp-testmodels:
//
//	RAYPIPE_BENCH_MESH=/usr/share/assimp/models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb \
//	  go test ./accel -run '^$' -bench BuildPhasesOfMesh -benchtime 20x -cpu 1,16
//
// With RAYPIPE_BENCH_CHAIN set, a fast-trace build that makes spatial
// splits also reports the chain of its top-level nodes down to the
// subtree built last (chainOf): "chain-ms" from the root's start to that
// subtree's end, split into "chain-choose-ms", "chain-split-ms",
// "chain-wait-ms" (a child not yet taken up after its parent's split:
// on one thread, the right child waits for the whole left subtree) and
// "chain-subtree-ms"; and "lastsubtree-ms", when the last subtree's
// build started. Each step then takes a lock, which the timings pay for.
func BenchmarkBuildPhasesOfMesh(b *testing.B) {
	paths := os.Getenv("RAYPIPE_BENCH_MESH")
	if paths == "" {
		b.Skip("RAYPIPE_BENCH_MESH names no mesh")
	}
	for _, path := range strings.Split(paths, ",") {
		sc, err := scene.Load(path)
		if err != nil {
			b.Fatal(err)
		}
		pos, idx, err := sc.Flatten()
		if err != nil {
			b.Fatalf("%s: %v", path, err)
		}
		g := accel.TriangleGeometry(pos, idx)
		for _, f := range []struct {
			name  string
			flags accel.BuildFlags
		}{{"fastbuild", accel.BuildPreferFastBuild}, {"fasttrace", accel.BuildPreferFastTrace}} {
			b.Run(filepath.Base(path)+"/"+f.name, func(b *testing.B) {
				accel.TimePhases(b, true, func(int) {
					if _, err := accel.BuildBLAS([]accel.Geometry{g}, f.flags); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}
