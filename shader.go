package raypipe

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// ShaderKind is the stage of a shader ("Shaders" in the spec).
type ShaderKind uint8

const (
	KindRayGeneration ShaderKind = iota
	KindIntersection
	KindAnyHit
	KindClosestHit
	KindMiss
	KindCallable
	numShaderKinds
)

var kindNames = [...]string{"ray generation", "intersection", "any hit", "closest hit", "miss", "callable"}

func (k ShaderKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ShaderKind(%d)", k)
}

// TypeDesc identifies the type of a payload, attribute structure or
// callable parameter. Two values match when they are the same *TypeDesc.
// Go shaders get theirs from TypeOf; another executor (SPIR-V) makes its
// own.
type TypeDesc struct {
	Name string
	Size uintptr
	// PointerFree reports whether the type holds no Go pointers, which
	// intersection attributes must (they are copied as plain bytes).
	PointerFree bool
}

var typeDescs sync.Map // reflect.Type -> *TypeDesc

// typeCache is a direct-mapped cache in front of typeDescs: TypeOf runs on
// every TraceRay, where a sync.Map lookup would be a measurable share of
// the pipeline's overhead.
var typeCache [256]atomic.Pointer[typeCacheEntry]

type typeCacheEntry struct {
	rt   reflect.Type
	desc *TypeDesc
}

// TypeOf returns the TypeDesc of the Go type T; the same pointer every time.
func TypeOf[T any]() *TypeDesc {
	rt := reflect.TypeFor[T]()
	slot := &typeCache[(uintptr((*[2]unsafe.Pointer)(unsafe.Pointer(&rt))[1])>>5)&255]
	if e := slot.Load(); e != nil && e.rt == rt {
		return e.desc
	}
	d, ok := typeDescs.Load(rt)
	if !ok {
		d, _ = typeDescs.LoadOrStore(rt, &TypeDesc{Name: rt.String(), Size: rt.Size(), PointerFree: pointerFree(rt)})
	}
	desc := d.(*TypeDesc)
	slot.Store(&typeCacheEntry{rt, desc})
	return desc
}

