//go:build embree

package main

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/internal/embree"
	"github.com/raypipe/raypipe/internal/raygen"
	"github.com/raypipe/raypipe/vec"
)

// raypipeTracer builds raypipe BLASes with one build preference. Build
// threads follow GOMAXPROCS (the caller sets it to 1 for one-thread rows).
type raypipeTracer struct {
	flags accel.BuildFlags
	batch bool // trace with IntersectBatch/OccludedBatch
	cut   bool // non-opaque geometry, candidates decided in a Traversal's loop (raypipeCut)
}

func (t raypipeTracer) Name() string {
	name := "raypipe-fastbuild"
	if t.flags&accel.BuildPreferFastTrace != 0 {
		name = "raypipe-fasttrace"
	}
	if t.batch {
		name += "-batch"
	}
	if t.cut {
		name += "-cut"
	}
	return name
}

func (t raypipeTracer) Builder(threads int) (builder, error) { return t, nil }

// geometry converts the mesh to an accel.Geometry: opaque, or not where
// t.cut (every hit then a candidate for the loop to decide).
func (t raypipeTracer) geometry(positions []vec.Vec3, indices []uint32) accel.Geometry {
	g := accel.TriangleGeometry(positions, indices)
	if t.cut {
		g.Flags &^= accel.GeometryOpaque
	}
	return g
}

// Build converts the mesh to an accel.Geometry and builds a BLAS; both are
// timed, as Embree's timing includes copying into its buffers.
func (t raypipeTracer) Build(positions []vec.Vec3, indices []uint32) (scene, error) {
	blas, err := accel.BuildBLAS([]accel.Geometry{t.geometry(positions, indices)}, t.flags)
	if err != nil {
		return nil, err
	}
	switch {
	case t.batch:
		return raypipeBatch{blas}, nil
	case t.cut:
		return raypipeCut{blas: blas}, nil
	}
	return raypipeScene{blas}, nil
}

func (t raypipeTracer) Close() {}

func (t raypipeTracer) Bottom(positions []vec.Vec3, indices []uint32) (bottom, error) {
	blas, err := accel.BuildBLAS([]accel.Geometry{t.geometry(positions, indices)}, t.flags)
	if err != nil {
		return nil, err
	}
	return raypipeBottom{blas}, nil
}

// Updatable builds a BLAS with the tracer's flags and BuildAllowUpdate
// (which rules out spatial splits).
func (t raypipeTracer) Updatable(positions []vec.Vec3, indices []uint32) (updatable, error) {
	g := t.geometry(positions, indices)
	blas, err := accel.BuildBLAS([]accel.Geometry{g}, t.flags|accel.BuildAllowUpdate)
	if err != nil {
		return nil, err
	}
	return raypipeUpdatable{blas, g}, nil
}

// raypipeUpdatable updates its BLAS in place (BLAS.Update) from its
// geometry, whose vertex buffer takes the new positions first: that copy is
// timed too, as Embree's refit copies them into its vertex buffer. The
// index buffer stays (a program that moves a mesh's vertices keeps its
// indices), and Update checks that it did not change, as it must.
type raypipeUpdatable struct {
	blas *accel.BLAS
	geom accel.Geometry
}

func (u raypipeUpdatable) Update(positions []vec.Vec3) error {
	if err := u.geom.SetPositions(positions); err != nil {
		return err
	}
	return u.blas.Update([]accel.Geometry{u.geom})
}

func (raypipeUpdatable) Close() {}

// raypipeBottom is a BLAS for Top; the garbage collector frees it.
type raypipeBottom struct{ blas *accel.BLAS }

func (raypipeBottom) Close() {}

// Top builds the TLAS (with the tracer's build flags) from instance
// descriptions, as BuildRaytracingAccelerationStructure takes them: the
// whole call is the top level's build.
func (t raypipeTracer) Top(bot bottom, transforms []vec.Mat3x4) (scene, time.Duration, error) {
	start := time.Now()
	tlas, err := accel.BuildTLAS(instancesOf(bot, transforms), t.flags)
	d := time.Since(start)
	if err != nil {
		return nil, 0, err
	}
	switch {
	case t.batch:
		return raypipeTLASBatch{tlas}, d, nil
	case t.cut:
		return raypipeCut{tlas: tlas}, d, nil
	}
	return raypipeTLAS{tlas}, d, nil
}

// instancesOf returns the instance descriptions of a top level over
// bot: instance i placed by transforms[i], its InstanceID i.
func instancesOf(bot bottom, transforms []vec.Mat3x4) []accel.Instance {
	insts := make([]accel.Instance, len(transforms))
	blas := bot.(raypipeBottom).blas
	for i, m := range transforms {
		insts[i] = accel.Instance{Transform: m, InstanceID: uint32(i), InstanceMask: 0xff, BLAS: blas}
	}
	return insts
}

