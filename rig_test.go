package raypipe

import (
	"context"
	"testing"

	"github.com/raypipe/raypipe/accel"
	"github.com/raypipe/raypipe/vec"
)

// rig is a small pipeline harness for conformance tests: it links the
// given shaders and hit groups, lays out tables from export names ("" is a
// NULL record) and dispatches.
type rig struct {
	t        *testing.T
	p        *Pipeline
	hit      ShaderTable
	miss     ShaderTable
	callable ShaderTable
}

func newRig(t *testing.T, depth uint32, shaders []Shader, groups []HitGroup) *rig {
	t.Helper()
	p, err := NewPipeline(PipelineDesc{Shaders: shaders, HitGroups: groups, PipelineConfig: PipelineConfig{MaxTraceRecursionDepth: depth}})
	if err != nil {
		t.Fatal(err)
	}
	return &rig{t: t, p: p}
}

// table builds a table of records; each record's local root arguments are
// one uint32: its own index.
func (r *rig) table(exports ...string) ShaderTable {
	var b ShaderTableBuilder
	for i, e := range exports {
		var id ShaderIdentifier
		if e != "" {
			id = r.p.MustShaderIdentifier(e)
		}
		b.AddUint32s(id, uint32(i))
	}
	return b.Build()
}

func (r *rig) dispatch(raygen string, w, h uint32, opt *DispatchOptions) (Stats, error) {
	return r.p.DispatchRays(context.Background(), DispatchRaysDesc{
		RayGeneration: r.table(raygen), HitGroup: r.hit, Miss: r.miss, Callable: r.callable,
		Width: w, Height: h,
	}, opt)
}

func (r *rig) mustDispatch(raygen string, w, h uint32, opt *DispatchOptions) Stats {
	r.t.Helper()
	st, err := r.dispatch(raygen, w, h, opt)
	if err != nil {
		r.t.Fatal(err)
	}
	return st
}

// quad returns two triangles covering [-s,s]^2 at depth z.
func quad(s, z float32) []vec.Vec3 {
	return []vec.Vec3{{X: -s, Y: -s, Z: z}, {X: s, Y: -s, Z: z}, {X: s, Y: s, Z: z}, {X: -s, Y: -s, Z: z}, {X: s, Y: s, Z: z}, {X: -s, Y: s, Z: z}}
}

func mustBLAS(t *testing.T, flags accel.BuildFlags, geoms ...accel.Geometry) *accel.BLAS {
	t.Helper()
	b, err := accel.BuildBLAS(geoms, flags)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustTLAS(t *testing.T, insts ...accel.Instance) *accel.TLAS {
	t.Helper()
	tl, err := accel.BuildTLAS(insts, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func place(b *accel.BLAS, xf vec.Mat3x4, contribution uint32) accel.Instance {
	return accel.Instance{Transform: xf, InstanceMask: 0xff, InstanceContributionToHitGroupIndex: contribution, BLAS: b}
}

var down = vec.V3(0, 0, 1)

func rayAt(x, y float32) accel.Ray {
	return accel.Ray{Origin: vec.V3(x, y, -10), Direction: down, TMax: 1000}
}

type attrs = BuiltInTriangleIntersectionAttributes
