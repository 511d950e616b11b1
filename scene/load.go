package scene

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Load reads a scene file, choosing the format by extension: .gltf and
// .glb (glTF 2.0) or .obj (Wavefront OBJ with MTL). Related files (glTF
// buffers and images, OBJ material libraries and textures) are resolved
// relative to the file's directory and may not escape it.
func Load(filename string) (*Scene, error) {
	ext := strings.ToLower(filepath.Ext(filename))
	switch ext {
	case ".gltf", ".glb", ".obj":
	default:
		return nil, &LoadError{File: filename, Err: fmt.Errorf("%w file extension %q (want .gltf, .glb or .obj)", ErrUnsupported, ext)}
	}
	f, err := os.Open(filename)
	if err != nil {
		return nil, &LoadError{File: filename, Err: err}
	}
	defer f.Close()
	dir := os.DirFS(filepath.Dir(filename))
	if ext == ".obj" {
		return LoadOBJ(f, filename, dir)
	}
	return LoadGLTF(f, filename, dir)
}

// relPath turns a reference found in a file (an OBJ mtllib or map_Kd, a
// glTF image URI) into a path valid for fs.FS: slashes only, no "./",
// no escaping "..". It reports false for references that cannot be
// resolved inside the file's directory.
func relPath(ref string) (string, bool) {
	ref = strings.ReplaceAll(strings.TrimSpace(ref), `\`, "/")
	ref = path.Clean(ref)
	if !fs.ValidPath(ref) || ref == "." {
		return "", false
	}
	return ref, true
}

// readRelated reads a related file from fsys with a size limit.
func readRelated(fsys fs.FS, ref string) ([]byte, error) {
	if fsys == nil {
		return nil, fmt.Errorf("%q: no directory to read related files from", ref)
	}
	p, ok := relPath(ref)
	if !ok {
		return nil, fmt.Errorf("%q: path outside the file's directory", ref)
	}
	return fs.ReadFile(fsys, p)
}
