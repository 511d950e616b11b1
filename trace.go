package raypipe

import (
	"fmt"
	"unsafe"

	"github.com/raypipe/raypipe/accel"
)

// TraceRay sends a ray into tlas and runs the any hit, intersection,
// closest hit and miss shaders it meets ("TraceRay() control flow"). It is
// available in ray generation, closest hit and miss shaders. Only the low 8
// bits of instanceInclusionMask, the low 4 bits of rayContribution and
// multiplier (RayContributionToHitGroupIndex and
// MultiplierForGeometryContributionToHitGroupIndex) and the low 16 bits of
// missIndex are used. The invoked shaders must take payload type P.
//
// TraceRay is HitObjectTraceRay followed by Invoke; both paths share one
// implementation, so they give identical results.
//
// The shaders work on the worker's copy of *payload, which TraceRay copies
// back when they are done: the payload is "an inout argument in the
// TraceRay() call" ("Ray payload structure"), and the caller's variable then stays where the caller put
// it (on its stack), where passing its address into the shaders' calls
// made every payload escape to the heap, an allocation per ray
// (BenchmarkPipelineOverhead: 65544 allocations for 65536 rays).
func TraceRay[P any](c *Context, tlas *accel.TLAS, flags accel.RayFlags, instanceInclusionMask, rayContribution, multiplier, missIndex uint32, ray accel.Ray, payload *P) {
	c.needIntrinsic(stagesTrace, "TraceRay")
	pt := TypeOf[P]()
	own := payloadIn(c, payload, "TraceRay")
	var h HitObject
	invoke := true
	if c.traceSkipsHits(tlas, flags) {
		// Only whether the ray hits can show (a miss runs the miss
		// shader, a hit runs nothing): the occlusion query answers that.
		invoke = !c.occludedHitObject(&h, tlas, flags, instanceInclusionMask, missIndex, ray)
	} else {
		c.traceHitObject(&h, tlas, flags, instanceInclusionMask, rayContribution, multiplier, missIndex, ray, unsafe.Pointer(own), pt)
	}
	if invoke {
		c.invokeHitObject(&h, unsafe.Pointer(own), pt)
	}
	*payload = *own
}

// payloadIn copies *payload into the worker's payload of type P for a
// TraceRay, HitObjectTraceRay or Invoke made at c's recursion depth
// (allocated at the first such call) and returns it; the caller copies it
// back when the shaders are done. One per depth is enough: the shaders such a call
// runs finish before it returns, and only the calls they make (a depth
// further) run meanwhile. A ray generation shader suspends only at a
// reorder point (ReorderThread, and the fused forms' between their trace
// and their Invoke), outside those calls, so the invocations that run
// while it waits may take the same copy. A depth beyond the pipeline's
// limit shares the last one; its call fails (ErrRecursionLimit) before a
// shader runs.
// A nil payload is an error (ErrInvalidArgument) naming the intrinsic:
// the spec has none (its payload is a structure, not a pointer).
func payloadIn[P any](c *Context, payload *P, intrinsic string) *P {
	if payload == nil {
		c.fail(fmt.Errorf("%w: %s with a nil payload", ErrInvalidArgument, intrinsic))
	}
	own := slotValue[P](&c.w.payloads[min(c.depth, MaxDeclarableRecursionDepth)])
	*own = *payload
	return own
}

// slotValue returns the *P in slot, first putting a new one there if it
// holds none (or another type's).
func slotValue[P any](slot *any) *P {
	p, ok := (*slot).(*P)
	if !ok {
		p = new(P)
		*slot = p
	}
	return p
}

// traceSkipsHits reports whether TraceRay's hit, if any, is unobservable:
// with RAY_FLAG_SKIP_CLOSEST_HIT_SHADER no closest hit shader runs (D3D12
// raytracing spec, "Ray flags"), and on opaque triangles only (without
// RAY_FLAG_FORCE_NON_OPAQUE) no any hit or intersection shader runs
// either, so which triangle is hit, and whether it is the closest,
// changes nothing but the record the coherence statistics observe (then
// the full trace runs).
func (c *Context) traceSkipsHits(tlas *accel.TLAS, flags accel.RayFlags) bool {
	return flags&accel.RayFlagSkipClosestHitShader != 0 && flags&accel.RayFlagForceNonOpaque == 0 &&
		tlas != nil && tlas.OpaqueTrianglesOnly() && c.w.coherence == nil
}