func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return t.Len() == 0 || pointerFree(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// ShaderFunc is the untyped entry point of a shader. payload points to the
// payload (any hit, closest hit, miss), the callable parameter (callable)
// or is nil; attr points to the hit attributes (any hit, closest hit) or is
// nil.
type ShaderFunc func(c *Context, payload, attr unsafe.Pointer)

// Shader is one exported shader of any kind. The generic constructors
// (RayGeneration, ClosestHit, ...) fill it for Go functions.
type Shader struct {
	Name string
	Kind ShaderKind
	// Payload is the payload type (any hit, closest hit, miss) or the
	// parameter type (callable); nil for ray generation and intersection.
	Payload *TypeDesc
	// Attributes is the attribute type (any hit, closest hit, and the
	// type an intersection shader reports); nil otherwise.
	Attributes *TypeDesc
	// LocalStackBytes declares the shader's own stack use beyond its
	// payload and attributes, for the pipeline stack size calculation.
	LocalStackBytes uint32
	Entry           ShaderFunc
}

// StackSize returns the shader's stack size as the pipeline accounts it:
// its payload, attributes and declared local bytes
// (GetShaderStackSize, "Pipeline stack").
func (s *Shader) StackSize() uint64 {
	n := uint64(s.LocalStackBytes)
	if s.Payload != nil {
		n += uint64(s.Payload.Size)
	}
	if s.Attributes != nil {
		n += uint64(s.Attributes.Size)
	}
	return n
}

// BuiltInTriangleIntersectionAttributes are the attributes of fixed-function
// triangle hits: the barycentrics of vertices 1 and 2.
type BuiltInTriangleIntersectionAttributes struct {
	Barycentrics [2]float32
}

// RayGeneration makes a ray generation shader.
func RayGeneration(name string, fn func(c *Context)) Shader {
	return Shader{Name: name, Kind: KindRayGeneration, Entry: func(c *Context, _, _ unsafe.Pointer) { fn(c) }}
}

// ClosestHit makes a closest hit shader with payload type P and attribute
// type A (BuiltInTriangleIntersectionAttributes for triangle hit groups).
func ClosestHit[P, A any](name string, fn func(c *Context, payload *P, attr *A)) Shader {
	return Shader{Name: name, Kind: KindClosestHit, Payload: TypeOf[P](), Attributes: TypeOf[A](),
		Entry: func(c *Context, p, a unsafe.Pointer) { fn(c, (*P)(p), (*A)(a)) }}
}

// AnyHit makes an any hit shader with payload type P and attribute type A.
func AnyHit[P, A any](name string, fn func(c *Context, payload *P, attr *A)) Shader {
	return Shader{Name: name, Kind: KindAnyHit, Payload: TypeOf[P](), Attributes: TypeOf[A](),
		Entry: func(c *Context, p, a unsafe.Pointer) { fn(c, (*P)(p), (*A)(a)) }}
}

// AnyHitFilter makes an any hit shader with payload type P and attribute
// type A that ends by returning its decision: HitIgnore is IgnoreHit
// called as its last statement, HitAcceptAndEndSearch is
// AcceptHitAndEndSearch, HitAccept a plain return ("IgnoreHit()",
// "AcceptHitAndEndSearch()"). The two intrinsics end a Go function with a
// panic, which its invocation recovers: about 190 ns each, more than the
// walk of a short ray, paid at every candidate an alpha test cuts out.
// The returned decision costs nothing. The shader may still call the
// intrinsics; they end it as in any other any hit shader.
func AnyHitFilter[P, A any](name string, fn func(c *Context, payload *P, attr *A) HitDecision) Shader {
	return Shader{Name: name, Kind: KindAnyHit, Payload: TypeOf[P](), Attributes: TypeOf[A](),
		Entry: func(c *Context, p, a unsafe.Pointer) { c.endAnyHit(fn(c, (*P)(p), (*A)(a))) }}
}

// HitDecision is how an any hit shader made with AnyHitFilter ends.
type HitDecision uint8

const (
	// HitAccept accepts the hit: it is committed if it is the closest so
	// far, and the search goes on.
	HitAccept = HitDecision(anyHitAccept)
	// HitIgnore rejects the hit, as IgnoreHit: the search goes on and a
	// ReportHit that ran the shader returns false.
	HitIgnore = HitDecision(anyHitIgnore)
	// HitAcceptAndEndSearch commits the hit and stops the search, as
	// AcceptHitAndEndSearch; the closest hit shader still runs unless
	// skipped.
	HitAcceptAndEndSearch = HitDecision(anyHitAcceptAndEnd)
)

// endAnyHit records the decision an AnyHitFilter shader returned, as
// invoke records an intrinsic's; a value outside the three stops the
// dispatch.
func (c *Context) endAnyHit(d HitDecision) {
	if d > HitAcceptAndEndSearch {
		c.fail(fmt.Errorf("%w: the any hit shader returned HitDecision(%d), not HitAccept, HitIgnore or HitAcceptAndEndSearch", ErrInvalidArgument, d))
	}
	c.ended = anyHitSignal(d)
}

// Miss makes a miss shader with payload type P.
func Miss[P any](name string, fn func(c *Context, payload *P)) Shader {
	return Shader{Name: name, Kind: KindMiss, Payload: TypeOf[P](),
		Entry: func(c *Context, p, _ unsafe.Pointer) { fn(c, (*P)(p)) }}
}

// Intersection makes an intersection shader that reports hits with
// attribute type A (through ReportHit).
func Intersection[A any](name string, fn func(c *Context)) Shader {
	return Shader{Name: name, Kind: KindIntersection, Attributes: TypeOf[A](),
		Entry: func(c *Context, _, _ unsafe.Pointer) { fn(c) }}
}

// Callable makes a callable shader with parameter type P.
func Callable[P any](name string, fn func(c *Context, param *P)) Shader {
	return Shader{Name: name, Kind: KindCallable, Payload: TypeOf[P](),
		Entry: func(c *Context, p, _ unsafe.Pointer) { fn(c, (*P)(p)) }}
}
