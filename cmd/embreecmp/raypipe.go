//go:build embree

package main

import (
	"errors"
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

func (t *raypipeTracer) Builder(threads int) (builder, error) {
	return nil, errors.New("raypipe tracer not wired yet (accel has not landed)")
}