// startTrace makes the checks every trace starts with (the recursion
// depth, the ray flags' exclusions) and counts the ray.
func (c *Context) startTrace(flags accel.RayFlags) {
	w := c.w
	if c.depth >= w.d.p.maxDepth {
		c.fail(fmt.Errorf("%w (%d)", ErrRecursionLimit, w.d.p.maxDepth))
	}
	if err := flags.Validate(); err != nil {
		c.fail(fmt.Errorf("%w: %v", ErrInvalidArgument, err))
	}
	w.stats.Rays++
}

// occludedHitObject is traceHitObject for a ray whose hit nothing can
// observe (traceSkipsHits): the same checks and count, then an occlusion
// query. It reports true for a hit, leaving h alone; on a miss it stores
// the miss in h, as traceHitObject does.
func (c *Context) occludedHitObject(h *HitObject, tlas *accel.TLAS, flags accel.RayFlags, mask, missIndex uint32, ray accel.Ray) bool {
	c.startTrace(flags)
	if tlas.Occluded(ray, flags, mask) {
		return true
	}
	h.setMiss(ray, flags, missIndex)
	return false
}

// attrBuf holds intersection attributes (at most 32 bytes, pointer-free),
// 8-byte aligned.
type attrBuf [MaxAttributeSizeInBytes / 8]uint64

func (b *attrBuf) set(p unsafe.Pointer, size uintptr) {
	*b = attrBuf{}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(b)), size), unsafe.Slice((*byte)(p), size))
}

var builtinAttrType = TypeOf[BuiltInTriangleIntersectionAttributes]()

// traceState is one traversal in progress, seen by the any hit and
// intersection shaders it runs.
type traceState struct {
	c          *Context
	tr         *accel.Traversal
	payload    unsafe.Pointer
	ptype      *TypeDesc
	rayContrib uint32
	mult       uint32
	// The hit group of the current candidate.
	g    *group
	args []byte
	// What a procedural commit recorded.
	comKind uint8
	comAttr attrBuf
	comType *TypeDesc
}

// anyHitSignal ends an any hit shader (IgnoreHit, AcceptHitAndEndSearch).
type anyHitSignal uint8

const (
	anyHitAccept anyHitSignal = iota
	anyHitIgnore
	anyHitAcceptAndEnd
)

// intersectionAbort ends an intersection shader whose ReportHit ended the
// search.
type intersectionAbort struct{}

// hitGroupIndex is the spec's hit group record index ("Hit group table
// indexing"), with the 4-bit TraceRay terms masked, truncated to the 28
// bits a HitObject's record index holds so that any hit, intersection and
// closest hit shaders of one hit always use the same record.
func hitGroupIndex(rayContrib, mult uint32, h *accel.Hit) uint64 {
	return (uint64(rayContrib&0xf) + uint64(mult&0xf)*uint64(h.GeometryIndex) + uint64(h.InstanceContributionToHitGroupIndex())) & hitRecordMask
}

// hitGroup resolves hit group record i. A NULL identifier gives nil.
func (c *Context) hitGroup(i uint64) (*group, []byte) {
	t := &c.w.d.desc.HitGroup
	id, args, ok := t.record(i)
	if !ok {
		c.fail(fmt.Errorf("%w: hit group record %d (table of %d records, stride %d)", ErrRecordOutOfRange, i, t.Records(), t.Stride))
	}
	g, err := c.w.d.p.lookup(id)
	if err != nil {
		c.fail(fmt.Errorf("%w: hit group record %d: %v", ErrShaderIdentifier, i, err))
	}
	if g != nil && !g.hit {
		c.fail(fmt.Errorf("%w: hit group record %d holds the %s shader %q", ErrShaderIdentifier, i, g.kind, g.name))
	}
	return g, args
}

func (c *Context) missGroup(i uint64) (*group, []byte) {
	t := &c.w.d.desc.Miss
	id, args, ok := t.record(i)
	if !ok {
		c.fail(fmt.Errorf("%w: miss record %d (table of %d records, stride %d)", ErrRecordOutOfRange, i, t.Records(), t.Stride))
	}
	g, err := c.w.d.p.lookup(id)
	if err != nil {
		c.fail(fmt.Errorf("%w: miss record %d: %v", ErrShaderIdentifier, i, err))
	}
	if g != nil && g.kind != KindMiss {
		c.fail(fmt.Errorf("%w: miss record %d holds %q, not a miss shader", ErrShaderIdentifier, i, g.name))
	}
	return g, args
}

