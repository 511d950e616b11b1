package scene

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// assimpDir is where Debian's assimp-testmodels package installs its files.
const assimpDir = "/usr/share/assimp/models"

func assimpFiles(t *testing.T, sub string, exts ...string) []string {
	t.Helper()
	dir := filepath.Join(assimpDir, sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("%s absent: install Debian package assimp-testmodels to run this test (%v)", dir, err)
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		for _, e := range exts {
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), e) {
				files = append(files, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestAssimpGLTF2 loads every glTF 2.0 file of assimp's test models. Files
// in folders made to be broken must fail with a LoadError; the others must
// load and validate.
func TestAssimpGLTF2(t *testing.T) {
	// Files that must fail. wrongTypes/badExtension.gltf (a malformed
	// KHR_texture_transform we do not read) and badUint.gltf (texture
	// index -1: the texture is dropped with a warning) load.
	broken := map[string]bool{
		"IndexOutOfRange/AllIndicesOutOfRange.gltf":         true,
		"IndexOutOfRange/IndexOutOfRange.gltf":              true,
		"wrongTypes/badArray.gltf":                          true,
		"wrongTypes/badNumber.gltf":                         true,
		"wrongTypes/badObject.gltf":                         true,
		"wrongTypes/badString.gltf":                         true,
		"MissingBin/BoxTextured.gltf":                       true,
		"SchemaFailures/sceneWrongType.gltf":                true,
		"IncorrectVertexArrays/Cube.gltf":                   true, // 35 non-indexed TRIANGLES vertices
		"RecursiveNodes/RecursiveNodes.gltf":                true,
		"BoxWithInfinites-glTF-Binary/BoxWithInfinites.glb": true, // -Inf positions
		"draco/2CylinderEngine.gltf":                        true, // requires KHR_draco_mesh_compression
	}
	for _, f := range assimpFiles(t, "glTF2", ".gltf", ".glb") {
		rel, _ := filepath.Rel(filepath.Join(assimpDir, "glTF2"), f)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			s, err := Load(f)
			if broken[rel] {
				var le *LoadError
				if !errors.As(err, &le) {
					t.Fatalf("loaded a broken file without a LoadError: err=%v", err)
				}
				t.Logf("rejected as expected: %v", err)
				return
			}
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if err := s.Validate(); err != nil {
				t.Fatalf("validate: %v", err)
			}
			t.Logf("%+v warnings=%q", s.Stats(), s.Warnings)
		})
	}
}

// TestAssimpOBJ loads assimp's OBJ test models: the good ones must load
// and validate, the invalid ones must fail cleanly.
func TestAssimpOBJ(t *testing.T) {
	broken := map[string]bool{
		"number_formats.obj": true, // "3.1+e2" is not a number
		"malformed.obj":      true, // face index 12 with 8 vertices
		"malformed2.obj":     true,
	}
	files := append(assimpFiles(t, "OBJ", ".obj"), assimpFiles(t, "invalid", ".obj")...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := Load(f)
			if broken[filepath.Base(f)] {
				var le *LoadError
				if !errors.As(err, &le) || le.Line == 0 {
					t.Fatalf("loaded a broken file without a LoadError naming a line: err=%v", err)
				}
				t.Logf("rejected as expected: %v", err)
				return
			}
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if err := s.Validate(); err != nil {
				t.Fatalf("validate: %v", err)
			}
			t.Logf("%+v warnings=%q", s.Stats(), s.Warnings)
		})
	}
}
