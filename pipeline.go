package raypipe

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
)

// Spec limits ("Constants", D3D12_RAYTRACING_PIPELINE_CONFIG).
const (
	MaxAttributeSizeInBytes     = 32 // D3D12_RAYTRACING_MAX_ATTRIBUTE_SIZE_IN_BYTES
	MaxDeclarableRecursionDepth = 31 // D3D12_RAYTRACING_MAX_DECLARABLE_TRACE_RECURSION_DEPTH
	ShaderIdentifierSize        = 32 // D3D12_SHADER_IDENTIFIER_SIZE_IN_BYTES
	ShaderRecordByteAlignment   = 16 // D3D12_RAYTRACING_SHADER_RECORD_BYTE_ALIGNMENT
	MaxCallableNesting          = 64 // raypipe's bound on nested CallShader calls
	maxDispatchInvocations      = 1 << 30
)

// HitGroupType is D3D12_HIT_GROUP_TYPE.
type HitGroupType uint8

const (
	HitGroupTriangles HitGroupType = iota
	HitGroupProceduralPrimitive
)

// HitGroup names zero or one intersection, any hit and closest hit shader
// (D3D12_HIT_GROUP_DESC); an empty name omits that shader. An intersection
// shader is required for, and only allowed in, procedural hit groups.
type HitGroup struct {
	Name         string
	Type         HitGroupType
	Intersection string
	AnyHit       string
	ClosestHit   string
}

// ShaderConfig is D3D12_RAYTRACING_SHADER_CONFIG. Zero values mean "as
// large as the shaders need" for the payload and 32 bytes for attributes.
type ShaderConfig struct {
	MaxPayloadSizeInBytes   uint32
	MaxAttributeSizeInBytes uint32
}

// PipelineConfig is D3D12_RAYTRACING_PIPELINE_CONFIG.
type PipelineConfig struct {
	MaxTraceRecursionDepth uint32
}

// Collection is a reusable set of shaders and hit groups (a DXR
// collection state object). Pipelines can be composed from several.
type Collection struct {
	Shaders   []Shader
	HitGroups []HitGroup
}

// PipelineDesc describes a raytracing pipeline state object.
type PipelineDesc struct {
	Collections    []*Collection
	Shaders        []Shader
	HitGroups      []HitGroup
	ShaderConfig   ShaderConfig
	PipelineConfig PipelineConfig
}

// ShaderIdentifier is the opaque 32-byte identifier of a ray generation,
// miss or callable shader or of a hit group. The zero value is the NULL
// identifier: a record holding it runs nothing.
type ShaderIdentifier [ShaderIdentifierSize]byte

// IsNull reports whether id is the all-zero NULL identifier.
func (id ShaderIdentifier) IsNull() bool { return id == ShaderIdentifier{} }

// group is what a shader identifier resolves to.
type group struct {
	name   string
	kind   ShaderKind // ray generation, miss, callable, or closest hit for hit groups
	hit    bool
	htype  HitGroupType
	shader *Shader // ray generation, miss or callable
	is     *Shader
	ahs    *Shader
	chs    *Shader
}

func (g *group) stackSize(k ShaderKind) uint64 {
	var s *Shader
	switch k {
	case KindIntersection:
		s = g.is
	case KindAnyHit:
		s = g.ahs
	case KindClosestHit:
		s = g.chs
	default:
		s = g.shader
	}
	if s == nil {
		return 0
	}
	return s.StackSize()
}

// Pipeline is a raytracing pipeline state object.
type Pipeline struct {
	id        uint64
	config    ShaderConfig
	maxDepth  uint32
	groups    []group
	byName    map[string]int
	stackSize atomic.Uint64
}

var pipelineIDs atomic.Uint64