func checkGroupType(c *Context, g *group, kind accel.CandidateKind, i uint64) {
	want := HitGroupTriangles
	if kind == accel.KindProcedural {
		want = HitGroupProceduralPrimitive
	}
	if g.htype != want {
		what := "triangle"
		if want == HitGroupProceduralPrimitive {
			what = "procedural primitive"
		}
		c.fail(fmt.Errorf("%w: hit group %q (record %d) used for a %s hit", ErrHitGroupType, g.name, i, what))
	}
}

// traceHitObject runs traversal with any hit and intersection shaders and
// stores the hit or miss in h (never NOP). h is written in place rather
// than returned: it is large, and TraceRay's overhead matters.
func (c *Context) traceHitObject(h *HitObject, tlas *accel.TLAS, flags accel.RayFlags, mask, rayContrib, mult, missIndex uint32, ray accel.Ray, payload unsafe.Pointer, pt *TypeDesc) {
	w := c.w
	c.startTrace(flags)
	if tlas != nil && tlas.OpaqueTrianglesOnly() && flags&accel.RayFlagForceNonOpaque == 0 {
		// No candidate can need a decision, so no any hit or intersection
		// shader can run: the plain closest-hit query commits exactly what
		// the traversal below would (accel's fast path).
		if tlas.IntersectTo(&ray, flags, mask, &h.hit) {
			h.setHitInPlace(ray, flags, rayContrib, mult)
		} else {
			h.setMiss(ray, flags, missIndex)
		}
		return
	}
	// One traceState per worker is enough: any hit and intersection
	// shaders cannot trace, so traversals never nest within a worker.
	ts := &w.ts
	*ts = traceState{c: c, tr: &w.tr, payload: payload, ptype: pt, rayContrib: rayContrib, mult: mult}
	tr := ts.tr
	tr.Begin(tlas, ray, flags, mask)
	for tr.Next() {
		cand := tr.Candidate()
		i := hitGroupIndex(rayContrib, mult, cand)
		g, args := c.hitGroup(i)
		if cand.Kind == accel.KindTriangle {
			if g == nil || g.ahs == nil {
				if g != nil {
					checkGroupType(c, g, cand.Kind, i)
				}
				tr.Commit()
				continue
			}
			checkGroupType(c, g, cand.Kind, i)
			ts.g, ts.args = g, args
			var a attrBuf
			attr := BuiltInTriangleIntersectionAttributes{Barycentrics: [2]float32{cand.U, cand.V}}
			a.set(unsafe.Pointer(&attr), unsafe.Sizeof(attr))
			switch ts.runAnyHit(c, cand, cand.T, cand.HitKind(), &a, builtinAttrType) {
			case anyHitAccept:
				tr.Commit()
			case anyHitAcceptAndEnd:
				tr.Commit()
				tr.EndSearch()
			}
			continue
		}
		if g == nil {
			continue // NULL hit group: no intersection shader, no hit
		}
		checkGroupType(c, g, cand.Kind, i)
		ts.g, ts.args = g, args
		ts.runIntersection(cand)
	}
	com := tr.Committed()
	if com.Kind == accel.KindNone {
		h.setMiss(ray, flags, missIndex)
		return
	}
	h.setHit(ray, flags, com, rayContrib, mult)
	if com.Kind == accel.KindProcedural {
		h.hitKind = ts.comKind
		h.attr = ts.comAttr
		h.attrType = ts.comType
	}
}

// setMiss makes h the HitObject of a traced miss.
func (h *HitObject) setMiss(ray accel.Ray, flags accel.RayFlags, missIndex uint32) {
	*h = HitObject{kind: hitObjectMiss, hasRecord: true, ray: ray, flags: flags, tCur: ray.TMax, record: missIndex & missRecordMask}
}

