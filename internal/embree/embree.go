//go:build embree

package embree

/*
#cgo LDFLAGS: -lembree3
#include <embree3/rtcore.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// rp_ray and rp_hit mirror raygen.Ray and embree.Hit.
typedef struct { float ox, oy, oz, tmin, dx, dy, dz, tmax; } rp_ray;
typedef struct { float t; unsigned int prim, geom; float u, v; } rp_hit;

// rp_device holds a device, the scene flags its scenes are built with and
// the last error message its callback saw.
typedef struct {
	RTCDevice dev;
	enum RTCSceneFlags flags;
	char msg[256];
} rp_device;

static void rp_error(void *user, enum RTCError code, const char *str) {
	rp_device *d = (rp_device*)user;
	snprintf(d->msg, sizeof d->msg, "%s", str ? str : "");
}

static rp_device *rp_new_device(const char *config, int robust) {
	rp_device *d = (rp_device*)calloc(1, sizeof *d);
	if (!d) return NULL;
	d->flags = robust ? RTC_SCENE_FLAG_ROBUST : RTC_SCENE_FLAG_NONE;
	d->dev = rtcNewDevice(config);
	if (d->dev) rtcSetDeviceErrorFunction(d->dev, rp_error, d);
	return d;
}

// rp_release_device releases the device and frees d, which the error
// callback must not see afterwards.
static void rp_release_device(rp_device *d) {
	if (d->dev) {
		rtcSetDeviceErrorFunction(d->dev, NULL, NULL);
		rtcReleaseDevice(d->dev);
	}
	free(d);
}

// RP_CUT_PERIOD: with cut, rp_build's filter functions reject the hits of
// every triangle whose primitive ID is a multiple of it (CutPeriod).
#define RP_CUT_PERIOD 4

// rp_cut_filter is the intersection and occlusion filter of a cut
// geometry: it rejects (valid 0) the hits of cut triangles, as an any hit
// shader's IgnoreHit does. A hit's primID is the sixth of RTCHitN's
// fields (rtcore_ray.h's RTCHitN_primID, which is C++ only).
static void rp_cut_filter(const struct RTCFilterFunctionNArguments *args) {
	const unsigned int *prim = (const unsigned int*)args->hit + 5*args->N;
	for (unsigned int i = 0; i < args->N; i++) {
		if (args->valid[i] == -1 && prim[i] % RP_CUT_PERIOD == 0) args->valid[i] = 0;
	}
}

// rp_build makes a committed scene with one triangle geometry. The vertex
// buffer comes from rtcSetNewGeometryBuffer, which pads it as Embree needs.
// With refit the scene is RTC_SCENE_FLAG_DYNAMIC with the build quality
// LOW and the geometry's quality REFIT: Embree builds a two-level
// structure, the geometry's own BVH with its quality, and refits that BVH
// when only the vertices change (rtcSetGeometryBuildQuality(3); without
// the dynamic flag Embree 3.13 built one level at LOW and rebuilt it on
// every commit, at its build's rate). The geometry and its vertex buffer
// are then kept in *gout and *vbout (the geometry retained for rp_refit).
// With cut the geometry filters its hits through rp_cut_filter.
static RTCScene rp_build(rp_device *d, const float *pos, unsigned int nverts,
		const unsigned int *idx, unsigned int ntris, enum RTCBuildQuality q,
		int refit, int cut, RTCGeometry *gout, float **vbout) {
	RTCScene scene = rtcNewScene(d->dev);
	if (!scene) return NULL;
	rtcSetSceneFlags(scene, refit ? d->flags | RTC_SCENE_FLAG_DYNAMIC : d->flags);
	rtcSetSceneBuildQuality(scene, refit ? RTC_BUILD_QUALITY_LOW : q);
	if (ntris == 0) { rtcCommitScene(scene); return scene; }
	RTCGeometry g = rtcNewGeometry(d->dev, RTC_GEOMETRY_TYPE_TRIANGLE);
	if (!g) { rtcReleaseScene(scene); return NULL; }
	rtcSetGeometryBuildQuality(g, refit ? RTC_BUILD_QUALITY_REFIT : q);
	float *vb = (float*)rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0,
		RTC_FORMAT_FLOAT3, 3*sizeof(float), nverts);
	unsigned int *ib = (unsigned int*)rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0,
		RTC_FORMAT_UINT3, 3*sizeof(unsigned int), ntris);
	if (!vb || !ib) { rtcReleaseGeometry(g); rtcReleaseScene(scene); return NULL; }
	memcpy(vb, pos, (size_t)nverts*3*sizeof(float));
	memcpy(ib, idx, (size_t)ntris*3*sizeof(unsigned int));
	if (cut) {
		rtcSetGeometryIntersectFilterFunction(g, rp_cut_filter);
		rtcSetGeometryOccludedFilterFunction(g, rp_cut_filter);
	}
	rtcCommitGeometry(g);
	rtcAttachGeometry(scene, g);
	if (refit) {
		*gout = g;
		*vbout = vb;
	} else {
		rtcReleaseGeometry(g);
	}
	rtcCommitScene(scene);
	return scene;
}

// rp_refit copies nverts vertices from pos into the vertex buffer vb of
// the geometry g of scene (rp_build with refit) and commits both, which
// refits the geometry's BVH.
static void rp_refit(RTCScene scene, RTCGeometry g, float *vb, const float *pos, unsigned int nverts) {
	memcpy(vb, pos, (size_t)nverts*3*sizeof(float));
	rtcUpdateGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0);
	rtcCommitGeometry(g);
	rtcCommitScene(scene);
}

// rp_geom is the geometry ID a hit reports: the instance's in a scene of
// instances (rp_build_instances), else the triangle geometry's.
static unsigned int rp_geom(const struct RTCHit *h) {
	return h->instID[0] != RTC_INVALID_GEOMETRY_ID ? h->instID[0] : h->geomID;
}

// rp_build_instances makes a committed scene of n instances of the
// committed scene bottom, instance i (geometry ID i) placed by the
// row-major 3x4 matrix at xf+12i. It returns the time rtcCommitScene
// took, in seconds, in *commit.
static RTCScene rp_build_instances(rp_device *d, RTCScene bottom, const float *xf, unsigned int n,
		enum RTCBuildQuality q, double *commit) {
	RTCScene scene = rtcNewScene(d->dev);
	if (!scene) return NULL;
	rtcSetSceneFlags(scene, d->flags);
	rtcSetSceneBuildQuality(scene, q);
	for (unsigned int i = 0; i < n; i++) {
		RTCGeometry g = rtcNewGeometry(d->dev, RTC_GEOMETRY_TYPE_INSTANCE);
		if (!g) { rtcReleaseScene(scene); return NULL; }
		rtcSetGeometryInstancedScene(g, bottom);
		rtcSetGeometryTransform(g, 0, RTC_FORMAT_FLOAT3X4_ROW_MAJOR, xf + 12*(size_t)i);
		rtcCommitGeometry(g);
		rtcAttachGeometryByID(scene, g, i);
		rtcReleaseGeometry(g);
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rtcCommitScene(scene);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*commit = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
	return scene;
}

// rp_move_instances places instance i of scene (rp_build_instances) by
// the row-major 3x4 matrix at xf+12i, commits each and then the scene,
// which rebuilds its top-level BVH.
static void rp_move_instances(RTCScene scene, const float *xf, unsigned int n) {
	for (unsigned int i = 0; i < n; i++) {
		RTCGeometry g = rtcGetGeometry(scene, i);
		rtcSetGeometryTransform(g, 0, RTC_FORMAT_FLOAT3X4_ROW_MAJOR, xf + 12*(size_t)i);
		rtcCommitGeometry(g);
	}
	rtcCommitScene(scene);
}

static void rp_intersect(RTCScene scene, const rp_ray *rays, rp_hit *hits, size_t n) {
	struct RTCIntersectContext ctx;
	rtcInitIntersectContext(&ctx);
	struct RTCRayHit rh;
	for (size_t i = 0; i < n; i++) {
		const rp_ray *r = &rays[i];
		rh.ray.org_x = r->ox; rh.ray.org_y = r->oy; rh.ray.org_z = r->oz;
		rh.ray.tnear = r->tmin;
		rh.ray.dir_x = r->dx; rh.ray.dir_y = r->dy; rh.ray.dir_z = r->dz;
		rh.ray.time = 0;
		rh.ray.tfar = r->tmax;
		rh.ray.mask = 0xFFFFFFFFu;
		rh.ray.id = 0;
		rh.ray.flags = 0;
		rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
		rh.hit.primID = RTC_INVALID_GEOMETRY_ID;
		rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
		rtcIntersect1(scene, &ctx, &rh);
		rp_hit *h = &hits[i];
		if (rh.hit.geomID == RTC_INVALID_GEOMETRY_ID) {
			h->t = INFINITY;
			h->prim = h->geom = RTC_INVALID_GEOMETRY_ID;
			h->u = h->v = 0;
		} else {
			h->t = rh.ray.tfar;
			h->prim = rh.hit.primID;
			h->geom = rp_geom(&rh.hit);
			h->u = rh.hit.u;
			h->v = rh.hit.v;
		}
	}
}

static void rp_occluded(RTCScene scene, const rp_ray *rays, unsigned char *out, size_t n) {
	struct RTCIntersectContext ctx;
	rtcInitIntersectContext(&ctx);
	struct RTCRay ray;
	for (size_t i = 0; i < n; i++) {
		const rp_ray *r = &rays[i];
		ray.org_x = r->ox; ray.org_y = r->oy; ray.org_z = r->oz;
		ray.tnear = r->tmin;
		ray.dir_x = r->dx; ray.dir_y = r->dy; ray.dir_z = r->dz;
		ray.time = 0;
		ray.tfar = r->tmax;
		ray.mask = 0xFFFFFFFFu;
		ray.id = 0;
		ray.flags = 0;
		rtcOccluded1(scene, &ctx, &ray);
		out[i] = ray.tfar == -INFINITY;
	}
}

// The stream forms hand Embree the whole chunk (rtcIntersect1M and
// rtcOccluded1M), which lets it reorder or packetize rays as it sees fit.
static int rp_intersect_stream(RTCScene scene, const rp_ray *rays, rp_hit *hits, size_t n) {
	struct RTCRayHit *rh = malloc(n * sizeof(struct RTCRayHit));
	if (rh == NULL) {
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const rp_ray *r = &rays[i];
		struct RTCRayHit *q = &rh[i];
		q->ray.org_x = r->ox; q->ray.org_y = r->oy; q->ray.org_z = r->oz;
		q->ray.tnear = r->tmin;
		q->ray.dir_x = r->dx; q->ray.dir_y = r->dy; q->ray.dir_z = r->dz;
		q->ray.time = 0;
		q->ray.tfar = r->tmax;
		q->ray.mask = 0xFFFFFFFFu;
		q->ray.id = (unsigned)i;
		q->ray.flags = 0;
		q->hit.geomID = RTC_INVALID_GEOMETRY_ID;
		q->hit.primID = RTC_INVALID_GEOMETRY_ID;
		q->hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
	}
	struct RTCIntersectContext ctx;
	rtcInitIntersectContext(&ctx);
	rtcIntersect1M(scene, &ctx, rh, (unsigned)n, sizeof(struct RTCRayHit));
	for (size_t i = 0; i < n; i++) {
		const struct RTCRayHit *q = &rh[i];
		rp_hit *h = &hits[i];
		if (q->hit.geomID == RTC_INVALID_GEOMETRY_ID) {
			h->t = INFINITY;
			h->prim = h->geom = RTC_INVALID_GEOMETRY_ID;
			h->u = h->v = 0;
		} else {
			h->t = q->ray.tfar;
			h->prim = q->hit.primID;
			h->geom = rp_geom(&q->hit);
			h->u = q->hit.u;
			h->v = q->hit.v;
		}
	}
	free(rh);
	return 0;
}

static int rp_occluded_stream(RTCScene scene, const rp_ray *rays, unsigned char *out, size_t n) {
	struct RTCRay *rs = malloc(n * sizeof(struct RTCRay));
	if (rs == NULL) {
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const rp_ray *r = &rays[i];
		struct RTCRay *q = &rs[i];
		q->org_x = r->ox; q->org_y = r->oy; q->org_z = r->oz;
		q->tnear = r->tmin;
		q->dir_x = r->dx; q->dir_y = r->dy; q->dir_z = r->dz;
		q->time = 0;
		q->tfar = r->tmax;
		q->mask = 0xFFFFFFFFu;
		q->id = (unsigned)i;
		q->flags = 0;
	}
	struct RTCIntersectContext ctx;
	rtcInitIntersectContext(&ctx);
	rtcOccluded1M(scene, &ctx, rs, (unsigned)n, sizeof(struct RTCRay));
	for (size_t i = 0; i < n; i++) {
		out[i] = rs[i].tfar == -INFINITY;
	}
	free(rs);
	return 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/raypipe/raypipe/internal/raygen"
	"github.com/raypipe/raypipe/vec"
)

// Quality is an Embree BVH build quality.
type Quality int

// Build qualities, RTC_BUILD_QUALITY_LOW, _MEDIUM (Embree's default) and
// _HIGH (adds spatial splits).
const (
	Low Quality = iota
	Medium
	High
)

// String returns "low", "medium" or "high".
func (q Quality) String() string {
	switch q {
	case Low:
		return "low"
	case Medium:
		return "medium"
	case High:
		return "high"
	}
	return fmt.Sprintf("Quality(%d)", int(q))
}

func (q Quality) rtc() (C.enum_RTCBuildQuality, error) {
	switch q {
	case Low:
		return C.RTC_BUILD_QUALITY_LOW, nil
	case Medium:
		return C.RTC_BUILD_QUALITY_MEDIUM, nil
	case High:
		return C.RTC_BUILD_QUALITY_HIGH, nil
	}
	return 0, fmt.Errorf("embree: unknown build quality %d", int(q))
}

// Hit is the closest hit of a ray: distance T along the ray (+Inf on a
// miss), the triangle PrimID and geometry GeomID (both InvalidID on a miss;
// in a scene of instances, GeomID is the instance's), and the barycentrics
// U, V of vertices 1 and 2.
type Hit struct {
	T      float32
	PrimID uint32
	GeomID uint32
	U, V   float32
}

// Miss reports whether h is a miss.
func (h Hit) Miss() bool { return h.GeomID == InvalidID }

// InvalidID is the primitive and geometry ID of a miss
// (RTC_INVALID_GEOMETRY_ID).
const InvalidID = ^uint32(0)

// The C mirrors must have the Go layouts.
var (
	_ [unsafe.Sizeof(raygen.Ray{}) - C.sizeof_rp_ray]struct{}
	_ [C.sizeof_rp_ray - unsafe.Sizeof(raygen.Ray{})]struct{}
	_ [unsafe.Sizeof(Hit{}) - C.sizeof_rp_hit]struct{}
	_ [C.sizeof_rp_hit - unsafe.Sizeof(Hit{})]struct{}
	_ [unsafe.Sizeof(vec.Vec3{}) - 12]struct{}
	_ [12 - unsafe.Sizeof(vec.Vec3{})]struct{}
	_ [unsafe.Sizeof(vec.Mat3x4{}) - 48]struct{}
	_ [48 - unsafe.Sizeof(vec.Mat3x4{})]struct{}
)

// Error is an error reported by Embree.
type Error struct {
	Code    int    // RTCError code
	Message string // message from the device's error callback, if any
}

func (e *Error) Error() string {
	name := map[int]string{
		1: "unknown error", 2: "invalid argument", 3: "invalid operation",
		4: "out of memory", 5: "unsupported CPU", 6: "cancelled",
	}[e.Code]
	if name == "" {
		name = fmt.Sprintf("error %d", e.Code)
	}
	if e.Message != "" {
		return "embree: " + name + ": " + e.Message
	}
	return "embree: " + name
}

// Device is an Embree device. Its methods may be called from several
// goroutines, except Close.
//
// Closing a device releases it only once the scenes built on it are
// closed too: the device's C state (the error callback's buffer) must
// outlive them, and Embree then destroys the device in rtcReleaseDevice
// rather than inside the last scene's rtcReleaseScene. (cmd/embreecmp
// closes each builder's device before the scene it built; one of eight
// runs on 2026-11-24 crashed on a null pointer inside that last
// rtcReleaseScene. Whether the device's destruction there caused it is
// not proven; the callback's freed buffer was a bug either way.)
type Device struct {
	d *C.rp_device

	mu     sync.Mutex
	scenes int  // scenes built and not yet closed
	closed bool // Close was called
}

// NewDevice returns a device whose builds use the given number of threads
// (Embree's "threads=N" configuration); threads <= 0 lets Embree use all
// hardware threads. Tracing runs on the calling threads, whatever this is.
func NewDevice(threads int) (*Device, error) {
	return NewDeviceConfig(Config{Threads: threads})
}

// Config configures a device beyond Embree's defaults.
type Config struct {
	// Threads is the number of build threads (Embree's "threads=N");
	// 0 or less lets Embree use all hardware threads.
	Threads int
	// MaxISA caps the instruction set of the kernels Embree selects
	// ("max_isa=..."): one of ISAs. Empty lets Embree take the newest the
	// processor runs (on a processor with AVX-512, Debian's Embree 3.13
	// traces single rays with its avx512 kernels).
	MaxISA string
	// Robust builds every scene with RTC_SCENE_FLAG_ROBUST: "avoids
	// optimizations that reduce arithmetic accuracy ... typically used for
	// avoiding artifacts caused by rays shooting through edges of
	// neighboring primitives" (rtcSetSceneFlags(3)). Embree 3.13 then
	// builds Triangle4v leaves and traces them with its Pluecker
	// intersector and a conservative box test, the mode nearest to the
	// watertight test the D3D12 spec requires.
	Robust bool
	// Verbose is Embree's "verbose=N": from 2 on, Embree prints (to the
	// process's standard output) each build's BVH statistics, the "sah"
	// of its nodes and leaves among them (accel.TreeStats measures
	// raypipe's trees the same way), after its configuration at the
	// device's creation. 0 prints nothing.
	Verbose int
}

// ISAs are the instruction sets Config.MaxISA accepts, oldest first.
var ISAs = []string{"sse2", "sse4.2", "avx", "avx2", "avx512"}

// config returns c as an Embree configuration string.
func (c Config) config() (string, error) {
	var parts []string
	if c.Threads > 0 {
		parts = append(parts, fmt.Sprintf("threads=%d", c.Threads))
	}
	if c.MaxISA != "" {
		if !slices.Contains(ISAs, c.MaxISA) {
			return "", fmt.Errorf("embree: unknown instruction set %q (want one of %s)", c.MaxISA, strings.Join(ISAs, ", "))
		}
		parts = append(parts, "max_isa="+c.MaxISA)
	}
	if c.Verbose < 0 {
		return "", fmt.Errorf("embree: negative verbosity %d", c.Verbose)
	}
	if c.Verbose > 0 {
		parts = append(parts, fmt.Sprintf("verbose=%d", c.Verbose))
	}
	return strings.Join(parts, ","), nil
}

// NewDeviceConfig returns a device configured by c.
func NewDeviceConfig(c Config) (*Device, error) {
	cfg, err := c.config()
	if err != nil {
		return nil, err
	}
	return newDevice(cfg, c.Robust)
}

// newDevice returns a device made with an Embree configuration string,
// whose scenes are built with RTC_SCENE_FLAG_ROBUST if robust.
func newDevice(cfg string, robust bool) (*Device, error) {
	cs := C.CString(cfg)
	defer C.free(unsafe.Pointer(cs))
	r := C.int(0)
	if robust {
		r = 1
	}
	d := C.rp_new_device(cs, r)
	if d == nil {
		return nil, errors.New("embree: out of memory")
	}
	if d.dev == nil {
		err := &Error{Code: int(C.rtcGetDeviceError(nil)), Message: "rtcNewDevice failed"}
		C.rp_release_device(d)
		return nil, err
	}
	return &Device{d: d}, nil
}

// err returns the device's pending error, if any, and clears it.
func (d *Device) err() error {
	code := C.rtcGetDeviceError(d.d.dev)
	if code == C.RTC_ERROR_NONE {
		return nil
	}
	return &Error{Code: int(code), Message: C.GoString(&d.d.msg[0])}
}

// Close releases the device once every scene built on it is closed;
// scenes stay valid until then.
func (d *Device) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	d.releaseIfDone()
}

// releaseIfDone releases the device's C state once it is closed and has
// no open scene. d.mu must be held.
func (d *Device) releaseIfDone() {
	if d.closed && d.scenes == 0 && d.d != nil {
		C.rp_release_device(d.d)
		d.d = nil
	}
}

// Scene is a committed Embree scene of one triangle geometry (geometry ID
// 0). Intersect and Occluded may be called from several goroutines at once.
type Scene struct {
	s    C.RTCScene
	ntri int
	dev  *Device
}

// BuildTriangles builds a scene of the indexed triangle list: triangle i has
// vertices positions[indices[3i+k]], k = 0, 1, 2. It checks the indices and
// returns Embree's error if the build fails.
func (d *Device) BuildTriangles(positions []vec.Vec3, indices []uint32, quality Quality) (*Scene, error) {
	s, _, _, err := d.build(positions, indices, quality, false, false)
	return s, err
}

// CutPeriod is the period of the triangles BuildTrianglesCut cuts out.
const CutPeriod = 4

// BuildTrianglesCut is BuildTriangles with intersection and occlusion
// filter functions that reject the hits of every triangle whose primitive
// ID is a multiple of CutPeriod, as an alpha test cuts triangles out:
// Embree's counterpart of a non-opaque geometry whose any hit shader
// calls IgnoreHit for those triangles. Its scenes, and scenes of its
// instances, report the closest hit among the others (Intersect) and
// whether any other is hit (Occluded).
func (d *Device) BuildTrianglesCut(positions []vec.Vec3, indices []uint32, quality Quality) (*Scene, error) {
	s, _, _, err := d.build(positions, indices, quality, false, true)
	return s, err
}

// Refittable is a scene of one triangle mesh whose vertices may move
// (Refit), as a program deforming a mesh every frame keeps one.
type Refittable struct {
	*Scene
	g      C.RTCGeometry
	vb     *C.float
	nverts int
}

// BuildRefittable builds positions and indices (as BuildTriangles) into a
// scene that Embree refits when Refit moves its vertices: a dynamic
// two-level scene (build quality LOW) whose one geometry has the build
// quality REFIT, Embree's way to update a BVH without rebuilding it.
func (d *Device) BuildRefittable(positions []vec.Vec3, indices []uint32) (*Refittable, error) {
	s, g, vb, err := d.build(positions, indices, Low, true, false)
	if err != nil {
		return nil, err
	}
	return &Refittable{Scene: s, g: g, vb: vb, nverts: len(positions)}, nil
}

// Refit moves the scene's vertices to positions, as many as it was built
// with, and commits the scene, which refits its BVH.
func (r *Refittable) Refit(positions []vec.Vec3) error {
	if len(positions) != r.nverts {
		return fmt.Errorf("embree: %d positions, the scene was built with %d", len(positions), r.nverts)
	}
	if r.s == nil {
		return errors.New("embree: the scene is closed")
	}
	if r.nverts == 0 || r.g == nil {
		return nil
	}
	C.rp_refit(r.s, r.g, r.vb, (*C.float)(unsafe.Pointer(&positions[0])), C.uint(r.nverts))
	return r.dev.err()
}

// Close releases the geometry, then the scene (Scene.Close).
func (r *Refittable) Close() {
	if r.g != nil {
		C.rtcReleaseGeometry(r.g)
		r.g = nil
	}
	r.Scene.Close()
}

// build is BuildTriangles, with refit BuildRefittable (which takes the
// geometry and its vertex buffer), and with cut BuildTrianglesCut.
func (d *Device) build(positions []vec.Vec3, indices []uint32, quality Quality, refit, cut bool) (*Scene, C.RTCGeometry, *C.float, error) {
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return nil, nil, nil, errors.New("embree: device is closed")
	}
	if len(indices)%3 != 0 {
		return nil, nil, nil, fmt.Errorf("embree: index count %d is not a multiple of 3", len(indices))
	}
	if len(positions) > math.MaxUint32 || len(indices)/3 > math.MaxUint32 {
		return nil, nil, nil, errors.New("embree: mesh too large")
	}
	for i, x := range indices {
		if int(x) >= len(positions) {
			return nil, nil, nil, fmt.Errorf("embree: index %d (%d) out of range (vertex count %d)", i, x, len(positions))
		}
	}
	q, err := quality.rtc()
	if err != nil {
		return nil, nil, nil, err
	}
	ntri := len(indices) / 3
	var pp *C.float
	var ip *C.uint
	if len(positions) > 0 {
		pp = (*C.float)(unsafe.Pointer(&positions[0]))
	}
	if ntri > 0 {
		ip = (*C.uint)(unsafe.Pointer(&indices[0]))
	}
	var g C.RTCGeometry
	var vb *C.float
	r, c := C.int(0), C.int(0)
	if refit {
		r = 1
	}
	if cut {
		c = 1
	}
	s := C.rp_build(d.d, pp, C.uint(len(positions)), ip, C.uint(ntri), q, r, c, &g, &vb)
	if err := d.err(); err != nil {
		if g != nil {
			C.rtcReleaseGeometry(g)
		}
		if s != nil {
			C.rtcReleaseScene(s)
		}
		return nil, nil, nil, err
	}
	if s == nil {
		return nil, nil, nil, errors.New("embree: scene creation failed")
	}
	d.mu.Lock()
	d.scenes++
	d.mu.Unlock()
	return &Scene{s: s, ntri: ntri, dev: d}, g, vb, nil
}

// BuildInstances builds a scene of instances of bottom, a scene built on
// the same device: instance i (geometry ID i, which hits report as their
// GeomID) placed by transforms[i], row-major object to world as
// D3D12_RAYTRACING_INSTANCE_DESC's. It returns the scene and the time
// its rtcCommitScene took (the top-level BVH's build, without the
// instances' geometry objects made before it).
func (d *Device) BuildInstances(bottom *Scene, transforms []vec.Mat3x4, quality Quality) (*Scene, time.Duration, error) {
	d.mu.Lock()
	closed := d.closed
	d.mu.Unlock()
	if closed {
		return nil, 0, errors.New("embree: device is closed")
	}
	if bottom == nil || bottom.s == nil || bottom.dev != d {
		return nil, 0, errors.New("embree: the instanced scene must be open and built on the same device")
	}
	if len(transforms) > math.MaxUint32-1 {
		return nil, 0, errors.New("embree: too many instances")
	}
	q, err := quality.rtc()
	if err != nil {
		return nil, 0, err
	}
	var xf *C.float
	if len(transforms) > 0 {
		xf = (*C.float)(unsafe.Pointer(&transforms[0]))
	}
	var commit C.double
	s := C.rp_build_instances(d.d, bottom.s, xf, C.uint(len(transforms)), q, &commit)
	if err := d.err(); err != nil {
		if s != nil {
			C.rtcReleaseScene(s)
		}
		return nil, 0, err
	}
	if s == nil {
		return nil, 0, errors.New("embree: scene creation failed")
	}
	d.mu.Lock()
	d.scenes++
	d.mu.Unlock()
	return &Scene{s: s, ntri: bottom.ntri * len(transforms), dev: d}, time.Duration(float64(commit) * 1e9), nil
}

// MovableInstances is a scene of instances whose transforms may change
// (Move), as a program moving its instances every frame keeps one.
type MovableInstances struct {
	*Scene
	n int
}

// BuildMovableInstances is BuildInstances for moving the instances
// (Move), which commits the scene again: Embree 3 rebuilds a scene's
// top-level BVH on every commit (it refits triangle geometries, not
// instances). The scene keeps the flags and quality it was built with:
// RTC_SCENE_FLAG_DYNAMIC, which Embree advises for scenes that change
// every frame, left the moves' rate as it was, and the quality LOW made
// them slower (1k and 10k instances, 0.84-0.92 million a second against
// 1.44-1.66 at medium, Zen 3, 2026-11-27).
func (d *Device) BuildMovableInstances(bottom *Scene, transforms []vec.Mat3x4, quality Quality) (*MovableInstances, error) {
	s, _, err := d.BuildInstances(bottom, transforms, quality)
	if err != nil {
		return nil, err
	}
	return &MovableInstances{Scene: s, n: len(transforms)}, nil
}

// Move places instance i by transforms[i], as many as the scene was built
// with, and commits the scene.
func (m *MovableInstances) Move(transforms []vec.Mat3x4) error {
	if len(transforms) != m.n {
		return fmt.Errorf("embree: %d transforms, the scene was built with %d instances", len(transforms), m.n)
	}
	if m.s == nil {
		return errors.New("embree: the scene is closed")
	}
	if m.n == 0 {
		return nil
	}
	C.rp_move_instances(m.s, (*C.float)(unsafe.Pointer(&transforms[0])), C.uint(m.n))
	return m.dev.err()
}

// Triangles returns the number of triangles in s.
func (s *Scene) Triangles() int { return s.ntri }

// Close releases the scene, and its device if that is closed and this
// was its last open scene.
func (s *Scene) Close() {
	if s.s == nil {
		return
	}
	C.rtcReleaseScene(s.s)
	s.s = nil
	d := s.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	d.scenes--
	d.releaseIfDone()
}

// Intersect finds the closest hit of every ray in one cgo call, on the
// calling goroutine, with rtcIntersect1 in a C loop. hits must be at least
// as long as rays.
func (s *Scene) Intersect(rays []raygen.Ray, hits []Hit) {
	if len(rays) == 0 {
		return
	}
	_ = hits[len(rays)-1]
	C.rp_intersect(s.s, (*C.rp_ray)(unsafe.Pointer(&rays[0])), (*C.rp_hit)(unsafe.Pointer(&hits[0])), C.size_t(len(rays)))
}

// Occluded reports for every ray whether anything lies within its
// [TMin, TMax], in one cgo call with rtcOccluded1 in a C loop. out must be
// at least as long as rays.
func (s *Scene) Occluded(rays []raygen.Ray, out []bool) {
	if len(rays) == 0 {
		return
	}
	_ = out[len(rays)-1]
	// A Go bool is one byte holding 0 or 1, as the C loop writes it.
	C.rp_occluded(s.s, (*C.rp_ray)(unsafe.Pointer(&rays[0])), (*C.uchar)(unsafe.Pointer(&out[0])), C.size_t(len(rays)))
}

// IntersectStream is Intersect through Embree's stream API
// (rtcIntersect1M over the whole batch). It panics if C memory for the
// batch cannot be allocated.
func (s *Scene) IntersectStream(rays []raygen.Ray, hits []Hit) {
	if len(rays) == 0 {
		return
	}
	_ = hits[len(rays)-1]
	if C.rp_intersect_stream(s.s, (*C.rp_ray)(unsafe.Pointer(&rays[0])), (*C.rp_hit)(unsafe.Pointer(&hits[0])), C.size_t(len(rays))) != 0 {
		panic("embree: out of memory for a ray stream")
	}
}

// OccludedStream is Occluded through Embree's stream API (rtcOccluded1M).
func (s *Scene) OccludedStream(rays []raygen.Ray, out []bool) {
	if len(rays) == 0 {
		return
	}
	_ = out[len(rays)-1]
	if C.rp_occluded_stream(s.s, (*C.rp_ray)(unsafe.Pointer(&rays[0])), (*C.uchar)(unsafe.Pointer(&out[0])), C.size_t(len(rays))) != 0 {
		panic("embree: out of memory for a ray stream")
	}
}

// ChunkSize is the number of rays per cgo call in the parallel methods.
const ChunkSize = 4096

// IntersectParallel is Intersect split into chunks of ChunkSize rays traced
// by workers goroutines (each cgo call runs on its own OS thread);
// workers <= 0 means GOMAXPROCS.
func (s *Scene) IntersectParallel(rays []raygen.Ray, hits []Hit, workers int) {
	_ = hits[:len(rays)]
	Parallel(len(rays), ChunkSize, workers, func(lo, hi int) { s.Intersect(rays[lo:hi], hits[lo:hi]) })
}

// OccludedParallel is Occluded split into chunks like IntersectParallel.
func (s *Scene) OccludedParallel(rays []raygen.Ray, out []bool, workers int) {
	_ = out[:len(rays)]
	Parallel(len(rays), ChunkSize, workers, func(lo, hi int) { s.Occluded(rays[lo:hi], out[lo:hi]) })
}

// Parallel calls f on the chunks [lo, hi) of [0, n), chunk items at a time,
// from workers goroutines that take chunks in order from a shared counter;
// workers <= 0 means GOMAXPROCS. With one worker it runs on the caller,
// still a chunk at a time, so that one-thread and all-thread timings
// of the batch and stream tracers make calls of the same size.
//
// It returns the time from the moment every worker runs to the end of the
// last chunk: the workers wait at a start line (Together) until all of
// them are running. Go wakes sleeping threads one at a time, tens of
// microseconds each on a virtual machine, and on sixteen cores that ramp
// added up to 2 ms to traces of 2 to 4 ms, alike for every tracer, so that
// it pulled every ratio toward 1: on a 16-core Xeon, two runs of the 10k
// terrain's sixteen-thread shadow rays read 31 and 46 Mrays/s for Embree
// and 31 and 39 for raypipe timed from the first goroutine's start, and
// 59 and 59 against 46 and 41 from the start line. A program that traces
// for longer pays the ramp once.
func Parallel(n, chunk, workers int, f func(lo, hi int)) time.Duration {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if chunk <= 0 {
		chunk = 1
	}
	nchunks := (n + chunk - 1) / chunk
	workers = max(1, min(workers, nchunks))
	var next atomic.Int64
	start := Together(workers, nil, func(int) {
		for c := int(next.Add(1) - 1); c < nchunks; c = int(next.Add(1) - 1) {
			f(c*chunk, min((c+1)*chunk, n))
		}
	})
	return time.Since(start)
}

// GrowStack grows the calling goroutine's stack to 32 KB, more than any
// tracer's calls need, before the clock starts (Together's workers; the
// build and update timings of cmd/embreecmp, after their collections). A new goroutine's stack
// starts small and grows on the first call that needs more: raypipe's
// queries (Go code, with assembly frames of 2-3 KB) grow every worker's
// stack in its first chunk, while Embree's calls run on the threads' own
// C stacks. Right after the garbage collection that precedes every timed
// run (bestTraces) a grown stack comes from memory the collector has just
// freed: on a 16-core Xeon (a virtual machine) the sixteen workers' first
// chunks cost raypipe 10-40% more, against Embree's, than their later
// chunks did (Embree ÷ raypipe per chunk, medians over the 10k terrain,
// spider.obj and WusonOBJ.obj: 0.67-0.79 against 0.78-0.87 on one
// machine, 0.68-0.83 against 0.89-1.19 on another), and growing each
// worker's stack before the start line made them alike (0.78-0.89 against
// 0.78-0.88; docs/against-embree.md, "First chunks"). On a Zen 3 core the
// first query in a new goroutine costs 0.6-3 us more than the next. A
// program that traces from long-lived goroutines pays it once.
//
//go:noinline
func GrowStack() byte {
	var b [24 << 10]byte
	for i := 0; i < len(b); i += 4096 {
		b[i] = byte(i >> 12)
	}
	return b[len(b)-4096]
}

// Together runs run(0), ..., run(n-1) on n goroutines, the caller's being
// the last, and returns when all have returned, with the time at which
// they started: each first grows its stack (GrowStack), calls prepare (if
// not nil) and then waits at a start line until every one has, so that
// all of them are running on threads of their own when the first begins.
// Up to GOMAXPROCS goroutines spin there; more than that yield while they
// wait (a spinning goroutine would keep a waiting one off its thread
// until the scheduler preempts it).
func Together(n int, prepare, run func(w int)) time.Time {
	yield := n > runtime.GOMAXPROCS(0)
	wait := func(done func() bool) {
		for !done() {
			if yield {
				runtime.Gosched()
			}
		}
	}
	var ready atomic.Int32
	var started atomic.Bool
	var wg sync.WaitGroup
	for w := range n - 1 {
		wg.Go(func() {
			GrowStack()
			if prepare != nil {
				prepare(w)
			}
			ready.Add(1)
			wait(started.Load)
			run(w)
		})
	}
	GrowStack()
	if prepare != nil {
		prepare(n - 1)
	}
	wait(func() bool { return ready.Load() == int32(n-1) })
	start := time.Now()
	started.Store(true)
	run(n - 1)
	wg.Wait()
	return start
}
