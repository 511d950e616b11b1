//go:build embree

package main

import (
	"errors"

	"github.com/raypipe/raypipe/vec"
)

// raypipeTracer builds raypipe BLASes with one build preference.
//
// TODO(accel): the accel package has not landed on main yet; wire this to
// accel.BuildBLAS / (*BLAS).Intersect / (*BLAS).Occluded when it does.
type raypipeTracer struct {
	name string
}

// raypipeAvailable reports whether the raypipe side is wired in.
const raypipeAvailable = false

func newRaypipeTracer(fastTrace bool) *raypipeTracer {
	if fastTrace {
		return &raypipeTracer{name: "raypipe-fasttrace"}
	}
	return &raypipeTracer{name: "raypipe-fastbuild"}
}

func (t *raypipeTracer) Name() string { return t.name }

func (t *raypipeTracer) Build(positions []vec.Vec3, indices []uint32, threads int) (scene, error) {
	return nil, errors.New("raypipe tracer not wired yet (accel has not landed)")
}

func (t *raypipeTracer) Close() {}