// setHit makes h the HitObject of a traced hit; triangle hits get their
// built-in attributes, procedural ones are completed by the caller.
func (h *HitObject) setHit(ray accel.Ray, flags accel.RayFlags, com *accel.Hit, rayContrib, mult uint32) {
	h.hit = *com
	h.setHitInPlace(ray, flags, rayContrib, mult)
}

// setHitInPlace is setHit for the hit in h.hit (TLAS.IntersectTo stores it
// there, so that it is not copied): it sets every other field, as the
// composite literal of a new HitObject would.
func (h *HitObject) setHitInPlace(ray accel.Ray, flags accel.RayFlags, rayContrib, mult uint32) {
	com := &h.hit
	h.kind, h.hasRecord, h.hitKind, h.flags, h.ray, h.tCur = hitObjectHit, true, 0, flags, ray, com.T
	h.record = uint32(hitGroupIndex(rayContrib, mult, com))
	h.attrType, h.attr, h.time = nil, attrBuf{}, 0
	if com.Kind == accel.KindTriangle {
		h.hitKind = com.HitKind()
		attr := BuiltInTriangleIntersectionAttributes{Barycentrics: [2]float32{com.U, com.V}}
		h.attr.set(unsafe.Pointer(&attr), unsafe.Sizeof(attr))
		h.attrType = builtinAttrType
	}
}

// runAnyHit runs the current hit group's any hit shader for a candidate at
// t and returns its decision. parent is the invocation whose stack the any
// hit shader sits on: the tracing shader for triangles, the intersection
// shader for ReportHit.
func (ts *traceState) runAnyHit(parent *Context, cand *accel.Hit, t float32, hitKind uint8, attr *attrBuf, at *TypeDesc) anyHitSignal {
	c, s := ts.c, ts.g.ahs
	if s.Payload != ts.ptype {
		c.fail(fmt.Errorf("%w: any hit shader %q takes payload %s, the trace passed %s", ErrTypeMismatch, s.Name, s.Payload.Name, ts.ptype.Name))
	}
	if s.Attributes != at {
		c.fail(fmt.Errorf("%w: any hit shader %q takes attributes %s, the hit has %s", ErrTypeMismatch, s.Name, s.Attributes.Name, at.Name))
	}
	w := c.w
	ac := w.nested()
	defer w.release()
	tr := ts.tr
	*ac = Context{w: w, launch: c.launch, stage: KindAnyHit, shader: s, depth: c.depth + 1, calls: c.calls, args: ts.args,
		ray: tr.Ray(), flags: tr.Flags(), tCur: t, hit: *cand, hitKind: hitKind, trace: ts, rg: c.rg}
	ac.hit.T = t
	ac.attr = *attr
	w.invoke(parent, ac, s, ts.payload, unsafe.Pointer(&ac.attr))
	return ac.ended
}

// runIntersection runs the intersection shader for a procedural candidate.
func (ts *traceState) runIntersection(cand *accel.Hit) {
	c, s := ts.c, ts.g.is
	w := c.w
	ic := w.nested()
	defer w.release()
	tr := ts.tr
	*ic = Context{w: w, launch: c.launch, stage: KindIntersection, shader: s, depth: c.depth + 1, calls: c.calls, args: ts.args,
		ray: tr.Ray(), flags: tr.Flags(), hit: *cand, trace: ts, rg: c.rg}
	w.invoke(c, ic, s, nil, nil) // returns when ReportHit ended the search too
}

// ReportHit reports a procedural hit at t from an intersection shader
// ("ReportHit()"). It returns false when t is outside [RayTMin,
// RayTCurrent] or the any hit shader ignored the hit. hitKind must be in
// 0..127 and A must be the shader's declared attribute type. When the hit
// ends the search (AcceptHitAndEndSearch, or
// RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH) the intersection shader stops
// here.
func ReportHit[A any](c *Context, t float32, hitKind uint32, attr *A) bool {
	return c.reportHit(t, hitKind, unsafe.Pointer(attr), TypeOf[A]())
}

