package scene

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"strings"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
	"github.com/raypipe/raypipe/vec"
)

// maxUnbackedAccessorBytes bounds an accessor without a buffer view
// (all zeros, optionally patched by sparse values): such an accessor has
// no data whose size could justify its claimed count.
const maxUnbackedAccessorBytes = 64 << 20

// supportedRequiredExtensions lists the glTF extensions a file may
// require. Others make LoadGLTF fail with ErrUnsupported (ignoring them
// would misrender the file: Draco and meshopt compression, texture
// transforms, quantized attributes).
//
// Material extensions that only refine shading are tolerated: the
// material falls back to its core pbrMetallicRoughness values.
var supportedRequiredExtensions = map[string]bool{
	"KHR_materials_emissive_strength":     true,
	"KHR_materials_transmission":          true,
	"KHR_materials_ior":                   true,
	"KHR_materials_pbrSpecularGlossiness": true,
	"KHR_materials_clearcoat":             true,
	"KHR_materials_sheen":                 true,
	"KHR_materials_specular":              true,
	"KHR_materials_volume":                true,
	"KHR_materials_unlit":                 true,
	"KHR_technique_webgl":                 true,
}

// LoadGLTF reads a glTF 2.0 document, JSON (.gltf) or binary (.glb),
// from r. name is used in error messages and as the scene name. External
// buffers and images are read from fsys relative to its root (the file's
// directory); data: URIs and GLB-embedded data need no fsys, which may be
// nil (external buffers then fail to load).
//
// What is read:
//   - the document's default scene, or scene 0, or, without scenes, every
//     root node (with a warning if a default scene was named); node
//     transforms (matrix or T*R*S) are composed down the hierarchy and
//     every node with a mesh becomes an Instance; a node reached twice (a
//     cycle or shared child) is an error;
//   - meshes: every primitive's POSITION, NORMAL, TEXCOORD_0 and indices,
//     any component type allowed by the spec. TRIANGLES is read as is,
//     TRIANGLE_STRIP and TRIANGLE_FAN are converted to lists; POINTS and
//     LINES primitives are skipped with a warning; a TRIANGLES list whose
//     length is not a multiple of 3 is an error. Skins and morph
//     targets are ignored (rest pose);
//   - materials: pbrMetallicRoughness base color factor and texture,
//     metallic and roughness factors, alphaMode and alphaCutoff,
//     emissiveFactor (times KHR_materials_emissive_strength),
//     KHR_materials_transmission and KHR_materials_ior; textures that
//     fail to load are dropped with a warning;
//   - the first perspective camera met in the node traversal.
//
// Every accessor's claimed count is checked against its buffer view
// before anything is allocated for it.
func LoadGLTF(r io.Reader, name string, fsys fs.FS) (s *Scene, err error) {
	defer recoverTo(name, &err)
	doc := new(gltf.Document)
	if err := gltf.NewDecoderFS(r, fsys).Decode(doc); err != nil {
		return nil, loadErr(name, 0, "%v", err)
	}
	c := gltfConv{name: name, doc: doc, fsys: fsys, s: &Scene{Name: name}, images: map[int]int{}}
	if err := c.convert(); err != nil {
		var le *LoadError
		if errors.As(err, &le) {
			return nil, err
		}
		return nil, loadErr(name, 0, "%w", err)
	}
	return c.s, nil
}

type gltfConv struct {
	name   string
	doc    *gltf.Document
	fsys   fs.FS
	s      *Scene
	meshes []int       // doc mesh -> scene mesh, -1 when it has no triangles
	images map[int]int // doc image -> scene texture, -1 when it failed
}

func (c *gltfConv) warnf(format string, args ...any) {
	c.s.Warnings = append(c.s.Warnings, c.name+": "+fmt.Sprintf(format, args...))
}

func (c *gltfConv) convert() error {
	for _, e := range c.doc.ExtensionsRequired {
		if !supportedRequiredExtensions[e] {
			return fmt.Errorf("%w required extension %q", ErrUnsupported, e)
		}
	}
	for i, b := range c.doc.Buffers {
		if b == nil {
			return fmt.Errorf("buffer %d: null", i)
		}
		if len(b.Data) < b.ByteLength {
			return fmt.Errorf("buffer %d (%q): %d bytes loaded, byteLength says %d", i, b.URI, len(b.Data), b.ByteLength)
		}
	}
	for i, m := range c.doc.Materials {
		if m == nil {
			return fmt.Errorf("material %d: null", i)
		}
		c.s.Materials = append(c.s.Materials, c.material(i, m))
	}
	c.meshes = make([]int, len(c.doc.Meshes))
	for i, m := range c.doc.Meshes {
		mi, err := c.mesh(i, m)
		if err != nil {
			return err
		}
		c.meshes[i] = mi
	}
	return c.nodes()
}

