package main

import (
	"fmt"
	"io"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/internal/atomicfile"
	"github.com/raypipe/raypipe/internal/raygen"
	"github.com/raypipe/raypipe/raybatch"
	"github.com/raypipe/raypipe/scene"
	"github.com/raypipe/raypipe/vec"
)

// worldTriangles flattens a scene's instanced triangles to world space.
func worldTriangles(s *scene.Scene) (pos []vec.Vec3, idx []uint32) {
	for _, in := range s.Instances {
		if in.Mesh < 0 || in.Mesh >= len(s.Meshes) {
			continue
		}
		for _, p := range s.Meshes[in.Mesh].Primitives {
			base := uint32(len(pos))
			for _, v := range p.Positions {
				pos = append(pos, in.Transform.TransformPoint(v))
			}
			for _, i := range p.Indices {
				idx = append(idx, base+i)
			}
		}
	}
	return pos, idx
}

// generateRays makes a ray batch over a scene with internal/raygen.
func generateRays(s *scene.Scene, kind string, n, w, h int, seed uint64) ([]accel.Ray, error) {
	pos, idx := worldTriangles(s)
	if len(idx) == 0 {
		return nil, fmt.Errorf("scene %q has no triangles", s.Name)
	}
	b := raygen.BoundsOf(pos)
	var rs []raygen.Ray
	switch kind {
	case "primary":
		rs = raygen.Primary(b, w, h)
	case "incoherent":
		rs = raygen.Incoherent(b, n, seed)
	case "shadow":
		rs = raygen.Shadow(pos, idx, b, n, seed)
	default:
		return nil, fmt.Errorf("-kind %q: want primary, incoherent or shadow", kind)
	}
	rays := make([]accel.Ray, len(rs))
	for i, r := range rs {
		rays[i] = accel.Ray{Origin: r.Origin, TMin: r.TMin, Direction: r.Dir, TMax: r.TMax}
	}
	return rays, nil
}

func runGenRays(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("gen-rays", "-scene MESH -o OUT [-kind primary|incoherent|shadow] [-n N | -w W -h H] [-seed N]", stderr)
	sceneArg := fs.String("scene", "", "triangle mesh: a file or a built-in scene")
	out := fs.String("o", "", "output ray file (32-byte records ox oy oz tmin dx dy dz tmax)")
	kind := fs.String("kind", "primary", "primary (a pinhole camera framing the mesh, W x H rays), incoherent or shadow (N rays)")
	n := fs.Int("n", 1<<20, "number of incoherent or shadow rays")
	w := fs.Int("w", 1024, "primary rays: image width")
	h := fs.Int("h", 1024, "primary rays: image height")
	seed := fs.Uint64("seed", 1, "random seed")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *sceneArg == "" || *out == "" {
		fs.Usage()
		return fmt.Errorf("-scene and -o are required")
	}
	if *n < 0 || *w < 1 || *h < 1 || *n > 1<<28 || int64(*w)*int64(*h) > 1<<28 {
		return fmt.Errorf("-n %d, -w %d, -h %d out of range", *n, *w, *h)
	}
	s, err := loadScene(*sceneArg)
	if err != nil {
		return err
	}
	rays, err := generateRays(s, *kind, *n, *w, *h, *seed)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(*out, func(wr io.Writer) error { return raybatch.WriteRays(wr, rays) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d %s rays\n", *out, len(rays), *kind)
	return nil
}
