//go:build embree

package main

import (
	"github.com/raypipe/raypipe/internal/embree"
	"github.com/raypipe/raypipe/internal/raygen"
	"github.com/raypipe/raypipe/vec"
)

// hit is one closest-hit answer, in Embree's layout: T is +Inf on a miss.
type hit = embree.Hit

// tracer builds acceleration structures of one kind: Embree at a build
// quality, or raypipe with a build preference.
type tracer interface {
	// Name is the column heading, e.g. "embree-medium".
	Name() string
	// Build builds the triangle list with the given number of build threads
	// (0: all).
	Build(positions []vec.Vec3, indices []uint32, threads int) (scene, error)
	// Close releases what the tracer holds.
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

// embreeTracer builds Embree scenes at one quality, with a one-thread device
// and an all-threads device.
type embreeTracer struct {
	quality embree.Quality
	dev1    *embree.Device
	devN    *embree.Device
}

func newEmbreeTracer(q embree.Quality) (*embreeTracer, error) {
	d1, err := embree.NewDevice(1)
	if err != nil {
		return nil, err
	}
	dN, err := embree.NewDevice(0)
	if err != nil {
		d1.Close()
		return nil, err
	}
	return &embreeTracer{quality: q, dev1: d1, devN: dN}, nil
}

func (t *embreeTracer) Name() string { return "embree-" + t.quality.String() }

func (t *embreeTracer) Build(positions []vec.Vec3, indices []uint32, threads int) (scene, error) {
	d := t.devN
	if threads == 1 {
		d = t.dev1
	}
	s, err := d.BuildTriangles(positions, indices, t.quality)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func (t *embreeTracer) Close() {
	t.dev1.Close()
	t.devN.Close()
}
