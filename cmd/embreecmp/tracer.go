//go:build embree

package main

import (
	"time"

	"github.com/raypipe/raypipe/internal/embree"
	"github.com/raypipe/raypipe/internal/raygen"
	"github.com/raypipe/raypipe/vec"
)

// hit is one closest-hit answer, in Embree's layout: T is +Inf on a miss.
type hit = embree.Hit

// tracer makes builders of one kind of acceleration structure: Embree at a
// build quality, or raypipe with a build preference.
type tracer interface {
	// Name is the column heading, e.g. "embree-medium".
	Name() string
	// Builder returns a builder that uses the given number of build
	// threads (0: all). Only one builder is open at a time, and its
	// scenes are closed before the next builder is made.
	Builder(threads int) (builder, error)
}

// builder builds acceleration structures; making it is not timed.
type builder interface {
	// Build builds the triangle list (triangle i is
	// positions[indices[3i+k]]).
	Build(positions []vec.Vec3, indices []uint32) (scene, error)
	// Bottom builds the mesh that Top instances (untimed: the -instances
	// scenes time the top level alone).
	Bottom(positions []vec.Vec3, indices []uint32) (bottom, error)
	// Top builds a scene of instances of b, instance i placed by
	// transforms[i] (object to world, row-major), from the instances'
	// descriptions; commit is how long the top-level BVH's build itself
	// took where the builder can tell it apart (Embree's rtcCommitScene,
	// after it made an instance geometry of each), else the whole of Top.
	Top(b bottom, transforms []vec.Mat3x4) (sc scene, commit time.Duration, err error)
	// Updatable builds the triangle list (untimed) into a structure whose
	// vertices Update moves without a rebuild: Embree's refit, raypipe's
	// BLAS built with BuildAllowUpdate.
	Updatable(positions []vec.Vec3, indices []uint32) (updatable, error)
	// TopMovable builds a scene of instances of b (untimed) whose
	// instances Move places anew without building it from the
	// instances' descriptions again: Embree's scene of instance
	// geometries, raypipe's TLAS built with BuildAllowUpdate.
	TopMovable(b bottom, transforms []vec.Mat3x4) (movable, error)
	// Close releases the builder; scenes it built stay valid.
	Close()
}

// bottom is a builder's bottom level, for Top.
type bottom interface{ Close() }

// updatable is a structure built for updates (builder.Updatable).
type updatable interface {
	// Update moves the vertices to positions, as many as it was built
	// with; the indices stay.
	Update(positions []vec.Vec3) error
	Close()
}

// movable is a scene of instances built for moving them
// (builder.TopMovable).
type movable interface {
	// Move places instance i by transforms[i], as many as it was built
	// with.
	Move(transforms []vec.Mat3x4) error
	Close()
}

// scene is a built acceleration structure. Intersect and Occluded trace a
// batch on the calling goroutine; they may run concurrently on disjoint
// batches.
type scene interface {
	Intersect(rays []raygen.Ray, hits []hit)
	Occluded(rays []raygen.Ray, out []bool)
	Close()
}

// embreeTracer builds Embree scenes at one quality.
//
// Each builder is a fresh device: with TBB, Embree's "threads=N" limit is
// process-wide while a device lives, so a one-thread device must not
// coexist with an all-threads one.
type embreeTracer struct {
	quality embree.Quality
	robust  bool   // RTC_SCENE_FLAG_ROBUST (embree.Config.Robust)
	stream  bool   // trace with rtcIntersect1M/rtcOccluded1M
	maxISA  string // embree.Config.MaxISA (-embree-isa)
	cut     bool   // filter functions cut triangles out (embree.BuildTrianglesCut)
}

func (t embreeTracer) Name() string {
	name := "embree-" + t.quality.String()
	if t.robust {
		name += "-robust"
	}
	if t.stream {
		name += "-stream"
	}
	if t.cut {
		name += "-cut"
	}
	return name
}

func (t embreeTracer) Builder(threads int) (builder, error) {
	verbose := 0
	if *flagTreeStats {
		verbose = 2 // Embree prints its trees' statistics
	}
	d, err := embree.NewDeviceConfig(embree.Config{Threads: threads, MaxISA: t.maxISA, Robust: t.robust, Verbose: verbose})
	if err != nil {
		return nil, err
	}
	return embreeBuilder{d, t.quality, t.stream, t.cut}, nil
}

type embreeBuilder struct {
	dev     *embree.Device
	quality embree.Quality
	stream  bool
	cut     bool
}

// triangles builds a mesh, with the cut filters where b.cut.
func (b embreeBuilder) triangles(positions []vec.Vec3, indices []uint32) (*embree.Scene, error) {
	if b.cut {
		return b.dev.BuildTrianglesCut(positions, indices, b.quality)
	}
	return b.dev.BuildTriangles(positions, indices, b.quality)
}

func (b embreeBuilder) Build(positions []vec.Vec3, indices []uint32) (scene, error) {
	s, err := b.triangles(positions, indices)
	if err != nil {
		return nil, err
	}
	if b.stream {
		return embreeStream{s}, nil
	}
	return s, nil
}

// embreeStream traces an Embree scene through the stream API.
func (b embreeBuilder) Bottom(positions []vec.Vec3, indices []uint32) (bottom, error) {
	return b.triangles(positions, indices)
}

func (b embreeBuilder) Top(bot bottom, transforms []vec.Mat3x4) (scene, time.Duration, error) {
	s, commit, err := b.dev.BuildInstances(bot.(*embree.Scene), transforms, b.quality)
	if err != nil {
		return nil, 0, err
	}
	if b.stream {
		return embreeStream{s}, commit, nil
	}
	return s, commit, nil
}

// Updatable is a scene that Embree refits (embree.BuildRefittable: a
// two-level scene, its geometry built with the quality REFIT), whatever
// the tracer's quality.
func (b embreeBuilder) Updatable(positions []vec.Vec3, indices []uint32) (updatable, error) {
	r, err := b.dev.BuildRefittable(positions, indices)
	if err != nil {
		return nil, err
	}
	return embreeRefit{r}, nil
}

type embreeRefit struct{ *embree.Refittable }

func (r embreeRefit) Update(positions []vec.Vec3) error { return r.Refit(positions) }

// TopMovable is Embree's scene of instances (embree.BuildMovableInstances,
// the tracer's quality), in which every Move sets each instance's
// transform and commits the scene again.
func (b embreeBuilder) TopMovable(bot bottom, transforms []vec.Mat3x4) (movable, error) {
	return b.dev.BuildMovableInstances(bot.(*embree.Scene), transforms, b.quality)
}

type embreeStream struct{ *embree.Scene }

func (s embreeStream) Intersect(rays []raygen.Ray, hits []hit) { s.IntersectStream(rays, hits) }
func (s embreeStream) Occluded(rays []raygen.Ray, out []bool)  { s.OccludedStream(rays, out) }

func (b embreeBuilder) Close() { b.dev.Close() }