// NewPipeline links shaders and hit groups into a pipeline. It fails on
// duplicate or missing exports, shaders of the wrong kind in a hit group,
// an intersection shader in a triangle hit group (or none in a procedural
// one), attribute types that differ within a hit group, payloads or
// attributes larger than the shader config allows, and a recursion depth
// over 31.
func NewPipeline(d PipelineDesc) (*Pipeline, error) {
	p := &Pipeline{id: pipelineIDs.Add(1), config: d.ShaderConfig, maxDepth: d.PipelineConfig.MaxTraceRecursionDepth, byName: map[string]int{}}
	if p.config.MaxAttributeSizeInBytes == 0 {
		p.config.MaxAttributeSizeInBytes = MaxAttributeSizeInBytes
	}
	if p.config.MaxAttributeSizeInBytes > MaxAttributeSizeInBytes {
		return nil, fmt.Errorf("raypipe: shader config: MaxAttributeSizeInBytes %d exceeds %d", p.config.MaxAttributeSizeInBytes, MaxAttributeSizeInBytes)
	}
	if p.maxDepth > MaxDeclarableRecursionDepth {
		return nil, fmt.Errorf("raypipe: pipeline config: MaxTraceRecursionDepth %d exceeds %d", p.maxDepth, MaxDeclarableRecursionDepth)
	}
	shaders := map[string]*Shader{}
	var all []Shader
	var hitGroups []HitGroup
	for _, c := range d.Collections {
		if c == nil {
			continue
		}
		all = append(all, c.Shaders...)
		hitGroups = append(hitGroups, c.HitGroups...)
	}
	all = append(all, d.Shaders...)
	hitGroups = append(hitGroups, d.HitGroups...)
	for i := range all {
		s := &all[i]
		if err := p.checkShader(s); err != nil {
			return nil, err
		}
		if _, dup := shaders[s.Name]; dup {
			return nil, fmt.Errorf("raypipe: duplicate export %q", s.Name)
		}
		shaders[s.Name] = s
		switch s.Kind {
		case KindRayGeneration, KindMiss, KindCallable:
			p.addGroup(group{name: s.Name, kind: s.Kind, shader: s})
		}
	}
	for _, hg := range hitGroups {
		if hg.Name == "" {
			return nil, fmt.Errorf("raypipe: hit group with an empty name")
		}
		if _, dup := shaders[hg.Name]; dup {
			return nil, fmt.Errorf("raypipe: duplicate export %q (hit group and shader)", hg.Name)
		}
		if _, dup := p.byName[hg.Name]; dup {
			return nil, fmt.Errorf("raypipe: duplicate export %q", hg.Name)
		}
		g, err := linkHitGroup(hg, shaders)
		if err != nil {
			return nil, err
		}
		p.addGroup(g)
	}
	p.stackSize.Store(p.DefaultStackSize())
	return p, nil
}

func (p *Pipeline) addGroup(g group) {
	p.byName[g.name] = len(p.groups)
	p.groups = append(p.groups, g)
}

func (p *Pipeline) checkShader(s *Shader) error {
	if s.Name == "" {
		return fmt.Errorf("raypipe: a %s shader has an empty export name", s.Kind)
	}
	if s.Kind >= numShaderKinds {
		return fmt.Errorf("raypipe: shader %q: unknown kind %d", s.Name, s.Kind)
	}
	if s.Entry == nil {
		return fmt.Errorf("raypipe: shader %q: no entry function", s.Name)
	}
	if s.Payload != nil && s.Kind != KindCallable && p.config.MaxPayloadSizeInBytes != 0 && s.Payload.Size > uintptr(p.config.MaxPayloadSizeInBytes) {
		return fmt.Errorf("raypipe: shader %q: payload %s is %d bytes, over MaxPayloadSizeInBytes %d", s.Name, s.Payload.Name, s.Payload.Size, p.config.MaxPayloadSizeInBytes)
	}
	if a := s.Attributes; a != nil {
		if a.Size > uintptr(p.config.MaxAttributeSizeInBytes) {
			return fmt.Errorf("raypipe: shader %q: attributes %s are %d bytes, over MaxAttributeSizeInBytes %d", s.Name, a.Name, a.Size, p.config.MaxAttributeSizeInBytes)
		}
		if !a.PointerFree {
			return fmt.Errorf("raypipe: shader %q: attributes %s must be plain data without pointers", s.Name, a.Name)
		}
	}
	return nil
}

func linkHitGroup(hg HitGroup, shaders map[string]*Shader) (group, error) {
	g := group{name: hg.Name, kind: KindClosestHit, hit: true, htype: hg.Type}
	get := func(name string, want ShaderKind) (*Shader, error) {
		if name == "" {
			return nil, nil
		}
		s, ok := shaders[name]
		if !ok {
			return nil, fmt.Errorf("raypipe: hit group %q: missing export %q", hg.Name, name)
		}
		if s.Kind != want {
			return nil, fmt.Errorf("raypipe: hit group %q: %q is a %s shader, not %s", hg.Name, name, s.Kind, want)
		}
		return s, nil
	}
	var err error
	if g.is, err = get(hg.Intersection, KindIntersection); err != nil {
		return g, err
	}
	if g.ahs, err = get(hg.AnyHit, KindAnyHit); err != nil {
		return g, err
	}
	if g.chs, err = get(hg.ClosestHit, KindClosestHit); err != nil {
		return g, err
	}
	switch hg.Type {
	case HitGroupTriangles:
		if g.is != nil {
			return g, fmt.Errorf("raypipe: hit group %q: an intersection shader needs a procedural primitive hit group", hg.Name)
		}
	case HitGroupProceduralPrimitive:
		if g.is == nil {
			return g, fmt.Errorf("raypipe: hit group %q: a procedural primitive hit group needs an intersection shader", hg.Name)
		}
	default:
		return g, fmt.Errorf("raypipe: hit group %q: unknown type %d", hg.Name, hg.Type)
	}
	// "The any hit and closest hit shaders bound in the same hit group
	// with this intersection shader must use the same structure for hit
	// attributes."
	want := TypeOf[BuiltInTriangleIntersectionAttributes]()
	if g.is != nil {
		want = g.is.Attributes
	}
	for _, s := range []*Shader{g.ahs, g.chs} {
		if s != nil && s.Attributes != want {
			return g, fmt.Errorf("raypipe: hit group %q: %s shader %q takes attributes %s, the group reports %s", hg.Name, s.Kind, s.Name, s.Attributes.Name, want.Name)
		}
	}
	return g, nil
}