// nodes walks the chosen scene's node trees and emits instances.
func (c *gltfConv) nodes() error {
	doc := c.doc
	var roots []int
	if doc.Scene != nil && len(doc.Scenes) == 0 {
		c.warnf("scene %d given but the file has no scenes; using every root node", *doc.Scene)
	}
	switch {
	case len(doc.Scenes) > 0:
		si := 0
		if doc.Scene != nil {
			si = *doc.Scene
		}
		if si < 0 || si >= len(doc.Scenes) || doc.Scenes[si] == nil {
			return fmt.Errorf("scene %d out of range (%d scenes)", si, len(doc.Scenes))
		}
		roots = doc.Scenes[si].Nodes
		if doc.Scenes[si].Name != "" {
			c.s.Name = doc.Scenes[si].Name
		}
	default:
		isChild := make([]bool, len(doc.Nodes))
		for _, n := range doc.Nodes {
			if n == nil {
				continue
			}
			for _, ch := range n.Children {
				if ch >= 0 && ch < len(isChild) {
					isChild[ch] = true
				}
			}
		}
		for i := range doc.Nodes {
			if !isChild[i] {
				roots = append(roots, i)
			}
		}
	}
	type item struct {
		node   int
		parent vec.Mat3x4
	}
	visited := make([]bool, len(doc.Nodes))
	stack := make([]item, 0, len(roots))
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, item{roots[i], vec.Identity3x4})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.node < 0 || it.node >= len(doc.Nodes) || doc.Nodes[it.node] == nil {
			return fmt.Errorf("node %d out of range (%d nodes)", it.node, len(doc.Nodes))
		}
		if visited[it.node] {
			return fmt.Errorf("node %d reached twice (a cycle or a shared child)", it.node)
		}
		visited[it.node] = true
		n := doc.Nodes[it.node]
		world := it.parent.Mul(nodeTransform(n))
		if !world.IsFinite() {
			return fmt.Errorf("node %d (%q): transform not finite", it.node, n.Name)
		}
		if n.Mesh != nil {
			mi := *n.Mesh
			if mi < 0 || mi >= len(c.meshes) {
				return fmt.Errorf("node %d (%q): mesh %d out of range (%d meshes)", it.node, n.Name, mi, len(c.meshes))
			}
			if c.meshes[mi] >= 0 {
				name := n.Name
				if name == "" {
					name = c.s.Meshes[c.meshes[mi]].Name
				}
				c.s.Instances = append(c.s.Instances, Instance{Name: name, Mesh: c.meshes[mi], Transform: world})
			}
		}
		if n.Camera != nil && c.s.Camera == nil {
			c.camera(it.node, *n.Camera, world)
		}
		for i := len(n.Children) - 1; i >= 0; i-- {
			stack = append(stack, item{n.Children[i], world})
		}
	}
	return nil
}

// nodeTransform returns the node's local transform: its matrix when one
// other than the identity is given, else T*R*S.
func nodeTransform(n *gltf.Node) vec.Mat3x4 {
	if m := n.MatrixOrDefault(); m != gltf.DefaultMatrix {
		// glTF matrices are column-major 4x4.
		var r vec.Mat3x4
		for row := 0; row < 3; row++ {
			for col := 0; col < 4; col++ {
				r[row][col] = float32(m[col*4+row])
			}
		}
		return r
	}
	t, q, sc := n.TranslationOrDefault(), n.RotationOrDefault(), n.ScaleOrDefault()
	x, y, z, w := q[0], q[1], q[2], q[3]
	if l := math.Sqrt(x*x + y*y + z*z + w*w); l > 0 {
		x, y, z, w = x/l, y/l, z/l, w/l
	}
	rot := [3][3]float64{
		{1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w)},
		{2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w)},
		{2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y)},
	}
	var r vec.Mat3x4
	for row := 0; row < 3; row++ {
		for col := 0; col < 3; col++ {
			r[row][col] = float32(rot[row][col] * sc[col])
		}
		r[row][3] = float32(t[row])
	}
	return r
}

func (c *gltfConv) camera(node, ci int, world vec.Mat3x4) {
	if ci < 0 || ci >= len(c.doc.Cameras) || c.doc.Cameras[ci] == nil {
		c.warnf("node %d: camera %d out of range; ignored", node, ci)
		return
	}
	p := c.doc.Cameras[ci].Perspective
	if p == nil {
		return // orthographic cameras are not supported; keep looking
	}
	pos := world.TransformPoint(vec.Vec3{})
	fwd := world.TransformVector(vec.V3(0, 0, -1)).Normalize()
	up := world.TransformVector(vec.V3(0, 1, 0)).Normalize()
	if fwd.Len() == 0 || !(p.Yfov > 0 && p.Yfov < math.Pi) {
		c.warnf("node %d: degenerate camera %d ignored", node, ci)
		return
	}
	cam := &Camera{Position: pos, Target: pos.Add(fwd), Up: up, VFOV: float32(p.Yfov)}
	if p.AspectRatio != nil && *p.AspectRatio > 0 && *p.AspectRatio < math.MaxFloat32 {
		cam.Aspect = float32(*p.AspectRatio)
	}
	c.s.Camera = cam
}