// TopMovable builds a TLAS with the tracer's flags and BuildAllowUpdate.
func (t raypipeTracer) TopMovable(bot bottom, transforms []vec.Mat3x4) (movable, error) {
	tlas, err := accel.BuildTLAS(instancesOf(bot, transforms), t.flags|accel.BuildAllowUpdate)
	if err != nil {
		return nil, err
	}
	return raypipeMovable{tlas, bot}, nil
}

// raypipeMovable moves its TLAS's instances with TLAS.Update from their
// descriptions, which Move makes anew (timed too, as Embree's setting of
// each instance's transform is): a refit.
type raypipeMovable struct {
	tlas *accel.TLAS
	bot  bottom
}

func (m raypipeMovable) Move(transforms []vec.Mat3x4) error {
	return m.tlas.Update(instancesOf(m.bot, transforms))
}

func (raypipeMovable) Close() {}

// raypipeTLAS traces a TLAS ray by ray; hits report the instance's index
// as their GeomID, as Embree's scenes of instances do.
type raypipeTLAS struct{ tlas *accel.TLAS }

func (s raypipeTLAS) Intersect(rays []raygen.Ray, hits []hit) {
	var h accel.Hit
	for i, r := range rays {
		ar := toAccel(r)
		putHit(&hits[i], &h, s.tlas.IntersectTo(&ar, 0, 0xff, &h), true)
	}
}

func (s raypipeTLAS) Occluded(rays []raygen.Ray, out []bool) {
	for i, r := range rays {
		out[i] = s.tlas.Occluded(toAccel(r), 0, 0xff)
	}
}

func (s raypipeTLAS) Close() {}

// raypipeCut traces a BLAS (or a TLAS) of non-opaque triangles ray by ray
// through a Traversal, whose loop decides each candidate as an any hit
// shader that cuts triangles out would, or a RayQuery's loop: a triangle
// whose primitive index is a multiple of embree.CutPeriod is ignored, the
// others committed (shadow rays: the first of them ends the search,
// RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH).
type raypipeCut struct {
	blas *accel.BLAS
	tlas *accel.TLAS // where set, the scene is its instances
}

// trace runs tr over r with flags, deciding the candidates, and returns
// the committed hit.
func (s raypipeCut) trace(tr *accel.Traversal, r raygen.Ray, flags accel.RayFlags) *accel.Hit {
	if s.tlas != nil {
		tr.Begin(s.tlas, toAccel(r), flags, 0xff)
	} else {
		tr.BeginBLAS(s.blas, toAccel(r), flags)
	}
	for tr.Next() {
		if tr.Candidate().PrimitiveIndex%embree.CutPeriod != 0 {
			tr.Commit()
		}
	}
	return tr.Committed()
}

func (s raypipeCut) Intersect(rays []raygen.Ray, hits []hit) {
	var tr accel.Traversal
	for i, r := range rays {
		h := s.trace(&tr, r, 0)
		putHit(&hits[i], h, h.Kind != accel.KindNone, s.tlas != nil)
	}
}

func (s raypipeCut) Occluded(rays []raygen.Ray, out []bool) {
	var tr accel.Traversal
	for i, r := range rays {
		out[i] = s.trace(&tr, r, accel.RayFlagAcceptFirstHitAndEndSearch).Kind != accel.KindNone
	}
}

func (s raypipeCut) Close() {}

// raypipeTLASBatch is raypipeTLAS through IntersectBatch and
// OccludedBatch, a chunk per call.
type raypipeTLASBatch struct{ tlas *accel.TLAS }

func (s raypipeTLASBatch) Intersect(rays []raygen.Ray, hits []hit) {
	buf := getBuffers(rays)
	defer batchPool.Put(buf)
	if err := s.tlas.IntersectBatch(buf.rays, 0, 0xff, buf.hits, buf.found); err != nil {
		panic(err) // the slices are made to size above
	}
	buf.answers(hits, true)
}

func (s raypipeTLASBatch) Occluded(rays []raygen.Ray, out []bool) {
	buf := getBuffers(rays)
	defer batchPool.Put(buf)
	if err := s.tlas.OccludedBatch(buf.rays, 0, 0xff, out); err != nil {
		panic(err)
	}
}

func (s raypipeTLASBatch) Close() {}

// raypipeScene traces a BLAS ray by ray.
type raypipeScene struct {
	blas *accel.BLAS
}

func toAccel(r raygen.Ray) accel.Ray {
	return accel.Ray{Origin: r.Origin, TMin: r.TMin, Direction: r.Dir, TMax: r.TMax}
}

// Intersect traces with the pointer form, BLAS.IntersectTo, as Embree's
// side passes its RTCRayHit to rtcIntersect1 by pointer.
func (s raypipeScene) Intersect(rays []raygen.Ray, hits []hit) {
	var h accel.Hit
	for i, r := range rays {
		ar := toAccel(r)
		putHit(&hits[i], &h, s.blas.IntersectTo(&ar, 0, &h), false)
	}
}