// ShaderIdentifier returns the identifier of a ray generation, miss or
// callable shader export or of a hit group (GetShaderIdentifier).
func (p *Pipeline) ShaderIdentifier(export string) (ShaderIdentifier, error) {
	i, ok := p.byName[export]
	if !ok {
		return ShaderIdentifier{}, fmt.Errorf("raypipe: no ray generation, miss or callable shader or hit group named %q", export)
	}
	var id ShaderIdentifier
	binary.LittleEndian.PutUint64(id[0:], p.id)
	binary.LittleEndian.PutUint32(id[8:], uint32(i)+1)
	copy(id[12:], "raypipe shader id")
	return id, nil
}

// MustShaderIdentifier is ShaderIdentifier for exports known to exist; it
// panics otherwise.
func (p *Pipeline) MustShaderIdentifier(export string) ShaderIdentifier {
	id, err := p.ShaderIdentifier(export)
	if err != nil {
		panic(err)
	}
	return id
}

// lookup resolves an identifier; nil for NULL.
func (p *Pipeline) lookup(id *ShaderIdentifier) (*group, error) {
	if id.IsNull() {
		return nil, nil
	}
	pid := binary.LittleEndian.Uint64(id[0:])
	gi := binary.LittleEndian.Uint32(id[8:])
	if pid != p.id || gi == 0 || int(gi) > len(p.groups) || string(id[12:29]) != "raypipe shader id" {
		return nil, fmt.Errorf("shader identifier %x does not belong to this pipeline", id[:16])
	}
	return &p.groups[gi-1], nil
}

// ShaderStackSize returns the stack size of one shader of an export
// (GetShaderStackSize): for hit groups name the stage with kind
// (KindIntersection, KindAnyHit or KindClosestHit).
func (p *Pipeline) ShaderStackSize(export string, kind ShaderKind) (uint64, error) {
	i, ok := p.byName[export]
	if !ok {
		return 0, fmt.Errorf("raypipe: no export named %q", export)
	}
	return p.groups[i].stackSize(kind), nil
}

// DefaultStackSize computes the spec's "Default pipeline stack size":
// RGSMax + MaxTraceRecursionDepth*max(ISMax+AHSMax, max(CHSMax, MSMax)) +
// 2*CSMax, from each shader's StackSize.
func (p *Pipeline) DefaultStackSize() uint64 {
	var largest [numShaderKinds]uint64 // per kind: RGSMax, ISMax, ...
	for i := range p.groups {
		g := &p.groups[i]
		for k := ShaderKind(0); k < numShaderKinds; k++ {
			if (g.hit && (k == KindIntersection || k == KindAnyHit || k == KindClosestHit)) || (!g.hit && k == g.kind) {
				largest[k] = max(largest[k], g.stackSize(k))
			}
		}
	}
	hit := max(largest[KindIntersection]+largest[KindAnyHit], largest[KindClosestHit], largest[KindMiss])
	return largest[KindRayGeneration] + uint64(p.maxDepth)*hit + 2*largest[KindCallable]
}

// StackSize returns the pipeline stack size in force
// (GetPipelineStackSize).
func (p *Pipeline) StackSize() uint64 { return p.stackSize.Load() }

// SetStackSize sets the pipeline stack size (SetPipelineStackSize). A
// dispatch whose call chain needs more stops with a stack overflow error
// ("Pipeline stack limit behavior").
func (p *Pipeline) SetStackSize(n uint64) { p.stackSize.Store(n) }

// MaxTraceRecursionDepth returns the pipeline config's recursion limit.
func (p *Pipeline) MaxTraceRecursionDepth() uint32 { return p.maxDepth }