func (c *Context) reportHit(t float32, hitKind uint32, attr unsafe.Pointer, at *TypeDesc) bool {
	c.needIntrinsic(1<<KindIntersection, "ReportHit")
	if at != c.shader.Attributes {
		c.fail(fmt.Errorf("%w: ReportHit with attributes %s, the shader declares %s", ErrTypeMismatch, at.Name, c.shader.Attributes.Name))
	}
	if hitKind > 127 {
		c.fail(fmt.Errorf("%w: ReportHit hit kind %d outside 0..127", ErrInvalidArgument, hitKind))
	}
	ts := c.trace
	tr := ts.tr
	if !(t >= c.ray.TMin && t <= tr.TMax()) {
		return false
	}
	var a attrBuf
	a.set(attr, at.Size)
	cand := tr.Candidate()
	decision := anyHitAccept
	if !cand.Opaque && ts.g.ahs != nil {
		decision = ts.runAnyHit(c, cand, t, uint8(hitKind), &a, at)
	}
	if decision == anyHitIgnore {
		return false
	}
	ts.comKind, ts.comAttr, ts.comType = uint8(hitKind), a, at
	tr.CommitProcedural(t)
	if decision == anyHitAcceptAndEnd {
		tr.EndSearch()
	}
	if tr.Done() {
		panic(intersectionAbort{})
	}
	return true
}

// IgnoreHit rejects the current hit and ends the any hit shader; the
// search goes on and ReportHit returns false ("IgnoreHit()").
func IgnoreHit(c *Context) {
	c.needIntrinsic(1<<KindAnyHit, "IgnoreHit")
	panic(anyHitIgnore)
}

// AcceptHitAndEndSearch commits the current hit, ends the any hit shader
// and stops the search; the closest hit shader still runs unless skipped
// ("AcceptHitAndEndSearch()").
func AcceptHitAndEndSearch(c *Context) {
	c.needIntrinsic(1<<KindAnyHit, "AcceptHitAndEndSearch")
	panic(anyHitAcceptAndEnd)
}

// CallShader runs callable shader record index of the callable table with
// parameter param ("CallShader()"); available in ray generation, closest
// hit, miss and callable shaders. A NULL identifier runs nothing.
func CallShader[P any](c *Context, index uint32, param *P) {
	c.needIntrinsic(stagesTrace|1<<KindCallable, "CallShader")
	if c.calls >= MaxCallableNesting {
		c.fail(fmt.Errorf("%w (%d)", ErrCallableNesting, MaxCallableNesting))
	}
	t := &c.w.d.desc.Callable
	id, args, ok := t.record(uint64(index))
	if !ok {
		c.fail(fmt.Errorf("%w: callable record %d (table of %d records, stride %d)", ErrRecordOutOfRange, index, t.Records(), t.Stride))
	}
	g, err := c.w.d.p.lookup(id)
	if err != nil {
		c.fail(fmt.Errorf("%w: callable record %d: %v", ErrShaderIdentifier, index, err))
	}
	if g == nil {
		return
	}
	if g.kind != KindCallable {
		c.fail(fmt.Errorf("%w: callable record %d holds %q, not a callable shader", ErrShaderIdentifier, index, g.name))
	}
	s := g.shader
	if pt := TypeOf[P](); s.Payload != pt {
		c.fail(fmt.Errorf("%w: callable shader %q takes %s, CallShader passed %s", ErrTypeMismatch, s.Name, s.Payload.Name, pt.Name))
	}
	w := c.w
	cc := w.nested()
	defer w.release()
	*cc = Context{w: w, launch: c.launch, stage: KindCallable, shader: s, depth: c.depth, calls: c.calls + 1, args: args, rg: c.rg}
	own := paramIn(c, param) // as TraceRay's payload: param stays where the caller put it
	w.invoke(c, cc, s, unsafe.Pointer(own), nil)
	*param = *own
}

// paramIn copies *param into the worker's parameter of type P for a
// CallShader made at c's callable nesting (allocated at the first such
// call) and returns it; CallShader copies it back. The callable parameter is "an inout argument in the CallShader() call"
// ("Call parameter structure"), and passed by address it escaped to
// the heap once a call. One per nesting is enough: callable shaders
// neither trace rays nor reach a reorder point, so while one runs, the
// only CallShader calls made are its own, a nesting further.
// A nil parameter is an error (ErrInvalidArgument).
func paramIn[P any](c *Context, param *P) *P {
	if param == nil {
		c.fail(fmt.Errorf("%w: CallShader with a nil parameter", ErrInvalidArgument))
	}
	own := slotValue[P](&c.w.params[min(c.calls, MaxCallableNesting)])
	*own = *param
	return own
}