// extension decodes a material extension's JSON into v; it reports
// whether the extension was present and well-formed.
func extension(ext gltf.Extensions, key string, v any) bool {
	raw, ok := ext[key]
	if !ok {
		return false
	}
	var data []byte
	switch r := raw.(type) {
	case json.RawMessage:
		data = r
	default:
		var err error
		if data, err = json.Marshal(r); err != nil {
			return false
		}
	}
	return json.Unmarshal(data, v) == nil
}

func (c *gltfConv) material(i int, gm *gltf.Material) Material {
	m := DefaultMaterial()
	m.Name = gm.Name
	if m.Name == "" {
		m.Name = fmt.Sprintf("material%d", i)
	}
	pbr := gm.PBRMetallicRoughness
	if pbr == nil {
		pbr = &gltf.PBRMetallicRoughness{}
	}
	bc := pbr.BaseColorFactorOrDefault()
	m.BaseColor = [4]float32{float32(bc[0]), float32(bc[1]), float32(bc[2]), float32(bc[3])}
	m.Metallic = float32(pbr.MetallicFactorOrDefault())
	m.Roughness = float32(pbr.RoughnessFactorOrDefault())
	if pbr.BaseColorTexture != nil {
		m.BaseColorTexture = c.texture(i, pbr.BaseColorTexture)
	}
	switch gm.AlphaMode {
	case gltf.AlphaMask:
		m.AlphaMode = Mask
	case gltf.AlphaBlend:
		m.AlphaMode = Blend
	}
	m.AlphaCutoff = float32(gm.AlphaCutoffOrDefault())
	strength := struct {
		EmissiveStrength *float64 `json:"emissiveStrength"`
	}{}
	scale := 1.0
	if extension(gm.Extensions, "KHR_materials_emissive_strength", &strength) && strength.EmissiveStrength != nil {
		scale = *strength.EmissiveStrength
	}
	for k := range m.Emissive {
		m.Emissive[k] = float32(gm.EmissiveFactor[k] * scale)
	}
	ior := struct {
		IOR *float64 `json:"ior"`
	}{}
	if extension(gm.Extensions, "KHR_materials_ior", &ior) && ior.IOR != nil && *ior.IOR >= 1 {
		m.IOR = float32(*ior.IOR)
	}
	var transmission struct {
		TransmissionFactor float64 `json:"transmissionFactor"`
	}
	hasTransmission := extension(gm.Extensions, "KHR_materials_transmission", &transmission)
	switch {
	case max(m.Emissive[0], m.Emissive[1], m.Emissive[2]) > 0:
		m.Kind = Emissive
	case hasTransmission && transmission.TransmissionFactor > 0:
		m.Kind = Dielectric
	case m.Metallic >= 0.5:
		m.Kind = Metal
	}
	return m
}

// texture returns the scene texture for a base color texture reference,
// or -1 (with a warning) when it cannot be loaded.
func (c *gltfConv) texture(mat int, ti *gltf.TextureInfo) int {
	doc := c.doc
	if ti.Index < 0 || ti.Index >= len(doc.Textures) || doc.Textures[ti.Index] == nil || doc.Textures[ti.Index].Source == nil {
		c.warnf("material %d: base color texture %d missing or without source; ignored", mat, ti.Index)
		return -1
	}
	if ti.TexCoord != 0 {
		c.warnf("material %d: base color texture uses TEXCOORD_%d; TEXCOORD_0 used instead", mat, ti.TexCoord)
	}
	ii := *doc.Textures[ti.Index].Source
	if t, ok := c.images[ii]; ok {
		return t
	}
	c.images[ii] = -1
	if ii < 0 || ii >= len(doc.Images) || doc.Images[ii] == nil {
		c.warnf("material %d: image %d out of range (%d images); ignored", mat, ii, len(doc.Images))
		return -1
	}
	img := doc.Images[ii]
	var data []byte
	var err error
	label := img.Name
	switch {
	case img.BufferView != nil:
		if *img.BufferView < 0 || *img.BufferView >= len(doc.BufferViews) {
			err = fmt.Errorf("buffer view %d out of range", *img.BufferView)
		} else {
			data, err = modeler.ReadBufferView(doc, doc.BufferViews[*img.BufferView])
		}
	case strings.HasPrefix(img.URI, "data:"):
		data, err = img.MarshalData()
		if err == nil && len(data) == 0 {
			err = errors.New("unsupported data URI media type")
		}
	default:
		label = img.URI
		var ref string
		if ref, err = url.PathUnescape(img.URI); err == nil {
			data, err = readRelated(c.fsys, ref)
		}
	}
	var t *Texture
	if err == nil {
		if label == "" {
			label = fmt.Sprintf("image%d", ii)
		}
		t, err = decodeTexture(label, data)
	}
	if err != nil {
		c.warnf("image %d: %v; texture ignored", ii, err)
		return -1
	}
	c.images[ii] = c.s.addTexture(t)
	return c.images[ii]
}