func (s raypipeScene) Occluded(rays []raygen.Ray, out []bool) {
	for i, r := range rays {
		out[i] = s.blas.Occluded(toAccel(r), 0)
	}
}

func (s raypipeScene) Close() {}

// raypipeBatch traces a BLAS a chunk at a time with the batch API. The
// conversion to accel rays is timed, as the Embree side converts too; the
// buffers come from a pool, as Embree's side mallocs and frees its own
// per call (zeroing fresh ones cost raypipe about 10-20 ns a ray).
type raypipeBatch struct {
	blas *accel.BLAS
}

// batchBuffers are one call's accel rays, hits and flags.
type batchBuffers struct {
	rays  []accel.Ray
	hits  []accel.Hit
	found []bool
}

var batchPool = sync.Pool{New: func() any { return new(batchBuffers) }}

// getBuffers returns pooled buffers for len(rays) rays, holding rays
// converted (toAccel).
func getBuffers(rays []raygen.Ray) *batchBuffers {
	n := len(rays)
	b := batchPool.Get().(*batchBuffers)
	if cap(b.rays) < n {
		b.rays, b.hits, b.found = make([]accel.Ray, n), make([]accel.Hit, n), make([]bool, n)
	}
	b.rays, b.hits, b.found = b.rays[:n], b.hits[:n], b.found[:n]
	for i, r := range rays {
		b.rays[i] = toAccel(r)
	}
	return b
}

// answers converts the batch's hits (putHit).
func (b *batchBuffers) answers(hits []hit, instance bool) {
	for i := range b.hits {
		putHit(&hits[i], &b.hits[i], b.found[i], instance)
	}
}

// putHit stores h in Embree's layout at dst (a miss unless found): the
// geometry is the instance's index where instance (a TLAS's hits), as in
// Embree's scenes of instances. It writes field by field, as the C side
// writes Embree's hits: a hit built whole and copied is read back with
// 16-byte loads from its 4-byte stores, which cannot be forwarded (3 ns
// a ray, 29.6 against 33.4, on the rays that miss WusonOBJ.obj).
func putHit(dst *hit, h *accel.Hit, found, instance bool) {
	if !found {
		dst.T, dst.PrimID, dst.GeomID, dst.U, dst.V = float32(math.Inf(1)), embree.InvalidID, embree.InvalidID, 0, 0
		return
	}
	g := h.GeometryIndex
	if instance {
		g = h.InstanceIndex
	}
	dst.T, dst.PrimID, dst.GeomID, dst.U, dst.V = h.T, h.PrimitiveIndex, g, h.U, h.V
}

func (s raypipeBatch) Intersect(rays []raygen.Ray, hits []hit) {
	buf := getBuffers(rays)
	defer batchPool.Put(buf)
	if err := s.blas.IntersectBatch(buf.rays, 0, buf.hits, buf.found); err != nil {
		panic(err) // the slices are made to size above
	}
	buf.answers(hits, false)
}

func (s raypipeBatch) Occluded(rays []raygen.Ray, out []bool) {
	buf := getBuffers(rays)
	defer batchPool.Put(buf)
	if err := s.blas.OccludedBatch(buf.rays, 0, out); err != nil {
		panic(err)
	}
}

func (s raypipeBatch) Close() {}

// treeStater is a raypipe scene whose tree -tree-stats describes.
type treeStater interface{ TreeStats() accel.TreeStats }

func (s raypipeScene) TreeStats() accel.TreeStats     { return s.blas.TreeStats() }
func (s raypipeBatch) TreeStats() accel.TreeStats     { return s.blas.TreeStats() }
func (s raypipeTLAS) TreeStats() accel.TreeStats      { return s.tlas.TreeStats() }
func (s raypipeTLASBatch) TreeStats() accel.TreeStats { return s.tlas.TreeStats() }

// treeLines describes the trees of the raypipe tracers' scenes (the
// top level's, for scenes of instances) in the measure of the "sah" that
// Embree's statistics print for its nodes and leaves: summed surface
// areas relative to the root's (Embree counts a leaf once per block of
// four triangles; a raypipe leaf of up to eight is one test).
func treeLines(tracers []tracer, scenes []scene) []string {
	var lines []string
	for i, sc := range scenes {
		ts, ok := sc.(treeStater)
		if !ok {
			continue
		}
		s := ts.TreeStats()
		lines = append(lines, fmt.Sprintf("tree of %s: %d wide nodes, %d leaves (%.1f references each); area of wide nodes %.3f, of leaves %.3f, relative to the root's",
			tracers[i].Name(), s.WideNodes, s.Leaves, float64(s.References)/float64(max(s.Leaves, 1)), s.WideNodeArea, s.LeafArea))
	}
	return lines
}
