//go:build !race

package accel

// raceDetector: this test binary runs without the race detector (see
// raceRays).
const raceDetector = false
