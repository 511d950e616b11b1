package main

import (
	"fmt"
	"io"
	"time"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/render"
)

func runInfo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("info", "[-scene FILE]", stderr)
	sceneArg := fs.String("scene", "default", "scene file (.gltf, .glb, .obj) or built-in scene name")
	if err := parse(fs, args); err != nil {
		return err
	}
	s, err := loadScene(*sceneArg)
	if err != nil {
		return err
	}
	if err := s.Validate(); err != nil {
		return err
	}
	st := s.Stats()
	lo, hi := s.Bounds()
	fmt.Fprintf(stdout, "scene       %s\n", s.Name)
	fmt.Fprintf(stdout, "meshes      %d\n", st.Meshes)
	fmt.Fprintf(stdout, "primitives  %d\n", st.Primitives)
	fmt.Fprintf(stdout, "triangles   %d (%d instanced)\n", st.Triangles, st.InstancedTriangles)
	fmt.Fprintf(stdout, "instances   %d\n", st.Instances)
	fmt.Fprintf(stdout, "materials   %d\n", st.Materials)
	fmt.Fprintf(stdout, "textures    %d\n", st.Textures)
	fmt.Fprintf(stdout, "spheres     %d\n", st.Spheres)
	fmt.Fprintf(stdout, "bounds      (%g, %g, %g) - (%g, %g, %g)\n", lo.X, lo.Y, lo.Z, hi.X, hi.Y, hi.Z)
	cam := s.CameraOrAuto()
	own := "scene"
	if s.Camera == nil {
		own = "auto"
	}
	fmt.Fprintf(stdout, "camera      %s: at (%g, %g, %g) looking at (%g, %g, %g)\n", own, cam.Position.X, cam.Position.Y, cam.Position.Z, cam.Target.X, cam.Target.Y, cam.Target.Z)
	for _, w := range s.Warnings {
		fmt.Fprintf(stdout, "warning     %s\n", w)
	}

	m, err := buildMeshes(s, accel.BuildPreferFastTrace)
	if err != nil {
		return err
	}
	var bs accel.TreeStats
	var sah, nodeArea, leafArea float64
	for _, b := range m.blas {
		t := b.TreeStats()
		nodeArea = max(nodeArea, t.WideNodeArea)
		leafArea = max(leafArea, t.LeafArea)
		bs.Nodes += t.Nodes
		bs.Leaves += t.Leaves
		bs.WideNodes += t.WideNodes
		bs.References += t.References
		bs.MaxDepth = max(bs.MaxDepth, t.MaxDepth)
		sah = max(sah, t.SAHCost)
	}
	fmt.Fprintf(stdout, "BLAS        %d (fast trace), %d active of %d triangles, built in %s\n", len(m.blas), m.active, m.triangles, m.build.Round(time.Microsecond))
	split := ""
	if bs.References > m.active {
		split = fmt.Sprintf(", %d of them fragments of triangles cut by spatial splits", bs.References-m.active)
	}
	fmt.Fprintf(stdout, "BLAS trees  %d nodes, %d leaves (%.1f references per leaf%s), %d 8-wide nodes, max depth %d, largest SAH cost %.1f\n",
		bs.Nodes, bs.Leaves, float64(bs.References)/float64(max(bs.Leaves, 1)), split, bs.WideNodes, bs.MaxDepth, sah)
	fmt.Fprintf(stdout, "BLAS areas  wide nodes %.2f, leaves %.2f (the largest of any BLAS, relative to its root box: Embree's measure)\n", nodeArea, leafArea)
	ts := m.tlas.TreeStats()
	fmt.Fprintf(stdout, "TLAS        %d instances, %d nodes, max depth %d, built in %s\n", m.tlas.InstanceCount(), ts.Nodes, ts.MaxDepth, m.tlasBuild.Round(time.Microsecond))
	r, err := render.NewRenderer(s)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "renderer    built in %s (meshes, spheres and lights)\n", r.BuildTime().Round(time.Microsecond))
	return nil
}
