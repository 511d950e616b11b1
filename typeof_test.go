package raypipe

import (
	"reflect"
	"sync"
	"testing"
)

type typeOfA struct{ X, Y float32 }
type typeOfB struct{ X, Y float32 } // the same layout, another type
type typeOfAlias = typeOfA

// descOf is TypeOf's answer with what reflect says of T.
func descOf[T any](t *testing.T) *TypeDesc {
	d := TypeOf[T]()
	rt := reflect.TypeFor[T]()
	if d.Name != rt.String() || d.Size != rt.Size() {
		t.Errorf("TypeOf[%s]: %+v, want name %s, size %d", rt, *d, rt, rt.Size())
	}
	return d
}

// TestTypeOfOneDescriptorPerType: payload and attribute types are checked
// by comparing TypeDesc pointers (a shader's declared type against the
// trace's), so TypeOf must give one pointer a type, whatever the cache in
// front of it holds: the same for a type and its alias, from every
// goroutine, and another for every other type, including one of the same
// layout.
func TestTypeOfOneDescriptorPerType(t *testing.T) {
	descs := []*TypeDesc{
		descOf[typeOfA](t), descOf[typeOfB](t), descOf[int](t), descOf[int32](t),
		descOf[float32](t), descOf[[3]float32](t), descOf[*typeOfA](t), descOf[string](t),
		descOf[struct{ X, Y float32 }](t), descOf[BuiltInTriangleIntersectionAttributes](t),
	}
	seen := map[*TypeDesc]int{}
	for i, d := range descs {
		if j, ok := seen[d]; ok {
			t.Errorf("types %d and %d share a TypeDesc (%s)", j, i, d.Name)
		}
		seen[d] = i
	}
	if TypeOf[typeOfAlias]() != descs[0] {
		t.Error("an alias has a TypeDesc of its own")
	}
	if builtinAttrType != descs[9] {
		t.Error("BuiltInTriangleIntersectionAttributes' TypeDesc is not builtinAttrType")
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				var d *TypeDesc
				var want int
				switch (g + i) % 3 {
				case 0:
					d, want = TypeOf[typeOfA](), 0
				case 1:
					d, want = TypeOf[typeOfB](), 1
				default:
					d, want = TypeOf[[3]float32](), 5
				}
				if d != descs[want] {
					t.Errorf("goroutine %d, call %d: another TypeDesc for %s", g, i, descs[want].Name)
					return
				}
			}
		}()
	}
	wg.Wait()
}
