//go:build embree

package main

import (
	"strings"
	"testing"
)

// TestMeshThatDoesNotLoad checks that -mesh reports a file that does not
// load (Scene.Flatten's own errors are the scene package's tests).
func TestMeshThatDoesNotLoad(t *testing.T) {
	defer func(s, m string) { *flagSizes, *flagMesh = s, m }(*flagSizes, *flagMesh)
	*flagSizes, *flagMesh = "", "no/such/file.glb"
	if err := run(); err == nil || !strings.Contains(err.Error(), "no/such/file.glb") {
		t.Errorf("-mesh no/such/file.glb: error %v, want one naming it", err)
	}
}
