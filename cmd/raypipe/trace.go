package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/internal/atomicfile"
	"github.com/raypipe/raypipe/raybatch"
	"github.com/raypipe/raypipe/scene"
)

// meshAccel is a scene's triangle meshes as acceleration structures, for
// the plain ray queries: one BLAS per mesh (one geometry per primitive)
// and a TLAS over the scene's instances with InstanceID = mesh index.
type meshAccel struct {
	blas      []*accel.BLAS
	tlas      *accel.TLAS
	triBase   [][]uint32 // per mesh and primitive: index of its first triangle in file order
	triangles int
	active    int
	build     time.Duration // BLAS builds
	tlasBuild time.Duration
}

func buildMeshes(s *scene.Scene, flags accel.BuildFlags) (*meshAccel, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if len(s.Meshes) >= 1<<24 {
		return nil, fmt.Errorf("%d meshes exceed the 24-bit InstanceID", len(s.Meshes))
	}
	m := &meshAccel{blas: make([]*accel.BLAS, len(s.Meshes)), triBase: make([][]uint32, len(s.Meshes))}
	start := time.Now()
	for i := range s.Meshes {
		mesh := &s.Meshes[i]
		geoms := make([]accel.Geometry, len(mesh.Primitives))
		m.triBase[i] = make([]uint32, len(mesh.Primitives))
		for j := range mesh.Primitives {
			p := &mesh.Primitives[j]
			if int64(m.triangles)+int64(p.Triangles()) > math.MaxUint32 {
				return nil, fmt.Errorf("more than %d triangles", uint32(math.MaxUint32))
			}
			m.triBase[i][j] = uint32(m.triangles)
			m.triangles += p.Triangles()
			geoms[j] = accel.TriangleGeometry(p.Positions, p.Indices)
		}
		b, err := accel.BuildBLAS(geoms, flags)
		if err != nil {
			return nil, fmt.Errorf("mesh %d (%q): %w", i, mesh.Name, err)
		}
		m.blas[i] = b
		m.active += b.ActivePrimitives()
	}
	m.build = time.Since(start)
	start = time.Now()
	var inst []accel.Instance
	for _, in := range s.Instances {
		if _, ok := in.Transform.Inverse(); !ok || in.Mesh < 0 || in.Mesh >= len(s.Meshes) {
			continue // a degenerate placement covers no area
		}
		inst = append(inst, accel.Instance{Transform: in.Transform, InstanceID: uint32(in.Mesh), InstanceMask: 0xff, BLAS: m.blas[in.Mesh]})
	}
	t, err := accel.BuildTLAS(inst, flags)
	if err != nil {
		return nil, err
	}
	m.tlas = t
	m.tlasBuild = time.Since(start)
	return m, nil
}

// record converts a query result to a hit record.
func (m *meshAccel) record(h *accel.Hit, ok bool) raybatch.Hit {
	if !ok {
		return raybatch.Miss
	}
	return raybatch.Hit{T: h.T, Primitive: m.triBase[h.InstanceID()][h.GeometryIndex] + h.PrimitiveIndex, U: h.U, V: h.V}
}

// traceAll answers every ray on workers goroutines. With anyHit the
// query stops at the first hit it finds (not necessarily the closest).
func (m *meshAccel) traceAll(rays []accel.Ray, anyHit bool, workers int) []raybatch.Hit {
	hits := make([]raybatch.Hit, len(rays))
	flags := accel.RayFlagNone
	if anyHit {
		flags = accel.RayFlagAcceptFirstHitAndEndSearch
	}
	const chunk = 1024
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hs, found := make([]accel.Hit, chunk), make([]bool, chunk)
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= len(rays) {
					return
				}
				hi := min(lo+chunk, len(rays))
				// The batch call overlaps the rays' cache misses on
				// large scenes; its answers are Intersect's.
				if err := m.tlas.IntersectBatch(rays[lo:hi], flags, 0xff, hs[:hi-lo], found[:hi-lo]); err != nil {
					panic(err) // hs and found hold a whole chunk
				}
				for i := lo; i < hi; i++ {
					hits[i] = m.record(&hs[i-lo], found[i-lo])
				}
			}
		}()
	}
	wg.Wait()
	return hits
}

func buildQuality(q string) (accel.BuildFlags, error) {
	switch q {
	case "trace":
		return accel.BuildPreferFastTrace, nil
	case "fast":
		return accel.BuildPreferFastBuild, nil
	}
	return 0, fmt.Errorf("-quality %q: want fast or trace", q)
}

func workerCount(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

func runTrace(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("trace", "-scene MESH -rays IN -o OUT [-any] [-quality fast|trace] [-threads N]", stderr)
	sceneArg := fs.String("scene", "", "triangle mesh: a .gltf, .glb or .obj file or a built-in scene (spheres are ignored)")
	in := fs.String("rays", "", "input rays: little-endian float32 records ox oy oz tmin dx dy dz tmax (32 bytes)")
	out := fs.String("o", "", "output hits: records t (float32, +Inf on miss), primitive (uint32, 0xFFFFFFFF on miss), u v (float32), 16 bytes")
	anyHit := fs.Bool("any", false, "occlusion: report the first hit found, not the closest")
	quality := fs.String("quality", "trace", "BVH build: fast (fast build) or trace (fast trace)")
	threads := fs.Int("threads", 0, "worker goroutines (0: all CPUs)")
	quiet := fs.Bool("q", false, "quiet: no summary")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *sceneArg == "" || *in == "" || *out == "" {
		fs.Usage()
		return fmt.Errorf("-scene, -rays and -o are required")
	}
	flags, err := buildQuality(*quality)
	if err != nil {
		return err
	}
	if *threads < 0 {
		return fmt.Errorf("-threads %d: must not be negative", *threads)
	}
	data, err := os.ReadFile(*in)
	if err != nil {
		return err
	}
	rays, err := raybatch.DecodeRays(data)
	if err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	s, err := loadScene(*sceneArg)
	if err != nil {
		return err
	}
	m, err := buildMeshes(s, flags)
	if err != nil {
		return err
	}
	start := time.Now()
	hits := m.traceAll(rays, *anyHit, workerCount(*threads))
	el := time.Since(start)
	if err := atomicfile.Write(*out, func(w io.Writer) error { return raybatch.WriteHits(w, hits) }); err != nil {
		return err
	}
	if !*quiet {
		n := 0
		for _, h := range hits {
			if h.Primitive != raybatch.NoPrimitive {
				n++
			}
		}
		fmt.Fprintf(stdout, "triangles %d, rays %d, hits %d, build %.3fs (%s), trace %.3fs, %.2f Mrays/s\n",
			m.triangles, len(rays), n, (m.build + m.tlasBuild).Seconds(), *quality, el.Seconds(), float64(len(rays))/el.Seconds()/1e6)
	}
	return nil
}
