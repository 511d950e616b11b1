// Package embree is a thin cgo wrapper over Intel Embree 3 (Debian's
// libembree-dev), used to compare raypipe's acceleration structures and
// traversal with a reference implementation and to check their answers.
//
// The wrapper is compiled only with the build tag "embree"
// (go test -tags embree ./internal/embree); without it this package is empty
// and default builds stay pure Go.
//
// It builds one triangle-mesh scene per call and traces whole ray batches in
// C, one cgo call per batch or per chunk, never per ray.
package embree
